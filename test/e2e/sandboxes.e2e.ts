/**
 * Sandbox dependencies and egress in the workbench (Chromium, browser front end, real Docker): Settings
 * builds a sandbox's dependency image from a local wheel with the log streamed in place, and a run whose
 * tool reached a loopback server through the egress proxy shows the request under the tool call.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeWheel } from '../support/wheel.ts';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';

let w: E2eWorld;
let server: Server;
let port = 0;
const nonce = randomBytes(6).toString('hex');
const built: string[] = [];

const WEB_TOOLS = `import urllib.request


@tool(grade=(2, 0))
def get_url(url: str) -> ToolResponse:
    """Fetch a URL.

    Args:
        url: The URL.
    """
    with urllib.request.urlopen(url, timeout=10) as r:
        return ToolResponse(success=True, data=r.read().decode())
`;
const WHEEL_TOOLS = `import e2e_tiny


@tool(grade=(0, 0))
def tiny() -> ToolResponse:
    """The wheel's value."""
    return ToolResponse(success=True, data=e2e_tiny.VALUE)
`;

beforeAll(async () => {
  server = createServer((req, res) => res.end(`hi ${req.url}`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
  w = await startWorld((ws) => {
    const web = join(ws, 'sandboxes', 'web');
    mkdirSync(web);
    writeFileSync(join(web, 'tools.py'), WEB_TOOLS);
    const deps = join(ws, 'sandboxes', 'wheeled');
    mkdirSync(join(deps, 'wheels'), { recursive: true });
    writeFileSync(join(deps, 'tools.py'), WHEEL_TOOLS);
    writeFileSync(join(deps, 'requirements.txt'), 'e2e-tiny==1.0\n');
    writeWheel(join(deps, 'wheels'), 'e2e_tiny', '1.0', { 'e2e_tiny/__init__.py': `VALUE = "${nonce}"\n` });
    appendFileSync(
      join(ws, '.toolsmith', 'config.toml'),
      `\n[sandboxes.web]\n[sandboxes.web.egress]\nallow = ["127.0.0.1:${port}"]\n[sandboxes.wheeled]\n`,
    );
  });
});
afterAll(async () => {
  await w?.close();
  server?.close();
  const docker = new Docker();
  for (const tag of built)
    await docker
      .getImage(tag)
      .remove({ force: true })
      .catch(() => {});
});

const nav = (label: string) =>
  w.page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: label }).click();

describe('sandbox dependencies and egress in the workbench', () => {
  it('Settings builds a sandbox dependency image, streaming the build log', async () => {
    const { page } = w;
    await nav('Settings');
    const row = page.locator('tr[data-deps="wheeled"]');
    await row.waitFor();
    await row.getByRole('button', { name: 'Build dependencies' }).click();
    const tags = row.locator('[data-deps-tags]');
    await tags.waitFor({ timeout: 240_000 });
    const text = await tags.innerText();
    expect(text).toMatch(/toolsmith\/python-deps:[0-9a-f]{16}/);
    built.push(/toolsmith\/python-deps:[0-9a-f]{16}/.exec(text)?.[0] ?? '');
    // the log stays in the row (folded once the build succeeded)
    expect(await row.locator('pre.build-log').textContent()).toMatch(
      /Successfully installed e2e[-_]tiny-1\.0/,
    );
    expect(await row.getByRole('alert').count()).toBe(0);
    await w.screenshot('settings-sandbox-deps');
  }, 300_000);

  it("a run's tool-call trace lists the tool's outbound requests", async () => {
    const runs = await w.svc.runs();
    const outcome = await (
      await runs.start({
        task: `get_url(url="http://127.0.0.1:${port}/e2e")`,
        sandbox: 'web',
        providers: [],
      })
    ).done;
    expect(outcome.status).toBe('succeeded');
    const { page } = w;
    await page.goto(`${w.web.url.split('#')[0]}#/run/${outcome.runId}`);
    await page.getByRole('tab', { name: /Tool calls/ }).click();
    const list = page.getByRole('list', { name: 'outbound requests of get_url' });
    await list.waitFor();
    const text = await list.innerText();
    expect(text).toContain(`allowed GET 127.0.0.1:${port} 200`);
    expect(text).toMatch(/\d+ B out, \d+ B in/);
    await w.screenshot('run-egress-trace');
  }, 120_000);
});

/**
 * Text an attacker chose, shown in the workbench (Chromium, browser front end, real container): an
 * upstream MCP server's tool descriptions (Connections and Tools views), a skill's docstring (Skills
 * view) and a script's error (run view) carry `<img src="x" onerror=...>`. Each is shown as text; no
 * element is made from it and nothing runs.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { repoRoot } from '../support/workspace.ts';
import { nodeBin } from '../support/mcp-workspace.ts';

const HTML = '<img src="x" onerror="window.pwned=1">';
let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld((ws) =>
    appendFileSync(
      join(ws, '.toolsmith/config.toml'),
      `
[mcp_servers.hostile]
command = ${JSON.stringify(nodeBin)}
args = [${JSON.stringify(join(repoRoot, 'test/integration/mcp/support/hostile-upstream.mjs'))}, "--tools", "0"]
timeout_ms = 30000

[sandboxes.notes]
description = "Hostile tools."
[sandboxes.notes.mcp.hostile]
`,
    ),
  );
});
afterAll(async () => {
  await w?.close();
});

const base = () => w.web.url.split('#')[0];
/** Nothing ran and no element came from the markup; the markup is on the page as text. */
async function shownAsText(where: string) {
  const { page } = w;
  expect(await page.evaluate(() => (globalThis as { pwned?: unknown }).pwned), where).toBeUndefined();
  expect(await page.locator('img[src="x"]').count(), where).toBe(0);
  expect(await page.locator('body').innerText(), where).toContain(HTML);
}

describe('hostile text in the workbench', () => {
  it('MCP tool descriptions, a skill docstring and a script error are shown as text', async () => {
    const { page } = w;
    // An upstream server's tools: Connections, then the sandbox's tools.
    await page.goto(`${base()}#/connections`);
    await page.locator('tr[data-server="hostile"]').getByRole('button', { name: 'Test' }).click();
    const detail = page.locator('[data-testid="mcp-detail"][data-server="hostile"]');
    await detail.locator('[data-testid="mcp-connected"]').waitFor();
    await detail.locator('[data-mcp-tool="show_html"] summary').click();
    await shownAsText('connections');
    await page.goto(`${base()}#/tools/notes`);
    await page.getByText('Shows <b>bold</b> text.', { exact: false }).first().waitFor();
    await shownAsText('tools');

    // A skill whose docstring is markup (its test passes in the sandbox).
    const saved = await w.svc.skills().save({
      sandbox: 'ecommerce',
      name: 'user_tier',
      source: `def user_tier(user_id: str) -> str:\n    """${HTML} A customer's tier.\n\n    Args:\n        user_id: The customer's id.\n    """\n    return get_user(user_id=user_id).data["tier"]\n`,
      tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 'gold' }] }],
    });
    expect(saved.test.passed).toBe(true);
    await page.goto(`${base()}#/skills`);
    await page.locator('tr[data-skill="user_tier"]').waitFor();
    await shownAsText('skills');

    // A script's error.
    const runs = await w.svc.runs();
    const run = await runs.runScript({
      sandbox: 'ecommerce',
      body: `if len("a") > 5:\n    emit_result(1)\nraise ValueError(${JSON.stringify(HTML)})\n`,
    });
    expect(run.status).toBe('failed');
    await page.goto(`${base()}#/run/${run.runId}`);
    await page.locator('.run-detail').waitFor();
    await expect.poll(async () => (await page.locator('body').innerText()).includes(HTML)).toBe(true);
    await shownAsText('run');
    await w.screenshot('hostile-text-run');
  }, 240_000);
});

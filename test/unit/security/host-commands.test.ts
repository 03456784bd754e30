/**
 * A compromised page (renderer or browser) saves an MCP server whose command is the attacker's, then
 * asks to test it: the command must not start on the host unless a person confirmed it (desktop: the
 * native dialog, per exact command) or the browser front end was started to allow host commands.
 * Real web server, real service, a real command that would leave a file behind if it ran.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { CommandApprovals } from '../../../src-main/electron/confirm.ts';
import { startWebServer } from '../../../src-main/web/server.ts';
import type { WebServer } from '../../../src-main/web/server.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

const node = join(repoRoot, 'node_modules/.bin/node');
const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  for (const d of dirs) removeWorkspace(d);
});

function world() {
  const ws = tempWorkspace('toolsmith-hostcmd-');
  const marker = join(mkdtempSync(join(tmpdir(), 'toolsmith-marker-')), 'ran');
  dirs.push(ws, join(marker, '..'));
  return { ws, marker, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] };
}

async function api(web: WebServer, method: string, body: unknown) {
  const origin = `http://127.0.0.1:${web.port}`;
  const r = await fetch(`${origin}/api/${method}`, {
    method: 'POST',
    headers: { origin, authorization: `Bearer ${web.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await r.json()) as { ok: boolean; error?: { message: string } };
}

describe('host commands from the browser front end', () => {
  it('refused by default: mcp.save + mcp.test never start the command', async () => {
    const { ws, marker, args } = world();
    const svc = ToolsmithService.open(ws);
    const stat = mkdtempSync(join(tmpdir(), 'toolsmith-static-'));
    writeFileSync(join(stat, 'index.html'), '<html>ok</html>');
    const web = await startWebServer(svc, { staticDir: stat });
    cleanups.push(async () => {
      await web.close();
      await svc.close();
    });
    await api(web, 'mcp.save', { name: 'evil', command: node, args });
    const tested = await api(web, 'mcp.test', { name: 'evil' });
    expect(tested.ok).toBe(false);
    expect(tested.error?.message).toMatch(/does not start commands on this computer.*--allow-host-commands/);
    expect(existsSync(marker)).toBe(false);
  }, 30_000);

  it('allowed when the server was started with allowHostCommands (the command does run)', async () => {
    const { ws, marker, args } = world();
    const svc = ToolsmithService.open(ws);
    const web = await startWebServer(svc, { allowHostCommands: true });
    cleanups.push(async () => {
      await web.close();
      await svc.close();
    });
    await api(web, 'mcp.save', { name: 'evil', command: node, args });
    await api(web, 'mcp.test', { name: 'evil' });
    expect(existsSync(marker)).toBe(true);
  }, 30_000);
});

describe('host commands on the desktop: the native dialog decides', () => {
  for (const choice of ['Cancel', 'Run'] as const) {
    it(`${choice}: the command ${choice === 'Run' ? 'runs' : 'never starts'}`, async () => {
      const { ws, marker, args } = world();
      const shown: string[] = [];
      const approvals = new CommandApprovals(async (o) => {
        shown.push(o.detail);
        return { response: choice === 'Run' ? 0 : 1 };
      });
      const svc = ToolsmithService.open(ws, { approveHostCommand: (c) => approvals.approve(c) });
      cleanups.push(() => svc.close());
      const { dispatch } = await import('../../../src-main/app/handlers.ts');
      await dispatch(svc, 'mcp.save', { name: 'evil', command: node, args });
      await dispatch(svc, 'mcp.test', { name: 'evil' });
      expect(shown.length).toBeGreaterThan(0);
      expect(shown[0]).toContain(JSON.stringify(node));
      expect(existsSync(marker)).toBe(choice === 'Run');
    }, 30_000);
  }
});

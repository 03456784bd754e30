/**
 * `mcp.remove`: a server added in the workbench (Connections) can be removed there too. Before, there was
 * no request for it: a server saved with a wrong URL stayed in error until config.toml was edited by
 * hand. It removes `[mcp_servers.NAME]` and each sandbox's `[sandboxes.S.mcp.NAME]` (subtables too),
 * keeps every other line, and the running service forgets the server at once; an unknown name and a
 * server named where the workbench does not edit (an inline table) are refused, the file unchanged.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

describe('mcp.remove (dispatch: IPC and web server)', () => {
  // Each test its own workspace and service: each passes alone and in any order.
  let ws: string;
  let svc: ToolsmithService;
  let file: string;
  beforeEach(() => {
    ws = tempWorkspace();
    svc = ToolsmithService.open(ws);
    file = join(ws, '.toolsmith', 'config.toml');
  });
  afterEach(async () => {
    await svc.close();
    removeWorkspace(ws);
  });
  /** The workspace's one MCP server, `other`, that no sandbox uses. */
  const saveOther = async () =>
    expect(await dispatch(svc, 'mcp.save', { name: 'other', url: 'http://127.0.0.1:9/other' })).toMatchObject(
      {
        ok: true,
      },
    );

  it('removes the server and its use by a sandbox; other lines stay; the service forgets it', async () => {
    const saved = await dispatch(svc, 'mcp.save', {
      name: 'broken',
      url: 'http://127.0.0.1:9/mcp',
      sandbox: 'ecommerce',
    });
    expect(saved).toMatchObject({ ok: true });
    writeFileSync(
      file,
      readFileSync(file, 'utf8') +
        '\n[sandboxes.ecommerce.mcp.broken.aliases]\nfetch = "get_page"\n\n# kept: a comment about the next table\n',
    );
    await saveOther();
    const before = readFileSync(file, 'utf8');
    expect(before).toContain('[sandboxes.ecommerce.mcp.broken]');

    const r = await dispatch(svc, 'mcp.remove', { name: 'broken' });
    expect(r).toEqual({ ok: true, value: { name: 'broken', sandboxes: ['ecommerce'] } });
    const after = readFileSync(file, 'utf8');
    expect(after).not.toMatch(/mcp_servers\.broken|mcp\.broken/);
    expect(after).toMatch(/# kept: a comment about the next table\n+\[mcp_servers\.other\]/);
    expect(after).toContain('[mcp_servers.other]');
    expect(after).toContain('[sandboxes.ecommerce]');
    expect(svc.mcpServers.view().map((s) => s.name)).toEqual(['other']);
    expect(svc.config.sandboxes['ecommerce']?.mcp['broken']).toBeUndefined();
  });

  it('an unknown name is not found, naming the servers there are', async () => {
    await saveOther();
    const before = readFileSync(file, 'utf8');
    const r = await dispatch(svc, 'mcp.remove', { name: 'nope' });
    expect(r).toMatchObject({ ok: false, error: { code: 'not_found' } });
    if (!r.ok) expect(r.error.message).toBe('no MCP server nope in this workspace; its servers: other');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a server a sandbox uses through an inline table is refused, the file unchanged', async () => {
    await saveOther();
    writeFileSync(
      file,
      readFileSync(file, 'utf8') + '\n[sandboxes.inline]\ndescription = ""\nmcp = { other = {} }\n',
    );
    const before = readFileSync(file, 'utf8');
    const r = await dispatch(svc, 'mcp.remove', { name: 'other' });
    expect(r).toMatchObject({ ok: false, error: { code: 'refused' } });
    if (!r.ok) {
      expect(r.error.message).toContain(file);
      expect(r.error.message).toMatch(/nothing was changed: .*by hand$/);
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(svc.config.mcp_servers['other']).toBeDefined();
  });
});

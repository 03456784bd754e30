/** `[mcp_servers.NAME]` and `[sandboxes.S.mcp.NAME]` in the config, and saving a server from a front end. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src-main/app/config.ts';
import { saveMcpServer } from '../../../src-main/app/mcp.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeWorkspace));

describe('MCP server config', () => {
  it('parses stdio and HTTP servers with defaults, and sandbox selections', () => {
    const c = parseConfig({
      mcp_servers: {
        fs: { command: 'npx', args: ['-y', 'x'], env: { TOKEN: 'env:GH_TOKEN', MODE: 'ro' } },
        remote: { url: 'https://example.com/mcp', headers: { Authorization: 'env:REMOTE_AUTH' } },
      },
      sandboxes: { s: { mcp: { fs: { tools: ['read'], aliases: { r: 'read' }, grade: { w: 1, d: 0 } } } } },
    });
    expect(c.mcp_servers['fs']?.startup_timeout_ms).toBeUndefined(); // the start's limit is timeout_ms
    expect(c.mcp_servers['fs']).toMatchObject({
      timeout_ms: 30_000,
      headers: {},
      env: { TOKEN: 'env:GH_TOKEN' },
    });
    expect(c.mcp_servers['remote']).toMatchObject({ args: [], url: 'https://example.com/mcp' });
    expect(c.sandboxes['s']?.mcp['fs']).toMatchObject({
      tools: ['read'],
      aliases: { r: 'read' },
      grades: {},
    });
  });

  it('refuses bad declarations with the path and the reason', () => {
    expect(() => parseConfig({ mcp_servers: { x: {} } })).toThrow(
      /mcp_servers\.x: an MCP server needs either command/,
    );
    expect(() => parseConfig({ mcp_servers: { x: { url: 'https://a', command: 'b' } } })).toThrow(/not both/);
    expect(() => parseConfig({ mcp_servers: { x: { url: 'https://a', headers: { A: 'secret' } } } })).toThrow(
      /headers\.A: use "env:VARIABLE"/,
    );
    expect(() => parseConfig({ sandboxes: { s: { mcp: { ghost: {} } } } })).toThrow(
      /sandboxes\.s\.mcp\.ghost: no \[mcp_servers\.ghost\] is declared/,
    );
  });

  it('saving a server keeps the file’s comments, declares an MCP-only sandbox, and applies without a restart', async () => {
    const ws = tempWorkspace();
    dirs.push(ws);
    const svc = ToolsmithService.open(ws);
    const view = await saveMcpServer(
      svc,
      'memory',
      {
        command: 'node',
        args: ['server.js', 'a b'],
        env: { MEMORY_FILE_PATH: '/tmp/m.jsonl', KEY: 'env:KEY' },
      },
      'notes',
    );
    expect(view).toMatchObject({ name: 'memory', transport: 'stdio', state: 'idle', sandboxes: ['notes'] });
    const text = readFileSync(join(ws, '.toolsmith/config.toml'), 'utf8');
    expect(text).toContain('# Toolsmith workspace configuration');
    expect(text).toContain(
      '[mcp_servers.memory]\ncommand = "node"\nargs = ["server.js", "a b"]\nenv = { MEMORY_FILE_PATH = "/tmp/m.jsonl", KEY = "env:KEY" }\ntimeout_ms = 30000\n',
    );
    expect(text).toContain('[sandboxes.notes.mcp.memory]');
    expect(svc.catalog.sandboxes().map((s) => s.name)).toContain('notes');
    expect(svc.catalog.registry('notes').tools).toEqual([]);
    // Editing replaces the table (no duplicate), and the reopened workspace reads the same.
    const edited = await saveMcpServer(
      svc,
      'memory',
      { command: 'node', args: ['other.js'], timeout_ms: 5000, startup_timeout_ms: 60_000 },
      'notes',
    );
    expect(edited.def).toMatchObject({ timeout_ms: 5000, startup_timeout_ms: 60_000 });
    const again = readFileSync(join(ws, '.toolsmith/config.toml'), 'utf8');
    expect(again).toContain('timeout_ms = 5000\nstartup_timeout_ms = 60000\n');
    expect(again.match(/\[mcp_servers\.memory\]/g)).toHaveLength(1);
    expect(again.match(/\[sandboxes\.notes\.mcp\.memory\]/g)).toHaveLength(1);
    const reopened = ToolsmithService.open(ws);
    expect(reopened.config.mcp_servers['memory']).toMatchObject({
      args: ['other.js'],
      timeout_ms: 5000,
      startup_timeout_ms: 60_000,
    });
    await expect(saveMcpServer(svc, 'bad', { url: 'not a url' })).rejects.toThrow(/url/);
    await svc.close();
    await reopened.close();
  });
});

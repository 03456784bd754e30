/**
 * The tool catalog is a feature service built from its narrow deps alone (workspace files, the running
 * config, the MCP connections): no service facade. It reads the config at each use, so a reloaded
 * config applies at once.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolCatalog } from '../../../src-main/app/catalog.ts';
import { parseConfig } from '../../../src-main/app/config.ts';
import type { Config } from '../../../src-main/app/config.ts';
import { parseTomlFile, WorkspaceFiles } from '../../../src-main/infra/workspace/files.ts';
import { join } from 'node:path';
import { McpManager } from '../../../src-main/infra/mcp/manager.ts';
import { mcpServerSchema } from '../../../src-main/app/config.ts';
import { nodeBin } from '../../support/toolsmith-process.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let files: WorkspaceFiles;
let config: Config;
let catalog: ToolCatalog;

const load = (text: string): Config =>
  parseConfig(parseTomlFile(files.configFile, text), files.configFile, text);

beforeEach(() => {
  ws = tempWorkspace();
  files = new WorkspaceFiles(ws);
  config = load(readFileSync(files.configFile, 'utf8'));
  catalog = new ToolCatalog({
    files,
    get config() {
      return config;
    },
    mcp: () => {
      throw new Error('the sample workspace uses no MCP server');
    },
  });
});
afterEach(() => removeWorkspace(ws));

describe('ToolCatalog over its narrow deps', () => {
  it('lists sandboxes, resolves kits and builds a script context with the kit aliases', () => {
    expect(catalog.sandboxes().map((s) => s.name)).toEqual(files.sandboxNames());
    expect(catalog.kits().find((k) => k.name === 'orders')?.error).toBeUndefined();
    const ctx = catalog.scriptContext('ecommerce', 'orders', 'python');
    expect(ctx.toolMap).toMatchObject({ orders: 'get_orders', user: 'get_user', product: 'get_product' });
    expect(() => catalog.scriptContext('support', 'orders', 'python')).toThrow(
      /belongs to sandbox ecommerce/,
    );
  });

  it('re-extracts a sandbox tools.py once it is invalidated', () => {
    expect(catalog.registry('ecommerce').get('refund_order')).toBeUndefined();
    const file = files.toolsFile('ecommerce');
    writeFileSync(
      file,
      readFileSync(file, 'utf8') +
        '\n\n@tool(grade=(1, 1))\ndef refund_order(order_id: str) -> ToolResponse:\n    """Refunds an order."""\n    return ToolResponse(success=True, data=order_id)\n',
    );
    catalog.invalidateRegistry('ecommerce');
    expect(catalog.registry('ecommerce').get('refund_order')?.name).toBe('refund_order');
  });

  it('reads the running config at each use: a lower maximum grade refuses at once', () => {
    expect(catalog.callableTool('ecommerce', 'get_orders').name).toBe('get_orders');
    config = load(
      readFileSync(files.configFile, 'utf8').replace(/max_grade = \{[^}]*\}/, 'max_grade = { w = 0, d = 0 }'),
    );
    expect(() => catalog.callableTool('ecommerce', 'get_orders')).toThrow(/grade/);
    expect(catalog.excludedTools('ecommerce', [])['get_orders']).toMatch(/grade/);
  });

  it('a sandbox declared in config.toml whose tools.py is gone is named as such, not as no sandbox', () => {
    const file = files.toolsFile('ecommerce');
    renameSync(file, `${file}.moved`);
    const err = (() => {
      try {
        catalog.registry('ecommerce');
      } catch (e) {
        return e as Error & { code?: string };
      }
      return undefined;
    })();
    expect(err?.code).toBe('not_found');
    expect(err?.message).toContain(`sandbox ecommerce is declared in ${files.configFile}`);
    expect(err?.message).toContain(`${file} does not exist`);
    // A name neither declared nor on disk is still an unknown sandbox, with the ones there are.
    expect(() => catalog.registry('nosuch')).toThrow(/no sandbox nosuch in .*; available: support/);
  });
});

describe('a tool called while an MCP server of its sandbox is down', () => {
  it('a server that went away after listing its tools: they are listed, not said to be missing', async () => {
    const text = `${readFileSync(files.configFile, 'utf8')}\n[mcp_servers.raw]\ncommand = "node"\n\n[sandboxes.ecommerce.mcp.raw]\n`;
    config = load(text);
    const m = new McpManager({
      raw: mcpServerSchema.parse({
        command: nodeBin,
        args: [join(repoRoot, 'test/fixtures/mcp/raw-server.mjs'), '--exit-tool'],
        timeout_ms: 30_000,
      }),
    });
    try {
      const mcpCatalog = new ToolCatalog({ files, config, mcp: () => m });
      await m.listTools('raw');
      await m.callTool('raw', 'exit', {}).catch(() => undefined);
      expect(m.status('raw').state).toBe('error');
      // Its tools are listed (from its last listing) and its next call starts it again: not said to be
      // missing (before: "... are missing: the server's process exited with code 3 (...)", no server named,
      // beside its tools in the list).
      let message = '';
      try {
        mcpCatalog.callableTool('ecommerce', 'nope');
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toBe(
        'no tool nope in sandbox ecommerce; available: get_orders, get_user, check_inventory, get_product, storm, lists, exit_',
      );
    } finally {
      await m.close();
    }
  }, 60_000);
});

/**
 * An upstream MCP server whose tools are named like names scripts already have (emit_result,
 * search_tools, emitResult, credential, len, constructor, __proto__, toString): each is renamed with a
 * trailing `_` (a double-underscore name loses its underscores first), so the helpers stay the
 * framework's and every server tool is callable, from Python and from JavaScript. A real server (the
 * official SDK over stdio), the real service and sandbox workers.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let svc: ToolsmithService;
beforeAll(() => {
  ws = tempWorkspace('toolsmith-helper-names-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `
[mcp_servers.named]
command = ${JSON.stringify(nodeBin)}
args = [${JSON.stringify(join(repoRoot, 'test/fixtures/mcp/helper-names-server.mjs'))}]
timeout_ms = 20000

[sandboxes.named]
description = "A server whose tools are named like script helpers."

[sandboxes.named.mcp.named]
`,
  );
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
});
afterAll(async () => {
  await svc?.close();
  if (ws) removeWorkspace(ws);
});

describe('upstream tools named like script helpers', () => {
  it('are renamed with a trailing _, and the manual says which server tool each calls', async () => {
    await svc.prepareMcp('named');
    const tools = svc.catalog.scriptTools('named').tools;
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'constructor_',
        'credential_',
        'emitResult_',
        'emit_result_',
        'len_',
        'proto_',
        'search_tools_',
        'toString_',
      ].sort(),
    );
    expect(tools.find((t) => t.name === 'proto_')?.description).toMatch(/the server's tool `__proto__`/);
  }, 60_000);

  it('Python: emit_result stays the helper (the answer is the run result), the server tools are called by their new names', async () => {
    const body = [
      'a = emit_result_(value="x")',
      'b = search_tools_(value="y")',
      'c = len_(value="z")',
      'found = search_tools("server")',
      'emit_result({"a": a.data, "b": b.data, "c": c.data, "n": len([1, 2]), "found": len(found) > 0})',
      '',
    ].join('\n');
    const r = await svc.execution.executeScript({
      sandbox: 'named',
      language: 'python',
      body,
      timeoutMs: 60_000,
    });
    expect(r, JSON.stringify(r.error)).toMatchObject({ success: true });
    expect(r.data).toMatchObject({
      a: { tool: 'emit_result', args: { value: 'x' } },
      b: { tool: 'search_tools', args: { value: 'y' } },
      c: { tool: 'len', args: { value: 'z' } },
      n: 2,
      found: true,
    });
    expect(r.toolCalls.map((t) => t.name)).toEqual(['emit_result_', 'search_tools_', 'len_', 'search_tools']);
  }, 120_000);

  it('JavaScript: constructor, __proto__ and toString are callable tools; emitResult stays the helper', async () => {
    const body = [
      'const a = await constructor_({ value: "1" });',
      'const b = await proto_({ value: "2" });',
      'const c = await toString_({ value: "3" });',
      'const d = await emitResult_({ value: "4" });',
      'emitResult([a.data.tool, b.data.tool, c.data.tool, d.data.tool, typeof constructor, String({})]);',
      '',
    ].join('\n');
    const r = await svc.execution.executeScript({
      sandbox: 'named',
      language: 'js',
      body,
      timeoutMs: 60_000,
    });
    expect(r, JSON.stringify(r.error)).toMatchObject({ success: true });
    expect(r.data).toEqual([
      'constructor',
      '__proto__',
      'toString',
      'emitResult',
      'function',
      '[object Object]',
    ]);
  }, 120_000);
});

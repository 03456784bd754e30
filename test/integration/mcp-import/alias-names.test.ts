/**
 * An MCP selection's `aliases` may not take a name scripts already have (a builtin such as `len`, a
 * helper such as `emit_result`) nor a keyword: such an alias replaced that name in every script of the
 * sandbox (an `emit_result` alias sent the script's answer to the server and left the run without a
 * result). The same rule as kit aliases and skill names (core/tools/mcp.ts `scriptNameClash`): the alias
 * is refused with its name and why, the tool keeps its own name, and the refusal is a problem of the
 * sandbox in the CLI (`tools`, the `sandboxes` count) and in the workbench (tools.list, sandboxes.list).
 * A real server (server-memory over stdio), the real service, CLI and sandbox worker.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { Response } from '../../../src-main/contract/api.ts';
import { nodeBin, runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let memory: string;
let svc: ToolsmithService;

const cli = (args: string[]) => runToolsmith(ws, args, { TOOLSMITH_CACHE_DIR: join(ws, '.cache') });

beforeAll(() => {
  ws = tempWorkspace('toolsmith-alias-names-');
  memory = mkdtempSync(join(tmpdir(), 'toolsmith-alias-memory-'));
  const server = join(repoRoot, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `
[mcp_servers.memory]
command = ${JSON.stringify(nodeBin)}
args = [${JSON.stringify(server)}]
env = { MEMORY_FILE_PATH = ${JSON.stringify(join(memory, 'memory.jsonl'))} }
timeout_ms = 20000
startup_timeout_ms = 60000

[sandboxes.mem]
description = "A knowledge graph whose aliases take script names."

[sandboxes.mem.mcp.memory]
tools = ["read_graph", "search_nodes", "open_nodes"]
aliases = { len = "read_graph", emit_result = "search_nodes", class = "open_nodes", graph = "read_graph" }
`,
  );
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
});
afterAll(async () => {
  await svc?.close();
  if (ws) removeWorkspace(ws);
  if (memory) rmSync(memory, { recursive: true, force: true });
});

const REFUSED = [
  /alias len \(for memory's tool read_graph\) is a name scripts already have \(a builtin, module, helper or global\): it would replace it in every script of the sandbox; the alias is not used/,
  /alias emit_result \(for memory's tool search_nodes\) is a name scripts already have .*: it would replace it in every script of the sandbox/,
  /alias class \(for memory's tool open_nodes\) is a keyword of Python or JavaScript: scripts could not call it/,
];

describe('MCP aliases that take a name scripts already have', () => {
  it('are refused, named with why, in the workbench: the tools the sandbox offers, its problems and its count', async () => {
    expect(await svc.prepareMcp('mem')).toEqual([]);
    const names = svc.catalog
      .scriptTools('mem')
      .tools.map((t) => t.name)
      .sort();
    // The refused aliases are not offered; each tool keeps its own name; the good alias stays.
    expect(names).toEqual(['graph', 'open_nodes', 'read_graph', 'search_nodes']);

    const listed = await dispatch(svc, 'tools.list', { sandbox: 'mem' });
    if (!listed.ok) throw new Error(listed.error.message);
    const problems = (listed.value as Response<'tools.list'>).mcpProblems ?? [];
    expect(problems).toHaveLength(3);
    for (const re of REFUSED)
      expect(
        problems.some((p) => re.test(p)),
        `${re}\n${problems.join('\n')}`,
      ).toBe(true);

    const sandboxes = await dispatch(svc, 'sandboxes.list', {});
    if (!sandboxes.ok) throw new Error(sandboxes.error.message);
    const mem = (sandboxes.value as Response<'sandboxes.list'>).find((s) => s.name === 'mem');
    expect(mem).toMatchObject({ tools: 4, fromMcp: 4, problems: 3 });
  }, 120_000);

  it('a script keeps its emit_result and len (the aliases did not replace them)', async () => {
    const r = await svc.execution.executeScript({
      sandbox: 'mem',
      language: 'python',
      body: 'g = graph()\nemit_result({"n": len([1, 2, 3]), "graph": g.success})\n',
      timeoutMs: 60_000,
    });
    expect(r, JSON.stringify(r.error)).toMatchObject({ success: true, data: { n: 3, graph: true } });
    expect(r.toolCalls.map((t) => t.name)).toEqual(['graph']);
  }, 120_000);

  it('the CLI names each refused alias with why (tools) and counts them (sandboxes)', async () => {
    const tools = await cli(['tools', '--sandbox', 'mem', '--format', 'json']);
    expect(tools.code, tools.err).toBe(0);
    for (const re of REFUSED) expect(tools.err).toMatch(re);
    expect((JSON.parse(tools.out) as { name: string }[]).map((t) => t.name).sort()).toEqual([
      'graph',
      'open_nodes',
      'read_graph',
      'search_nodes',
    ]);
    const list = await cli(['sandboxes']);
    expect(list.code, list.err).toBe(0);
    expect(list.out).toMatch(/mem\s+4 tools \(4 from MCP: memory\) \(3 problems\)/);
  }, 120_000);
});

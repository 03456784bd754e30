/**
 * A temp workspace whose config declares real MCP servers from npm (server-everything, server-memory,
 * server-filesystem on a temp folder) and the faulty test server, started over stdio with the repo's
 * Node, plus an MCP-only sandbox `kg` that uses them.
 */
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeBin } from './toolsmith-process.ts';
import { repoRoot, tempWorkspace } from './workspace.ts';

export { nodeBin };
const pkg = (name: string) => join(repoRoot, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');
export const faultyServer = join(repoRoot, 'test/fixtures/mcp/faulty-server.mjs');

export interface McpWorkspace {
  ws: string;
  /** The folder server-filesystem may read and write. */
  files: string;
  memoryFile: string;
}

const q = (s: string) => JSON.stringify(s);

/**
 * Every server's time to start (process, initialize, first list), apart from its per-call limit: a Node
 * server took 5 to 7 s to answer initialize at load 11. It only ends a server that never starts
 * (`silent` keeps its start bounded by its 1.5 s `timeout_ms`).
 */
const STARTUP_MS = 60_000;

export function mcpWorkspace(opts: { timeoutMs?: number; sandboxes?: boolean } = {}): McpWorkspace {
  const ws = tempWorkspace('toolsmith-mcp-ws-');
  const files = mkdtempSync(join(tmpdir(), 'toolsmith-mcp-files-'));
  mkdirSync(join(files, 'notes'));
  writeFileSync(join(files, 'notes', 'alice.txt'), 'Alice works on the compiler.\nShe likes tea.\n');
  writeFileSync(join(files, 'notes', 'bob.txt'), 'Bob runs the build farm.\n');
  const memoryFile = join(files, '..', `${files.split('/').pop()}-memory.jsonl`);
  const t = opts.timeoutMs ?? 20_000;
  let toml = `
[mcp_servers.memory]
command = ${q(nodeBin)}
args = [${q(pkg('server-memory'))}]
env = { MEMORY_FILE_PATH = ${q(memoryFile)} }
timeout_ms = ${t}
startup_timeout_ms = ${STARTUP_MS}
description = "A knowledge graph (entities, relations, observations)"

[mcp_servers.files]
command = ${q(nodeBin)}
args = [${q(pkg('server-filesystem'))}, ${q(files)}]
timeout_ms = ${t}
startup_timeout_ms = ${STARTUP_MS}

[mcp_servers.everything]
command = ${q(nodeBin)}
args = [${q(pkg('server-everything'))}, "stdio"]
timeout_ms = ${t}
startup_timeout_ms = ${STARTUP_MS}

[mcp_servers.faulty]
command = ${q(nodeBin)}
args = [${q(faultyServer)}]
timeout_ms = 1500
startup_timeout_ms = ${STARTUP_MS}

[mcp_servers.silent]
command = ${q(nodeBin)}
args = [${q(faultyServer)}, "--silent"]
timeout_ms = 1500
`;
  if (opts.sandboxes !== false)
    toml += `
[sandboxes.kg]
description = "Notes on disk and a knowledge graph, over MCP servers only (no tools.py)."

[sandboxes.kg.mcp.memory]
tools = ["create_entities", "create_relations", "add_observations", "read_graph", "search_nodes", "open_nodes"]

[sandboxes.kg.mcp.files]
tools = ["list_directory", "read_text_file", "write_file", "get_file_info"]
grades = { write_file = { w = 1, d = 1 } }

[sandboxes.kg.mcp.everything]
tools = ["echo", "get-structured-content"]
aliases = { add = "get-sum" }

[sandboxes.flaky]
description = "The faulty test server."

[sandboxes.flaky.mcp.faulty]

[sandboxes.mute]
description = "A server that never answers."

[sandboxes.mute.mcp.silent]
`;
  appendFileSync(join(ws, '.toolsmith/config.toml'), toml);
  return { ws, files, memoryFile };
}

/**
 * `[mcp_servers.counter]`: the faulty test server's `count` over stdio (`args` replaces its arguments), a
 * TOML table to append to a workspace's config.
 */
export function counterServerToml(args: string[] = [faultyServer]): string {
  const q = (s: string) => JSON.stringify(s);
  return `
[mcp_servers.counter]
command = ${q(nodeBin)}
args = [${args.map(q).join(', ')}]
timeout_ms = 20000
startup_timeout_ms = 60000
`;
}

/**
 * Two sandboxes whose tools come only from upstream MCP servers, appended to `ws`'s config: `counter`
 * (the faulty test server's `count`, over stdio; `args` replaces its arguments, e.g. to start it late)
 * and `down` (a server whose command does not exist). The suites tests of both fronts use them.
 */
export function addMcpSandboxes(ws: string, args: string[] = [faultyServer]): void {
  const q = (s: string) => JSON.stringify(s);
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `${counterServerToml(args)}
[mcp_servers.gone]
command = ${q(MISSING_MCP_COMMAND)}
timeout_ms = 5000

[sandboxes.counter]
description = "The faulty test server's count tool, over MCP only."

[sandboxes.counter.mcp.counter]
tools = ["count"]

[sandboxes.down]
description = "A server that cannot start."

[sandboxes.down.mcp.gone]
`,
  );
}

/** The command of addMcpSandboxes' `gone` server (no such file). */
export const MISSING_MCP_COMMAND = '/nonexistent/toolsmith-no-such-mcp-server';

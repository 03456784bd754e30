/**
 * Every tool the MCP server registers is named where a person looks for it: the README's `mcp` verb
 * row and the Tools table of docs/mcp-server.md. The names come from the server's source (each
 * `registerTool('name', ...)` under src-main/mcp/), so a tool added there fails here until the
 * documentation names it, and the help's list (`MCP_TOOL_NAMES`) is held to the same set.
 */
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES } from '../../../src-main/mcp/mcp-tool-names.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mcpDir = join(root, 'src-main/mcp');

/** The first argument of every `registerTool(` call with a string literal in the MCP server's sources. */
function registeredTools(): string[] {
  const names: string[] = [];
  for (const file of readdirSync(mcpDir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(mcpDir, file), 'utf8');
    for (const m of text.matchAll(/registerTool\(\s*(['"`])([^'"`]+)\1/g)) names.push(m[2]!);
  }
  return names.sort();
}

/** The line of the README's command table that documents the `mcp` verb. */
function readmeMcpRow(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const row = readme.split('\n').find((l) => l.startsWith('| `mcp '));
  if (!row) throw new Error('README.md has no command-table row for `mcp`');
  return row;
}

/** The tool names in the first column of docs/mcp-server.md's "## Tools" table. */
function docsToolTable(): string[] {
  const doc = readFileSync(join(root, 'docs/mcp-server.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Tools\n'));
  if (!section) throw new Error('docs/mcp-server.md has no "## Tools" section');
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!).sort();
}

describe("the MCP server's tool list in the documentation", () => {
  const tools = registeredTools();

  it('reads the tools from the server source', () => {
    // Every tool the server offers; a change in how tools are registered must not empty this list.
    expect(tools).toContain('code');
    expect(tools).toContain('save_skill');
    expect(tools).toContain('run_suite');
    expect(new Set(tools).size).toBe(tools.length);
  });

  it('the help list names exactly the registered tools', () => {
    expect([...MCP_TOOL_NAMES].sort()).toEqual(tools);
  });

  it("README's mcp row names every registered tool", () => {
    const row = readmeMcpRow();
    const missing = tools.filter((t) => !row.includes(`\`${t}\``));
    expect(missing).toEqual([]);
  });

  it("docs/mcp-server.md's Tools table has a row for each registered tool and no other", () => {
    expect(docsToolTable()).toEqual(tools);
  });
});

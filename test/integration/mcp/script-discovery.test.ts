/**
 * Run-time tool discovery from scripts: a Python and a JS script sent to the `code` tool (real
 * containers, real upstream MCP server) look their sandbox's tools up with `search_tools` /
 * `describe_tool` (`searchTools` / `describeTool` in JS), answered by the host over the tool_call
 * protocol; a tool outside the sandbox is not found. The index threshold comes from config.toml's
 * `[mcp] full_manual_max`, which `$TOOLSMITH_MCP_FULL_MANUAL_MAX` overrides.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { mcpStdio } from '../../support/mcp-stdio.ts';

const upstream = join(repoRoot, 'test/integration/mcp/support/upstream-server.mjs');
let ws: string;
const clients: Client[] = [];

async function connect(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'script-discovery-test', version: '1.0.0' });
  const base = { ...process.env } as Record<string, string>;
  delete base['TOOLSMITH_MCP_FULL_MANUAL_MAX'];
  await client.connect(mcpStdio(ws, { ...base, TOOLSMITH_MCP_UPSTREAM_WAIT_MS: '30000', ...env }));
  clients.push(client);
  return client;
}

beforeAll(() => {
  ws = tempWorkspace('toolsmith-script-discovery-');
  // Sixty-one tools, under a configured limit of 100: the full manual unless the variable says less.
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `
[mcp]
full_manual_max = 100

[mcp_servers.big]
command = ${JSON.stringify(nodeBin)}
args = [${JSON.stringify(upstream)}, "--tools", "60"]
timeout_ms = 30000

[sandboxes.big]
description = "Sixty tools."
[sandboxes.big.mcp.big]
`,
  );
});
afterAll(async () => {
  for (const c of clients) await c.close();
  removeWorkspace(ws);
});

type Answer = { structuredContent?: Record<string, unknown>; content: { text: string }[] };
const manualOf = async (c: Client) =>
  (await c.listTools()).tools.find((t) => t.name === 'code')?.description ?? '';

describe('tool discovery from scripts', () => {
  it('keeps the full manual under the configured limit; the variable overrides it', async () => {
    const full = await manualOf(await connect({}));
    expect(full).toMatch(/<tool name="tool_42"/);
    expect(full).not.toContain('<tools-index');
    expect(full).not.toContain('search_tools("words")');
    const indexed = await manualOf(await connect({ TOOLSMITH_MCP_FULL_MANUAL_MAX: '30' }));
    expect(indexed).toContain('<tools-index count="61">');
    // Only with an index do the rules name the run-time lookups.
    expect(indexed).toContain('search_tools("words")');
    expect(indexed).toContain('await describeTool("name")');
  }, 120_000);

  it('answers search_tools and describe_tool from a Python and a JS script', async () => {
    const client = clients[1] ?? (await connect({ TOOLSMITH_MCP_FULL_MANUAL_MAX: '30' }));
    const scripts = {
      python: [
        'found = search_tools("number 42")',
        'manual = describe_tool(found[0]["name"])',
        'missing = "no error"',
        'try:',
        '    describe_tool("get_user")',
        'except LookupError as e:',
        '    missing = str(e)',
        'emit_result({"found": found, "manual": manual, "missing": missing})',
      ].join('\n'),
      js: [
        'const found = await searchTools("number 42");',
        'const manual = await describeTool(found[0].name);',
        "let missing = 'no error';",
        'try {',
        "  await describeTool('get_user');",
        '} catch (e) {',
        '  missing = e.message;',
        '}',
        'emitResult({ found, manual, missing });',
      ].join('\n'),
    };
    for (const [language, code] of Object.entries(scripts)) {
      const answer = (await client.callTool({
        name: 'code',
        arguments: { code, language, sandbox: 'big' },
      })) as Answer;
      const s = answer.structuredContent as { status: string; result: Record<string, unknown> };
      expect(s?.status, `${language}: ${answer.content[0]?.text}`).toBe('succeeded');
      // Each language's lookups write the tool as its scripts call it (a JS script read the Python form).
      expect(s.result['found']).toEqual([
        {
          name: 'tool_42',
          summary:
            language === 'python'
              ? 'tool_42(text: str = None): Echo number 42: answers its arguments.'
              : expect.stringMatching(
                  /^tool_42\(\{ text\?: string( \| null)?( = null)? \}\): Echo number 42: answers its arguments\.$/,
                ),
        },
      ]);
      expect(s.result['manual']).toMatch(/<tool name="tool_42"/);
      // get_user is a tool of another sandbox (the sample one): not this script's to discover.
      expect(s.result['missing']).toMatch(/no tool "get_user" in sandbox big/);
    }
  }, 240_000);

  it("with a kit, finds and describes the kit's tools under their aliases, and nothing else", async () => {
    const client = clients[0] ?? (await connect({}));
    const code = [
      'names = [t["name"] for t in search_tools("user")]',
      'manual = describe_tool("user")',
      'outside = "found"',
      'try:',
      '    describe_tool("check_inventory")',
      'except LookupError as e:',
      '    outside = str(e)',
      'emit_result({"names": names, "manual": manual, "outside": outside})',
    ].join('\n');
    const answer = (await client.callTool({ name: 'code', arguments: { code, kit: 'orders' } })) as Answer;
    const s = answer.structuredContent as { status: string; result: Record<string, unknown> };
    expect(s?.status, answer.content[0]?.text).toBe('succeeded');
    expect(s.result['names']).toContain('user');
    expect(s.result['names']).not.toContain('get_user');
    expect(s.result['manual']).toMatch(/<tool name="user"/);
    expect(s.result['outside']).toMatch(/no tool "check_inventory"/);
  }, 120_000);
});

/**
 * Progressive disclosure over MCP: a sandbox with more tools than the limit shows an index in the
 * `code` manual, and the client's model finds and reads tools with `search_tools` and `describe_tool`.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

const upstream = join(repoRoot, 'test/integration/mcp/support/upstream-server.mjs');
let ws: string;
let client: Client;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-disclosure-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `
[mcp_servers.big]
command = ${JSON.stringify(nodeBin)}
args = [${JSON.stringify(upstream)}, "--tools", "60"]
timeout_ms = 30000

[sandboxes.big]
description = "Sixty tools."
[sandboxes.big.mcp.big]
`,
  );
  client = await connectMcp(ws, 'disclosure-test', {
    ...process.env,
    TOOLSMITH_MCP_UPSTREAM_WAIT_MS: '30000',
  });
}, 120_000);
afterAll(async () => {
  await client?.close();
  removeWorkspace(ws);
});

type Answer = { structuredContent?: Record<string, unknown>; isError?: boolean };

describe('progressive disclosure over MCP', () => {
  it('indexes the large sandbox, keeps the full manual for small ones, and serves search and describe', async () => {
    const { tools } = await client.listTools();
    const manual = tools.find((t) => t.name === 'code')?.description ?? '';
    expect(manual).toContain('<tools-index count="61">');
    expect(manual).toMatch(/ {2}tool_42\(text: str = None\): Echo number 42: answers its arguments\./);
    expect(manual).not.toMatch(/<tool name="tool_42"/);
    // The small sample sandbox keeps its full manual.
    expect(manual).toMatch(/<tool name="get_user"/);
    const found = (await client.callTool({
      name: 'search_tools',
      arguments: { query: 'number 42', sandbox: 'big' },
    })) as Answer;
    expect((found.structuredContent?.['tools'] as { name: string }[]).map((t) => t.name)).toEqual([
      'tool_42',
    ]);
    const described = (await client.callTool({
      name: 'describe_tool',
      arguments: { name: 'tool_42', sandbox: 'big' },
    })) as Answer;
    expect(described.structuredContent?.['manual']).toMatch(/<tool name="tool_42"/);
    const missing = (await client.callTool({
      name: 'describe_tool',
      arguments: { name: 'nope', sandbox: 'big' },
    })) as Answer & { content: { text: string }[] };
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toMatch(/no tool nope in sandbox big/);
  }, 90_000);
});

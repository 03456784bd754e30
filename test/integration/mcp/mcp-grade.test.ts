/**
 * Issue 10: without a kit the MCP server keeps to the workspace's max_grade: tools above it are not
 * listed and a script calling one is refused before it runs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

let client: Client;
const ws = tempWorkspace();
const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';

beforeAll(async () => {
  // support's add_note is graded (1, 1); this workspace allows at most (1, 0).
  const cfg = join(ws, '.toolsmith/config.toml');
  writeFileSync(
    cfg,
    readFileSync(cfg, 'utf8').replace(/max_grade = \{[^}]*\}/, 'max_grade = { w = 1, d = 0 }'),
  );
  client = await connectMcp(ws, 'toolsmith-test');
}, 120_000);
afterAll(async () => {
  await client?.close();
  removeWorkspace(ws);
});

describe('toolsmith mcp and max_grade', () => {
  it('list_tools leaves out, and execute_code refuses, a tool above the maximum grade', async () => {
    const tools = JSON.parse(
      textOf(await client.callTool({ name: 'list_tools', arguments: { sandbox: 'support' } })),
    ) as { name: string }[];
    expect(tools.map((t) => t.name)).toEqual(['list_tickets', 'get_ticket', 'search_kb']);
    const r = await client.callTool({
      name: 'execute_code',
      arguments: {
        sandbox: 'support',
        code: 'r = add_note(ticket_id=101, text="hi")\nemit_result(r.success)',
      },
    });
    expect(r.isError).toBe(true);
    expect(JSON.parse(textOf(r))).toMatchObject({ success: false, exitReason: 'rejected' });
  }, 120_000);
});

/**
 * `toolsmith mcp` whose workspace folder is moved away while it runs: the look-ups that read the
 * workspace's files (list_templates, list_tools, kit_info, search_tools, describe_tool) say the
 * workspace is gone and where it went (the head of a save's refusal), as a tool error, instead of
 * answering what the old path holds (nothing). Moved back, they answer again. Over stdio with the SDK
 * client.
 */
import { existsSync, renameSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

let ws: string;
let moved: string;
let client: Client;

const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-mcp-gone-');
  moved = `${ws}-moved`;
  client = await connectMcp(ws, 'workspace-gone', { ...process.env });
});

afterAll(async () => {
  await client?.close();
  if (moved && existsSync(moved) && !existsSync(ws)) renameSync(moved, ws);
  if (ws) removeWorkspace(ws);
});

const LOOKUPS: [tool: string, args: Record<string, unknown>, what: string][] = [
  ['list_templates', {}, 'the templates'],
  ['list_tools', { sandbox: 'ecommerce' }, 'the tools of sandbox ecommerce'],
  ['kit_info', { name: 'orders' }, 'kit orders'],
  ['search_tools', { query: 'orders', sandbox: 'ecommerce' }, 'the tools of sandbox ecommerce'],
  ['describe_tool', { name: 'get_orders', sandbox: 'ecommerce' }, 'the tools of sandbox ecommerce'],
];

describe('the workspace folder moved under toolsmith mcp', () => {
  it('the look-ups say it is gone and where it went; moved back, they answer again', async () => {
    expect(
      (await client.callTool({ name: 'list_tools', arguments: { sandbox: 'ecommerce' } })).isError,
    ).toBeFalsy();
    renameSync(ws, moved);
    for (const [tool, args, what] of LOOKUPS) {
      const r = await client.callTool({ name: tool, arguments: args });
      expect(r.isError, tool).toBe(true);
      const answer = JSON.parse(textOf(r)) as { error: string; code: string };
      expect(answer.code, tool).toBe('infra');
      expect(answer.error, tool).toMatch(
        new RegExp(
          `^the workspace folder ${ws} is gone: it was moved to ${moved} while this process \\(pid \\d+\\) had it open; ${what} cannot be listed from the old path; open the workspace at ${moved} \\(or move it back\\)$`,
        ),
      );
    }
    renameSync(moved, ws);
    const back = await client.callTool({ name: 'kit_info', arguments: { name: 'orders' } });
    expect(back.isError).toBeFalsy();
    expect(textOf(back)).toContain('get_orders');
  });
});

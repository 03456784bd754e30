/**
 * Every tool of Toolsmith's MCP server refuses an argument it does not take, naming it, instead of
 * dropping it: the SDK strips unknown keys of a plain input shape, so a client's typo (`sanbox`,
 * `max_step`) ran with the defaults without a word. Over stdio with the official SDK client: each tool's
 * advertised input schema says `additionalProperties: false`, and a call with a misspelt argument is a
 * tool error naming it, before anything runs (no LLM request, no recorded run, no saved skill).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { scriptedConfig } from '../../support/suite-oracle.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

let llm: LlmServer;
let ws: string;
let client: Client;

const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';

/** Each tool, a call a client could mean (its arguments valid) with one key it does not take. */
const CALLS: [tool: string, unknown: string, args: Record<string, unknown>][] = [
  ['delegate', 'max_step', { task: 'How many orders are there?', mode: 'interactive', max_step: 2 }],
  ['execute_code', 'sanbox', { code: 'emit_result(1)', sanbox: 'support' }],
  ['validate', 'stict', { code: 'emit_result(1)', stict: true }],
  ['list_tools', 'sanbox', { sanbox: 'support' }],
  ['kit_info', 'sandbox', { name: 'orders', sandbox: 'support' }],
  ['list_templates', 'sandbox', { sandbox: 'support' }],
  ['code', 'langauge', { code: 'emit_result(1)', langauge: 'python' }],
  ['search_tools', 'max', { query: 'orders', max: 3 }],
  ['describe_tool', 'sanbox', { name: 'get_orders', sanbox: 'support' }],
  ['run_suite', 'model', { suite: 'ecommerce', model: ['scripted'] }],
  [
    'save_skill',
    'overwrite',
    {
      sandbox: 'ecommerce',
      name: 'order_count',
      source: 'def order_count() -> int:\n    """How many orders."""\n    return len(get_orders().data)\n',
      tests: [{ args: {} }],
      overwrite: true,
    },
  ],
];

function runCount(): number {
  const db = join(ws, '.toolsmith', 'runs.db');
  if (!existsSync(db)) return 0;
  const store = new RunStore(db);
  try {
    return store.list({ count: true }).total ?? 0;
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace('toolsmith-mcp-strict-');
  scriptedConfig(ws, llm.openaiUrl);
  client = await connectMcp(ws, 'strict-arguments', { ...process.env });
});

afterAll(async () => {
  await client?.close();
  await llm?.close();
  if (ws) removeWorkspace(ws);
});

describe('MCP tools refuse arguments they do not take', () => {
  it('every tool the server lists is in this table', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(CALLS.map(([t]) => t).sort());
  });

  it.each(CALLS)('%s advertises additionalProperties: false', async (tool) => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === tool)?.inputSchema['additionalProperties']).toBe(false);
  });

  it.each(CALLS)('%s refuses %s, naming it, and nothing runs', async (tool, key, args) => {
    const runs = runCount();
    const r = await client.callTool({ name: tool, arguments: args });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`Unrecognized key: "${key}"`);
    expect(llm.requests).toHaveLength(0);
    expect(runCount()).toBe(runs);
    const skills = join(ws, 'skills', 'ecommerce');
    expect(existsSync(skills) ? readdirSync(skills) : []).toEqual([]);
  });
});

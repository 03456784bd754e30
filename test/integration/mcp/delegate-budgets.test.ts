/**
 * The MCP `delegate` tool's run budgets, `max_retries` (PLAN) and `max_steps` (INTERACTIVE), over both
 * transports with the official SDK client: the schema a client sees, values the CLI would refuse refused
 * the same way (naming the argument and its range, before any LLM call), and the budgets reaching the
 * run (counted at the scripted LLM server and in the run store).
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { scriptedConfig } from '../../support/suite-oracle.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcpHttp, startMcpHttpProcess } from './support/mcp-http-process.ts';
import type { McpHttpProcess } from './support/mcp-http-process.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

let llm: LlmServer;
let ws: string;
let http: McpHttpProcess;
const clients: Record<'stdio' | 'http', Client> = {} as Record<'stdio' | 'http', Client>;

const fence = (code: string) => '```python\n' + code + '\n```';
const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';

function storedStart(runId: string) {
  const store = new RunStore(join(ws, '.toolsmith', 'runs.db'));
  try {
    return store.get(runId)?.started;
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace('toolsmith-mcp-budgets-');
  scriptedConfig(ws, llm.openaiUrl);
  clients.stdio = await connectMcp(ws, 'budgets-stdio', { ...process.env });
  http = await startMcpHttpProcess(ws);
  clients.http = await connectMcpHttp(http.url, http.token ?? '', 'budgets-http');
});

afterAll(async () => {
  await clients.stdio?.close();
  await clients.http?.close();
  await http?.stop();
  await llm?.close();
  if (ws) removeWorkspace(ws);
});

beforeEach(() => llm.reset());

describe.each(['stdio', 'http'] as const)('delegate budgets over %s', (transport) => {
  const client = () => clients[transport];

  it('declares max_retries and max_steps with the CLI bounds', async () => {
    const { tools } = await client().listTools();
    const schema = tools.find((t) => t.name === 'delegate')?.inputSchema;
    expect(schema?.['additionalProperties']).toBe(false);
    const props = schema?.properties ?? {};
    expect(props['max_retries']).toMatchObject({ type: 'integer', minimum: 0, maximum: 20 });
    expect(props['max_steps']).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
    expect(JSON.stringify(props['max_steps'])).toContain('INTERACTIVE');
    expect(JSON.stringify(props['max_retries'])).toContain('PLAN');
  });

  it.each([
    ['max_steps', 0, 'max_steps must be an integer from 1 to 50, got 0'],
    ['max_steps', 51, 'max_steps must be an integer from 1 to 50, got 51'],
    ['max_steps', 2.5, 'max_steps must be an integer from 1 to 50, got 2.5'],
    ['max_steps', '3', 'max_steps must be an integer from 1 to 50, got "3"'],
    ['max_retries', -1, 'max_retries must be an integer from 0 to 20, got -1'],
    ['max_retries', 21, 'max_retries must be an integer from 0 to 20, got 21'],
  ])('refuses %s = %j naming the argument and its range, before any LLM call', async (arg, value, msg) => {
    const r = await client().callTool({
      name: 'delegate',
      arguments: { task: 'How many orders are there?', mode: 'interactive', [arg]: value },
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(msg);
    expect(llm.requests).toHaveLength(0);
  });

  it('refuses an argument it does not take (a misspelt budget) instead of running with the defaults', async () => {
    const r = await client().callTool({
      name: 'delegate',
      arguments: { task: 'How many orders are there?', mode: 'interactive', max_step: 2 },
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Unrecognized key: "max_step"/);
    expect(llm.requests).toHaveLength(0);
  });

  it('max_retries bounds a PLAN run: one retry after the first attempt, then it fails', async () => {
    llm.fallback = { text: fence('r = get_orders()\nemit_result(r.data[0]["no_such_field"])') };
    const r = await client().callTool({
      name: 'delegate',
      arguments: { task: 'Which field of the first order is missing?', max_retries: 1 },
    });
    const outcome = JSON.parse(textOf(r)) as { runId: string; status: string; error: string };
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toContain('no_such_field');
    expect(llm.requests).toHaveLength(2);
    expect(storedStart(outcome.runId)).toMatchObject({ mode: 'plan', maxRetries: 1 });
  });

  it('max_steps bounds an INTERACTIVE run; its last step is told it is the last', async () => {
    llm.push(
      fence('emit_intermediate(len(get_orders().data))'),
      fence('emit_intermediate([o["id"] for o in get_orders().data][:2])'),
    );
    const r = await client().callTool({
      name: 'delegate',
      arguments: { task: 'How many orders are there?', mode: 'interactive', max_steps: 2 },
    });
    const outcome = JSON.parse(textOf(r)) as { runId: string; status: string; error: string };
    expect(outcome).toMatchObject({ status: 'failed' });
    expect(outcome.error).toMatch(/^no result after 2 steps \(max_steps\)/);
    expect(llm.requests).toHaveLength(2);
    const last = JSON.stringify(llm.requests[1]?.body);
    expect(last).toContain('Step 2 of at most 2.');
    expect(last).toContain('This is the last step');
    expect(JSON.stringify(llm.requests[0]?.body)).not.toContain('This is the last step');
    expect(storedStart(outcome.runId)).toMatchObject({ mode: 'interactive', maxSteps: 2 });
  });
});

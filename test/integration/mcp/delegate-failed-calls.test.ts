/**
 * The MCP `delegate` tool names the tool calls that failed in its last script (`failedToolCalls`: name,
 * args and the tool's own message), as `execute_code` does: a failed run's `error` is the script's
 * traceback ("'NoneType' object is not subscriptable"), which does not say what the tool said.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { fence, scriptedConfig } from '../../support/suite-oracle.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

let llm: LlmServer;
let ws: string;
let client: Client;

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace('toolsmith-mcp-delegate-failed-');
  scriptedConfig(ws, llm.openaiUrl);
  client = await connectMcp(ws, 'delegate-failed', { ...process.env });
}, 120_000);
afterAll(async () => {
  await client?.close();
  await llm?.close();
  if (ws) removeWorkspace(ws);
});
beforeEach(() => llm.reset());

type Answer = { structuredContent?: Record<string, unknown>; isError?: boolean };

describe('delegate: the failed tool calls of its last script', () => {
  it('a run that failed on a tool call answers failedToolCalls with the tool’s message', async () => {
    llm.fallback = { text: fence('r = get_user(user_id="zz")\nemit_result(r.data["name"])') };
    const r = (await client.callTool({
      name: 'delegate',
      arguments: { task: 'What is the name of user zz?', sandbox: 'ecommerce', max_retries: 0 },
    })) as Answer;
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ status: 'failed', runId: expect.any(String) });
    expect(r.structuredContent?.['failedToolCalls']).toEqual([
      { name: 'get_user', args: { user_id: 'zz' }, message: expect.stringContaining("no user with id 'zz'") },
    ]);
  }, 180_000);

  it('a run whose calls all succeeded has no failedToolCalls', async () => {
    llm.fallback = { text: fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])') };
    const r = (await client.callTool({
      name: 'delegate',
      arguments: { task: 'What is the name of user u1?', sandbox: 'ecommerce', max_retries: 0 },
    })) as Answer;
    expect(r.structuredContent).toMatchObject({ status: 'succeeded' });
    expect(r.structuredContent).not.toHaveProperty('failedToolCalls');
  }, 180_000);
});

/** The MCP `run_suite` tool over stdio, driven by the official MCP SDK client, against the scripted LLM. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { fence, ORACLE, scriptedConfig, taskOf } from '../../support/suite-oracle.ts';
import { tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

let client: Client;
let llm: LlmServer;

beforeAll(async () => {
  llm = await startLlmServer();
  const ws = tempWorkspace();
  scriptedConfig(ws, llm.openaiUrl);
  client = await connectMcp(ws, 'toolsmith-test');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await llm?.close();
});

describe('MCP run_suite', () => {
  it('names the suites, runs one and answers with the matrix; an unknown suite is an error result', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'run_suite')?.description).toMatch(/Suites: ecommerce, support/);
    llm.responder = (req) => (ORACLE[taskOf(req)] ? fence(ORACLE[taskOf(req)] as string) : undefined);
    const r = (await client.callTool({
      name: 'run_suite',
      arguments: { suite: 'support', models: ['local:good'] },
    })) as { isError?: boolean; structuredContent?: { status: string; met: number; cells: number } };
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 'passed', met: 7, cells: 7 });
    const bad = (await client.callTool({ name: 'run_suite', arguments: { suite: 'nope' } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/no suite nope/);
  });
});

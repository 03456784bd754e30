/**
 * The MCP `run_suite` tool (over stdio, the official SDK client) on a sandbox whose tools come from an
 * upstream MCP server that takes a while to start: `toolsmith mcp` answers initialize before its
 * upstream servers are connected, and `run_suite` checked the suite without them ("no tool count"); it
 * now connects the suite's sandbox's servers first. A server that cannot start: an error result naming
 * it and why, before any LLM call.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { addMcpSandboxes, faultyServer, MISSING_MCP_COMMAND } from '../../support/mcp-workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';
import { fence, scriptedConfig, taskOf } from '../../support/suite-oracle.ts';
import { tempWorkspace } from '../../support/workspace.ts';

let client: Client;
let llm: LlmServer;
const q = (s: string) => JSON.stringify(s);
const missing = MISSING_MCP_COMMAND;
// The faulty server, started 3 s late (as a server fetching its package on first use would be).
const slowStart = `await new Promise((r) => setTimeout(r, 3000)); await import(${q(pathToFileURL(faultyServer).href)});`;

beforeAll(async () => {
  llm = await startLlmServer();
  const ws = tempWorkspace();
  scriptedConfig(ws, llm.openaiUrl);
  addMcpSandboxes(ws, ['--input-type=module', '-e', slowStart]);
  mkdirSync(join(ws, 'suites'), { recursive: true });
  const suite = (sandbox: string) =>
    `sandbox = "${sandbox}"\nmodels = ["local:good"]\n\n[[cases]]\nid = "count-once"\ntask = "Count once."\n\n[[cases.assert]]\ntype = "tool_called"\ntool = "count"\n`;
  writeFileSync(join(ws, 'suites/counter.toml'), suite('counter'));
  writeFileSync(join(ws, 'suites/down.toml'), suite('down'));
  client = await connectMcp(ws, 'toolsmith-test');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await llm?.close();
});

describe('MCP run_suite on a sandbox whose tools come from an upstream MCP server', () => {
  it('connects the server first and runs the case with its tool; one that cannot start is named', async () => {
    llm.responder = (req) =>
      taskOf(req) === 'Count once.' ? fence('emit_result(count(step=1).data)') : undefined;
    const r = (await client.callTool({ name: 'run_suite', arguments: { suite: 'counter' } })) as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: { status: string; met: number; cells: number };
    };
    expect(r.content[0]?.text).not.toMatch(/no tool count|is not defined/);
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 'passed', met: 1, cells: 1 });
    expect(llm.requests).toHaveLength(1);

    const down = (await client.callTool({ name: 'run_suite', arguments: { suite: 'down' } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(down.isError).toBe(true);
    const err = JSON.parse(down.content[0]?.text ?? '{}') as { error: string; code: string };
    expect(err.code).toBe('infra');
    expect(err.error).toMatch(
      /sandbox down takes tools from MCP servers that could not be reached: MCP server gone: /,
    );
    expect(err.error).toContain(missing);
    expect(llm.requests).toHaveLength(1);
  });
});

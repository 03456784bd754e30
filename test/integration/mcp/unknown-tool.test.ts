/**
 * A call of a tool the server does not have, through the official SDK client on stdio and over
 * Streamable HTTP: a tool result with isError (as the SDK answers it, and as MCP's conformance scenarios
 * expect) that names the server's tools and, when one is close, the near name. The SDK's own answer read
 * only "MCP error -32602: Tool nosuchtool not found".
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES } from '../../../src-main/mcp/mcp-tool-names.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcpHttp, startMcpHttpProcess } from './support/mcp-http-process.ts';
import type { McpHttpProcess } from './support/mcp-http-process.ts';

let ws: string;
let stdio: Client;
let http: Client;
let server: McpHttpProcess;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-mcp-unknown-tool-');
  [stdio, server] = await Promise.all([connectMcp(ws, 'unknown-tool-test'), startMcpHttpProcess(ws)]);
  http = await connectMcpHttp(server.url, server.token ?? '', 'unknown-tool-test');
});
afterAll(async () => {
  await Promise.allSettled([stdio?.close(), http?.close()]);
  await server?.stop();
  removeWorkspace(ws);
});

/** The text of the tool result with isError a call answers (fails the test on another answer). */
async function callError(client: Client, name: string): Promise<string> {
  const r = await client.callTool({ name, arguments: {} });
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return (r.content as { text: string }[])[0]?.text ?? '';
}

describe.each([
  ['stdio', () => stdio],
  ['--http', () => http],
])('an unknown tool over %s', (_transport, client) => {
  it('is a tool result with isError listing every tool of the server', async () => {
    const text = await callError(client(), 'nosuchtool');
    expect(text).toContain('Unknown tool: "nosuchtool"');
    expect(text).not.toMatch(/did you mean|MCP error/);
    for (const name of MCP_TOOL_NAMES) expect(text).toContain(name);
  });

  it('names the near tool when the name is close', async () => {
    const text = await callError(client(), 'execute_cod');
    expect(text).toMatch(/Unknown tool: "execute_cod"; did you mean execute_code\?/);
  });

  it('describe_tool of a sandbox tool that is not there names the near one', async () => {
    const r = await client().callTool({
      name: 'describe_tool',
      arguments: { name: 'get_usr', sandbox: 'ecommerce' },
    });
    expect(r.isError).toBe(true);
    const text = (r.content as { text: string }[])[0]?.text ?? '';
    expect(JSON.parse(text)).toMatchObject({
      error: 'no tool get_usr in sandbox ecommerce; did you mean get_user? search_tools finds tools by words',
      code: 'not_found',
    });
  });

  it('a known tool is still served', async () => {
    const r = await client().callTool({ name: 'list_templates', arguments: {} });
    expect(r.isError).not.toBe(true);
  });
});

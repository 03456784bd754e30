/**
 * Toolsmith's own MCP tools as a client sees them: every tool `mcp --help` names is served, each
 * answers `structuredContent` matching its declared output schema (the SDK client validates it), and
 * `execute_code` leaves the per-call trace out unless `include_trace` asks for it, but names the calls that
 * failed with the tool's message.
 */
import { spawnSync } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES } from '../../../src-main/mcp/mcp-tool-names.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';
import { cliArgv } from '../../support/toolsmith-process.ts';

let ws: string;
let client: Client;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-mcp-output-');
  client = await connectMcp(ws, 'output-test');
}, 120_000);
afterAll(async () => {
  await client?.close();
  removeWorkspace(ws);
});

type Answer = { content: { text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as Answer;

describe('the MCP server’s own tools', () => {
  it('`mcp --help` names every tool the server serves, and the served tools declare output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    const help = spawnSync(...cliArgv(['mcp', '--help']), { encoding: 'utf8' });
    for (const name of MCP_TOOL_NAMES) expect(help.stdout).toContain(name);
    for (const name of ['code', 'validate', 'list_tools', 'execute_code', 'kit_info', 'list_templates'])
      expect(tools.find((t) => t.name === name)?.outputSchema, name).toMatchObject({ type: 'object' });
  });

  it('validate, list_tools, kit_info and list_templates answer structuredContent', async () => {
    const v = await call('validate', { code: 'import os\nemit_result(1)' });
    expect(v.structuredContent).toMatchObject({ valid: false, violations: [{ rule: 'no-import' }] });
    expect(JSON.parse(v.content[0]!.text)).toEqual(v.structuredContent);
    const l = await call('list_tools', { sandbox: 'ecommerce' });
    expect((l.structuredContent?.['tools'] as { name: string }[]).map((t) => t.name)).toContain('get_user');
    const k = await call('kit_info', { name: 'orders' });
    expect(k.structuredContent).toMatchObject({ name: 'orders', sandbox: 'ecommerce' });
    const t = await call('list_templates', {});
    expect(Array.isArray(t.structuredContent?.['templates'])).toBe(true);
  });

  it('execute_code answers without the trace unless include_trace is true; code answers its run', async () => {
    const code = 'r = get_user(user_id="u1")\nemit_result(r.data["name"])';
    const lean = await call('execute_code', { code });
    expect(lean.isError).toBeFalsy();
    expect(lean.structuredContent).toMatchObject({ success: true, toolCallCount: 1 });
    expect(lean.structuredContent).not.toHaveProperty('toolCalls');
    const full = await call('execute_code', { code, include_trace: true });
    expect((full.structuredContent?.['toolCalls'] as { name: string }[]).map((c) => c.name)).toEqual([
      'get_user',
    ]);
    expect(lean.content[0]!.text.length).toBeLessThan(full.content[0]!.text.length);
    const run = await call('code', { code });
    expect(run.structuredContent).toMatchObject({ status: 'succeeded', runId: expect.any(String) });
  }, 180_000);

  it('execute_code without the trace still names the tool calls that failed, with the tool’s message', async () => {
    // The script "succeeds" with data null, or fails later with a TypeError: neither says why. The
    // tool's own words are what the caller needs (`code` answers them too, after its traceback).
    const code = 'r = get_user(user_id="zz")\nemit_result(r.data)';
    const lean = await call('execute_code', { code });
    expect(lean.structuredContent).toMatchObject({ success: true, data: null, toolCallCount: 1 });
    expect(lean.structuredContent?.['failedToolCalls']).toEqual([
      { name: 'get_user', args: { user_id: 'zz' }, message: expect.stringContaining("no user with id 'zz'") },
    ]);
    expect(lean.structuredContent).not.toHaveProperty('toolCalls');
    const raised = await call('execute_code', {
      code: 'r = get_user(user_id="zz")\nemit_result(r.data["name"])',
    });
    expect(raised.isError).toBe(true);
    expect(raised.structuredContent).toMatchObject({
      error: { type: 'TypeError' },
      failedToolCalls: [{ name: 'get_user', message: expect.stringContaining('known ids') }],
    });
    // Every call succeeded: no such field.
    const ok = await call('execute_code', {
      code: 'r = get_user(user_id="u1")\nemit_result(r.data["name"])',
    });
    expect(ok.structuredContent).not.toHaveProperty('failedToolCalls');
  }, 180_000);
});

/**
 * Approval over MCP with the official SDK client over stdio: a script's call of a tool named in
 * `[approval]` is put to the client through elicitation (the tool, its line and arguments); accept runs
 * it, decline refuses it (ToolRefused in the answer, the refusal in the run's record); a client without
 * elicitation is refused without being asked, with how to allow the call.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';

const ws = tempWorkspace();
appendFileSync(join(ws, '.toolsmith/config.toml'), '\n[approval]\ntools = ["support.add_note"]\n');
const clients: Client[] = [];
let approve = true;
const asked: string[] = [];

/** What the person answers when asked: the question kept, then approve's answer. */
function elicit(message: string): ElicitResult {
  asked.push(message);
  return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
}

async function connect(elicitation: boolean): Promise<Client> {
  const client = await connectMcp(ws, 'toolsmith-approval-test', undefined, elicitation ? elicit : undefined);
  clients.push(client);
  return client;
}
afterAll(async () => {
  for (const c of clients) await c.close();
  removeWorkspace(ws);
});

const CODE = 'r = add_note(ticket_id=102, text="over mcp")\nemit_result(r.data)\n';
const codeCall = { name: 'code', arguments: { code: CODE, sandbox: 'support' } };
const structuredOf = (r: unknown) => (r as { structuredContent: Record<string, unknown> }).structuredContent;

describe('approval over MCP', () => {
  it('a client with elicitation is asked; accept runs the call', async () => {
    approve = true;
    const c = await connect(true);
    const r = await c.callTool(codeCall, undefined, { timeout: 300_000 });
    expect(r.isError).toBeFalsy();
    expect(structuredOf(r)).toMatchObject({
      status: 'succeeded',
      result: { ticket_id: 102, notes: ['over mcp'] },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Allow the script to call add_note in sandbox support');
    expect(asked[0]).toContain('Line 1: r = add_note(ticket_id=102, text="over mcp")');
    expect(asked[0]).toContain('"text": "over mcp"');
  }, 300_000);

  it('decline refuses: the answer names ToolRefused and the run records the refusal', async () => {
    approve = false;
    asked.length = 0;
    const c = await connect(true);
    const r = await c.callTool(codeCall, undefined, { timeout: 300_000 });
    expect(r.isError).toBe(true);
    const s = structuredOf(r);
    expect(s).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(s)).toContain('ToolRefused: add_note was not approved (the person chose decline)');
    expect(asked).toHaveLength(1);
    const res = await c.readResource({ uri: `toolsmith://runs/${String(s['runId'])}` });
    const text = JSON.stringify(res.contents);
    expect(text).toContain('refused');
  }, 300_000);

  it('execute_code: a client without elicitation is refused without being asked', async () => {
    asked.length = 0;
    const c = await connect(false);
    const r = await c.callTool(
      { name: 'execute_code', arguments: { code: CODE, sandbox: 'support' } },
      undefined,
      { timeout: 300_000 },
    );
    expect(r.isError).toBe(true);
    const s = structuredOf(r) as { error: { type: string; message: string } };
    expect(s.error.type).toBe('ToolRefused');
    expect(s.error.message).toContain('cannot ask a person (no elicitation capability)');
    expect(s.error.message).toContain('[approval] in .toolsmith/config.toml');
    expect(asked).toEqual([]);
  }, 300_000);
});

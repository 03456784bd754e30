/**
 * A client that answers the server's elicitation/create with a result of the wrong shape (another
 * client than the SDK's, which checks its own answers): a plain JSON-RPC client over stdio against
 * `toolsmith mcp`. save_skill says the reply was malformed, how, and what was expected, and saves
 * nothing; a tool call's approval is refused with the same words. Before, save_skill ended as an
 * `internal` error whose message was the SDK's issue list, and the approval said "the client did not
 * answer".
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toolsmithArgv } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
appendFileSync(join(ws, '.toolsmith/config.toml'), '\n[approval]\ntools = ["support.add_note"]\n');
const servers: ChildProcessWithoutNullStreams[] = [];
afterAll(async () => {
  // Each server ends as a client's does (its stdin closed), and is waited for before its files go.
  await Promise.all(
    servers.map(
      (p) =>
        new Promise<void>((done) => {
          if (p.exitCode !== null || p.signalCode !== null) return done();
          p.on('exit', () => done());
          p.stdin.end();
        }),
    ),
  );
  removeWorkspace(ws);
});

interface Rpc {
  id?: number;
  method?: string;
  result?: unknown;
  error?: unknown;
}

/**
 * Starts `toolsmith mcp`, initializes with the elicitation capability, calls `tool` with `args`, answers
 * every elicitation/create with `reply` (as sent: no check of its shape), and resolves with the call's
 * result and how many times it was asked.
 */
function callWithReply(
  tool: string,
  args: Record<string, unknown>,
  reply: unknown,
): Promise<{ result: { isError?: boolean; content: { text: string }[] }; asked: number }> {
  const [command, argv] = toolsmithArgv(ws, ['mcp']);
  const p = spawn(command, argv, { stdio: 'pipe' });
  servers.push(p);
  const send = (m: object) => p.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  let asked = 0;
  let buf = '';
  return new Promise((resolve, reject) => {
    p.on('exit', (code) => reject(new Error(`toolsmith mcp exited (${String(code)})`)));
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, i)) as Rpc;
        buf = buf.slice(i + 1);
        if (m.method === 'elicitation/create') {
          asked++;
          send({ id: m.id, result: reply });
        } else if (m.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/call', params: { name: tool, arguments: args } });
        } else if (m.id === 2) {
          if (m.error) reject(new Error(JSON.stringify(m.error)));
          else resolve({ result: m.result as { content: { text: string }[] }, asked });
        }
      }
    });
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'raw-json-rpc', version: '1.0.0' },
      },
    });
  });
}

const SKILL = {
  sandbox: 'ecommerce',
  name: 'twice',
  source: 'def twice(x: int) -> int:\n    """Twice x."""\n    return 2 * x\n',
  tests: [{ args: { x: 2 }, expect: 4 }],
};
const EXPECTED =
  'expected a result {"action": "accept" | "decline" | "cancel", "content": {"confirm": true | false}} (content with "accept")';

describe('a malformed reply to elicitation/create', () => {
  it('save_skill: says the reply was malformed, how, and what was expected; nothing is saved', async () => {
    for (const [reply, how] of [
      [{ action: 'accept', content: 'yes' }, 'content: Invalid input: expected record, received string'],
      [{ confirm: true }, 'action: Invalid option: expected one of "accept"|"decline"|"cancel"'],
      [{ action: 'accept', content: { confirm: 'yes' } }, 'data/confirm must be boolean'],
      [{ action: 'accept' }, 'content.confirm: missing'],
    ] as const) {
      const { result, asked } = await callWithReply('save_skill', SKILL, reply);
      expect(asked).toBe(1);
      expect(result.isError).toBe(true);
      const body = JSON.parse(result.content[0]?.text ?? '{}') as { error: string; code: string };
      expect(body.code, JSON.stringify(reply)).toBe('invalid_argument');
      expect(body.error, JSON.stringify(reply)).toMatch(
        /^the client's reply to elicitation\/create was malformed \(/,
      );
      expect(body.error).toContain(how);
      expect(body.error).toContain(`${EXPECTED}; nothing was saved`);
    }
    expect(existsSync(join(ws, 'skills/ecommerce/twice.py'))).toBe(false);
  }, 300_000);

  it("a tool call's approval: refused, saying the reply was malformed (not that the client did not answer)", async () => {
    const { result, asked } = await callWithReply(
      'code',
      { code: 'r = add_note(ticket_id=102, text="x")\nemit_result(r.data)\n', sandbox: 'support' },
      { action: 'accept', content: 'yes' },
    );
    expect(asked).toBe(1);
    expect(result.isError).toBe(true);
    const text = result.content.map((c) => c.text).join('\n');
    expect(text).toContain(
      `add_note was not approved (the client's reply to elicitation/create was malformed (content: Invalid input: expected record, received string): expected a result {\\"action\\": \\"accept\\" | \\"decline\\" | \\"cancel\\", \\"content\\": {\\"approve\\": true | false}}`,
    );
    expect(text).not.toContain('did not answer');
    const missing = await callWithReply(
      'code',
      { code: 'r = add_note(ticket_id=102, text="x")\nemit_result(r.data)\n', sandbox: 'support' },
      { action: 'accept', content: { approve: 'yes' } },
    );
    expect(missing.result.content.map((c) => c.text).join('\n')).toContain(
      `malformed (content.approve: \\"yes\\", not a boolean)`,
    );
  }, 300_000);
});

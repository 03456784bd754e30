/**
 * A person in the loop, with real sandboxes: a tool named in `[approval]` waits for an answer before it
 * runs (a Python sandbox tool through its worker's gate, a JS script's call through the host), a refusal
 * is a ToolRefused error the script sees and a refused call in the record, and every answer is an
 * `approval` event of the run.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { ApprovalAnswer, ApprovalRequest } from '../../../src-main/core/tools/approval.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
appendFileSync(join(ws, '.toolsmith/config.toml'), '\n[approval]\ntools = ["support.add_note"]\n');
const asked: ApprovalRequest[] = [];
let answer: ApprovalAnswer = { approved: true, via: 'cli' };
const svc = ToolsmithService.open(ws, {
  sandboxFactory: createSandboxManager,
  oneShot: true,
  askApproval: (r) => {
    asked.push(r);
    return Promise.resolve(answer);
  },
});
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

async function run(body: string, language: 'python' | 'js' = 'python') {
  asked.length = 0;
  const runs = await svc.runs();
  const started = await runs.startScript({ sandbox: 'support', language, body });
  const outcome = await started.done;
  const events = runs.store.events(started.runId);
  const approvals = events.flatMap((e) => (e.type === 'approval' ? [e.data] : []));
  const execution = events.flatMap((e) => (e.type === 'execution' ? [e.data.result] : []))[0];
  return { outcome, approvals, calls: execution?.toolCalls ?? [], execution };
}

const PY =
  'tickets = list_tickets(status="open")\nr = add_note(ticket_id=101, text="checked")\nemit_result(r.data)\n';

describe('approval per tool call', () => {
  it('an approved Python sandbox tool runs after the answer; the question shows its line and arguments', async () => {
    answer = { approved: true, via: 'cli' };
    const r = await run(PY);
    expect(r.outcome.status).toBe('succeeded');
    expect(r.outcome.result).toEqual({ ticket_id: 101, notes: ['checked'] });
    // Only the gated tool is asked about (list_tickets is not in [approval]).
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      sandbox: 'support',
      tool: 'add_note',
      args: { ticket_id: 101, text: 'checked' },
      line: 2,
      text: 'r = add_note(ticket_id=101, text="checked")',
      runId: expect.any(String),
    });
    expect(r.approvals).toEqual([
      expect.objectContaining({ n: 1, tool: 'add_note', approved: true, via: 'cli', line: 2 }),
    ]);
    expect(r.calls.map((c) => [c.name, c.error ?? 'ok'])).toEqual([
      ['list_tickets', 'ok'],
      ['add_note', 'ok'],
    ]);
  }, 300_000);

  it('a refused Python sandbox tool never runs: the script gets ToolRefused, the call is recorded refused', async () => {
    answer = { approved: false, via: 'cli', reason: 'refused on the terminal' };
    const r = await run(PY);
    expect(r.outcome.status).toBe('failed');
    expect(r.execution?.error).toMatchObject({
      type: 'ToolRefused',
      message: 'ToolRefused: add_note was not approved (refused on the terminal)',
    });
    expect(r.execution?.error?.frames[0]).toMatchObject({ line: 2 });
    const note = r.calls.find((c) => c.name === 'add_note');
    expect(note).toMatchObject({ refused: true, error: expect.stringContaining('ToolRefused') });
    expect(note?.result).toBeUndefined();
    expect(r.approvals).toEqual([
      expect.objectContaining({ tool: 'add_note', approved: false, reason: 'refused on the terminal' }),
    ]);
  }, 300_000);

  it('a script can catch the refusal and go on', async () => {
    answer = { approved: false, via: 'cli', reason: 'not today' };
    const r = await run(
      'try:\n    add_note(ticket_id=101, text="x")\n    emit_result("ran")\nexcept Exception as e:\n    emit_result(str(e))\n',
    );
    expect(r.outcome).toMatchObject({
      status: 'succeeded',
      result: 'ToolRefused: add_note was not approved (not today)',
    });
  }, 300_000);

  it('a JS script: the call goes through the host, which asks before it forwards the tool', async () => {
    answer = { approved: false, via: 'cli', reason: 'no' };
    const refused = await run(
      'const r = await add_note({ ticket_id: 101, text: "js" });\nemitResult(r.data);\n',
      'js',
    );
    expect(asked).toMatchObject([{ tool: 'add_note', args: { ticket_id: 101, text: 'js' } }]);
    expect(refused.outcome.status).toBe('failed');
    expect(refused.execution?.error?.message).toContain('ToolRefused: add_note was not approved (no)');
    expect(refused.calls).toEqual([expect.objectContaining({ name: 'add_note', refused: true })]);
    answer = { approved: true, via: 'cli' };
    const ok = await run(
      'const r = await add_note({ ticket_id: 101, text: "js" });\nemitResult(r.data);\n',
      'js',
    );
    expect(ok.outcome).toMatchObject({ status: 'succeeded', result: { ticket_id: 101, notes: ['js'] } });
    expect(ok.approvals).toEqual([expect.objectContaining({ approved: true })]);
  }, 300_000);

  it('with no one to ask (no asker), a gated call is refused, naming how to allow it', async () => {
    const before = svc.askApproval;
    svc.askApproval = undefined;
    try {
      const r = await svc.execution.executeScript({ sandbox: 'support', language: 'python', body: PY });
      expect(r.error).toMatchObject({ type: 'ToolRefused' });
      expect(r.error?.message).toContain('no one to ask');
      expect(r.error?.message).toContain('[approval]');
    } finally {
      svc.askApproval = before;
    }
  }, 300_000);
});

import { describe, expect, it } from 'vitest';
import { approvalTools, refusalMessage } from '../../../src-main/core/tools/approval.ts';
import { contextApprovalTools } from '../../../src-main/app/approval.ts';
import { ApprovalBroker } from '../../../src-main/app/approval.ts';
import { parseConfig } from '../../../src-main/app/config.ts';
import type { PushEvent } from '../../../src-main/contract/api.ts';

const tools = [
  { name: 'read_note', grade: { w: 1, d: 0 } },
  { name: 'write_note', grade: { w: 1, d: 1 } },
  { name: 'delete_note', grade: { w: 1, d: 2 } },
  { name: 'send_mail', grade: { w: 2, d: 2 } },
];

describe('approval config resolution', () => {
  it('is off by default: no table, or an empty one, gates nothing', () => {
    expect(approvalTools(undefined, { sandbox: 'notes', tools })).toEqual([]);
    const c = parseConfig({});
    expect(c.approval).toEqual({ tools: [], kits: [], sandboxes: [] });
    expect(approvalTools(c.approval, { sandbox: 'notes', tools })).toEqual([]);
  });

  it('a sandbox gates its destructive tools (d = 2) only', () => {
    const c = { sandboxes: ['notes'] };
    expect(approvalTools(c, { sandbox: 'notes', tools })).toEqual(['delete_note', 'send_mail']);
    expect(approvalTools(c, { sandbox: 'other', tools })).toEqual([]);
  });

  it('a kit gates its destructive tools in runs using the kit, not without it', () => {
    const c = { kits: ['cleanup'] };
    expect(approvalTools(c, { sandbox: 'notes', kit: 'cleanup', tools })).toEqual([
      'delete_note',
      'send_mail',
    ]);
    expect(approvalTools(c, { sandbox: 'notes', tools })).toEqual([]);
    expect(approvalTools(c, { sandbox: 'notes', kit: 'reader', tools })).toEqual([]);
  });

  it('a tool named as sandbox.tool is gated whatever its grade, in that sandbox only', () => {
    const c = { tools: ['notes.write_note'] };
    expect(approvalTools(c, { sandbox: 'notes', tools })).toEqual(['write_note']);
    expect(approvalTools(c, { sandbox: 'mail', tools })).toEqual([]);
  });

  it('the three combine without repeats', () => {
    const c = { tools: ['notes.delete_note', 'notes.read_note'], sandboxes: ['notes'], kits: ['k'] };
    expect(approvalTools(c, { sandbox: 'notes', kit: 'k', tools })).toEqual([
      'delete_note',
      'read_note',
      'send_mail',
    ]);
  });

  it('a kit alias is resolved to the tool it stands for', () => {
    const ctx = {
      sandbox: 'notes',
      kit: 'cleanup',
      tools: [{ name: 'rm', grade: { w: 1, d: 2 } }] as never,
      toolMap: { rm: 'delete_note' },
    };
    expect(contextApprovalTools({ tools: ['notes.delete_note'] }, ctx)).toEqual(['delete_note']);
    expect(contextApprovalTools({ kits: ['cleanup'] }, ctx)).toEqual(['delete_note']);
  });

  it('the config refuses a tool entry that is not sandbox.tool, and unknown keys', () => {
    expect(() => parseConfig({ approval: { tools: ['delete_note'] } })).toThrow(/sandbox\.tool/);
    expect(() => parseConfig({ approval: { tool: ['notes.delete_note'] } })).toThrow();
  });

  it('a refusal says ToolRefused, the tool and why', () => {
    expect(refusalMessage('delete_note', { approved: false, via: 'cli', reason: 'no terminal' })).toBe(
      'ToolRefused: delete_note was not approved (no terminal)',
    );
  });
});

describe('the workbench broker', () => {
  it('pushes a question, resolves on the answer, and answers each question once', async () => {
    const pushed: PushEvent[] = [];
    const b = new ApprovalBroker((e) => pushed.push(e));
    const answer = b.ask(
      { sandbox: 'notes', tool: 'delete_note', args: { id: 'n1' }, line: 3 },
      new AbortController().signal,
    );
    const req = pushed[0];
    if (req?.type !== 'approval_request') throw new Error('no request pushed');
    expect(req.request).toMatchObject({ tool: 'delete_note', args: { id: 'n1' }, line: 3 });
    expect(b.pending().map((p) => p.id)).toEqual([req.request.id]);
    expect(b.answer(req.request.id, false, '')).toBe(true);
    await expect(answer).resolves.toEqual({
      approved: false,
      via: 'workbench',
      reason: 'refused by a person',
    });
    expect(b.answer(req.request.id, true)).toBe(false);
    expect(b.pending()).toEqual([]);
  });

  it('withdraws a question when the job ends first', async () => {
    const pushed: PushEvent[] = [];
    const b = new ApprovalBroker((e) => pushed.push(e));
    const ac = new AbortController();
    const answer = b.ask({ sandbox: 'notes', tool: 'delete_note', args: {} }, ac.signal);
    ac.abort();
    await expect(answer).resolves.toMatchObject({ approved: false });
    expect(pushed.map((e) => e.type)).toEqual(['approval_request', 'approval_withdrawn']);
    expect(b.pending()).toEqual([]);
  });
});

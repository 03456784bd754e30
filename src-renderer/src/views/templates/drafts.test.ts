import { describe, expect, it } from 'vitest';
import type { Response, RunRecordView, TemplateInfo } from '../../../../src-main/contract/api.ts';
import { draftOf, parseExpect, promoteDraft } from './drafts.ts';

const proposal = {
  pattern: 'name of user {id}',
  slots: { id: 'str' },
  body: 'emit_result(get_user(id={{id}}))',
  sandbox: 'users',
} as unknown as Response<'templates.propose'>;

const attempt = (n: number, success: boolean, data?: unknown, language = 'python') => ({
  n,
  script: { language, body: `# ${n}` },
  execution: { success, ...(data !== undefined ? { data } : {}) },
});

const record = (attempts: unknown[]): RunRecordView =>
  ({
    id: 'run-1',
    started: { task: 'What is the name of user u1?', language: 'ts' },
    attempts,
  }) as unknown as RunRecordView;

describe('promoteDraft', () => {
  it('takes the last attempt that succeeded, its result and the task as the first example', () => {
    const r = promoteDraft(
      proposal,
      record([attempt(1, false), attempt(2, true, { name: 'Ada' }), attempt(3, false)]),
      { runId: 'run-1' },
    );
    expect(r).toEqual({
      draft: {
        name: 'name-of-user',
        pattern: 'name of user {id}',
        slots: { id: 'str' },
        body: 'emit_result(get_user(id={{id}}))',
        sandbox: 'users',
        language: 'python',
        examples: [{ intent: 'What is the name of user u1?', expect: '' }],
        description: '',
      },
      fromRun: { runId: 'run-1', attempt: 2, task: 'What is the name of user u1?', result: { name: 'Ada' } },
    });
  });

  it('takes the attempt asked for when it has a script, without a result when it failed', () => {
    const r = promoteDraft(
      { ...proposal, kit: 'lookup' },
      record([attempt(1, false, undefined, 'js'), attempt(2, true, 1)]),
      { runId: 'run-1', attempt: 1 },
    );
    expect(r.draft.kit).toBe('lookup');
    expect(r.draft.language).toBe('js');
    expect(r.fromRun).toEqual({ runId: 'run-1', attempt: 1, task: 'What is the name of user u1?' });
  });

  it("falls back to the run's language when no attempt fits", () => {
    const r = promoteDraft(proposal, record([attempt(1, false)]), { runId: 'run-1', attempt: 9 });
    expect(r.draft.language).toBe('ts');
    expect(r.fromRun).toEqual({ runId: 'run-1', task: 'What is the name of user u1?' });
  });
});

describe('draftOf', () => {
  it('shows expected values as JSON text and copies the slots', () => {
    const t = {
      name: 't',
      pattern: 'p {x}',
      slots: { x: 'int' },
      body: 'b',
      sandbox: 's',
      language: 'python',
      examples: [{ intent: 'p 1', expect: { v: 1 } }, { intent: 'p 2' }],
    } as unknown as TemplateInfo;
    const d = draftOf(t);
    expect(d).toEqual({
      name: 't',
      pattern: 'p {x}',
      slots: { x: 'int' },
      body: 'b',
      sandbox: 's',
      language: 'python',
      examples: [
        { intent: 'p 1', expect: '{"v":1}' },
        { intent: 'p 2', expect: '' },
      ],
      description: '',
    });
    expect(d.slots).not.toBe(t.slots);
  });
});

describe('parseExpect', () => {
  it('is nothing when empty, the JSON value, or why it is not JSON', () => {
    expect(parseExpect('  ')).toEqual({});
    expect(parseExpect('{"a": [1]}')).toEqual({ value: { a: [1] } });
    expect(parseExpect('null')).toEqual({ value: null });
    expect(parseExpect('{a')).toEqual({ error: expect.stringMatching(/^not JSON: /) });
  });
});

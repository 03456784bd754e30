/**
 * The live run view folds pushed events one by one (core's foldEvent); the result must be what the
 * service derives from all of the run's events at once (deriveRun), and folding must not touch the
 * record it started from (the renderer keeps it as immutable state).
 */
import { describe, expect, it } from 'vitest';
import type { EventPayloads, EventType, RunEvent } from '../../../src-main/core/records/events.ts';
import { deriveRun, foldEvent } from '../../../src-main/core/records/records.ts';
import type { RunRecord } from '../../../src-main/core/records/records.ts';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { eventView, promptHead } from '../../../src-main/app/run-view.ts';

const RUN = 'run-fold-1';

function events(): RunEvent[] {
  const out: RunEvent[] = [];
  const add = <T extends EventType>(type: T, data: EventPayloads[T]) =>
    out.push({ v: 1, runId: RUN, seq: out.length, ts: 1000 + out.length * 10, type, data } as RunEvent);
  const prompt = (n: number, kind: 'first' | 'retry', correction?: boolean) => ({
    n,
    kind,
    system: 'You write Python scripts.',
    user: `Task: totals per customer (attempt ${n})`,
    sections: [
      { title: 'Task', text: 'totals' },
      { title: 'Tools', text: 'get_orders()' },
    ],
    hints: n > 1 ? ['KeyError: use o["quantity"]'] : [],
    ...(correction ? { correction } : {}),
  });
  const llm = (n: number, correction?: boolean) => ({
    n,
    text: '```python\nemit_result(1)\n```',
    promptTokens: 100 + n,
    completionTokens: 20 + n,
    model: 'qwen2.5-coder:7b',
    provider: 'openai',
    latencyMs: 900,
    retries: [],
    ...(correction ? { correction } : {}),
  });
  const script = (n: number, body: string) => ({
    n,
    code: `from tools import *\n${body}`,
    body,
    bodyStartLine: 2,
    language: 'python' as const,
    source: 'llm' as const,
  });
  const call = (name: string) => ({
    name,
    args: {},
    result: { success: true, data: [1] },
    ms: 1,
    location: 'sandbox' as const,
  });
  const result = (success: boolean): ExecutionResult => ({
    success,
    ...(success ? { data: { total: 3 } } : {}),
    intermediates: [],
    logs: ['order o1'],
    toolCalls: [call('get_orders'), call('get_user')],
    isolation: 'docker',
    runtime: 'python',
    durationMs: 80,
    exitReason: success ? 'ok' : 'error',
    ...(success ? {} : { error: { type: 'KeyError', message: "'qty'", frames: [] } }),
  });
  add('run_started', {
    task: 'totals per customer',
    sandbox: 'ecommerce',
    mode: 'plan',
    language: 'python',
    provider: 'openai',
    model: 'configured-model',
    maxRetries: 3,
    maxSteps: 1,
  });
  add('template_miss', { n: 1, reason: 'no template matches', template: 'orders', position: 4 });
  add('tier', { n: 1, tier: 'template', template: 'orders' });
  add('script', script(1, 'import os'));
  add('validation', { n: 1, valid: false, violations: [] });
  add('tier', { n: 1, tier: 'llm', provider: 'openai' });
  add('prompt', prompt(1, 'first'));
  add('llm_retry', { n: 1, provider: 'openai', attempt: 1, reason: 'rate limited (429)', waitMs: 1000 });
  add('llm_error', { n: 1, provider: 'openai', message: '429', retries: [] });
  add('llm_response', llm(1));
  add('script', script(1, 'import os\nemit_result(1)'));
  add('validation', { n: 1, valid: false, violations: [] });
  add('prompt', prompt(1, 'first', true));
  add('llm_response', llm(1, true));
  add('script', script(1, 'emit_result(o["qty"])'));
  add('validation', { n: 1, valid: true, violations: [] });
  add('tool_call', { n: 1, trace: call('get_orders') });
  add('approval', {
    n: 1,
    tool: 'cancel_order',
    args: { id: 'o1' },
    line: 2,
    text: 'cancel_order(id="o1")',
    approved: false,
    via: 'cli',
    reason: 'refused on the terminal',
    waitedMs: 40,
  });
  add('emit', { n: 1, kind: 'log', data: 'order o1' });
  add('execution', { n: 1, result: result(false) });
  add('tier', { n: 2, tier: 'llm', provider: 'openai' });
  add('prompt', prompt(2, 'retry'));
  add('llm_response', llm(2));
  add('script', script(2, 'emit_result(o["quantity"])'));
  add('validation', { n: 2, valid: true, violations: [] });
  add('tool_call', { n: 2, trace: call('get_orders') });
  add('approval', {
    n: 2,
    tool: 'cancel_order',
    args: { id: 'o1' },
    approved: true,
    via: 'workbench',
    waitedMs: 7,
  });
  add('approval', {
    n: 2,
    tool: 'cancel_order',
    args: { id: 'o2' },
    approved: true,
    via: 'workbench',
    waitedMs: 3,
  });
  add('emit', { n: 2, kind: 'intermediate', data: { partial: 1 } });
  add('execution', { n: 2, result: result(true) });
  add('step', { n: 2, summary: 'done', stagnant: false, final: true });
  add('run_finished', { status: 'succeeded', result: { total: 3 } });
  return out;
}

const snapshot = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;

describe('foldEvent', () => {
  it('folding the events one by one gives deriveRun of all of them, after every event', () => {
    const evs = events();
    let rec: RunRecord | undefined;
    for (const [i, e] of evs.entries()) {
      rec = foldEvent(rec, e);
      expect(rec, `after event ${i} (${e.type})`).toEqual(deriveRun(evs.slice(0, i + 1), true));
    }
    expect(rec?.status).toBe('succeeded');
    expect(rec?.events).toBe(evs.length);
    expect(rec?.attempts.map((a) => a.n)).toEqual([1, 2]);
    expect(rec?.attempts[0]?.rejected).toHaveLength(2);
    expect(rec?.attempts[0]?.corrections).toHaveLength(1);
    expect(rec?.tokens.total).toBe(101 + 21 + 101 + 21 + 102 + 22);
    expect(rec?.model).toBe('qwen2.5-coder:7b');
    expect(rec?.templateMiss?.template).toBe('orders');
    // A person's answers, per attempt, in order (an attempt without any has none).
    expect(rec?.attempts[0]?.approvals?.map((a) => [a.approved, a.via, a.reason])).toEqual([
      [false, 'cli', 'refused on the terminal'],
    ]);
    expect(rec?.attempts[1]?.approvals?.map((a) => a.args['id'])).toEqual(['o1', 'o2']);
  });

  it('folding onto a loaded record continues where its events end', () => {
    const evs = events();
    const loaded = deriveRun(evs.slice(0, 12), true);
    const rec = evs.slice(12).reduce(foldEvent, loaded);
    expect(rec).toEqual(deriveRun(evs));
  });

  it('leaves the record it folds into untouched and shares the attempts the event does not change', () => {
    const evs = events();
    const i = evs.findIndex((e) => e.type === 'tool_call' && e.data.n === 2);
    const before = deriveRun(evs.slice(0, i), true);
    const frozen = snapshot(before);
    const after = foldEvent(before, evs[i] as RunEvent); // tool_call of attempt 2
    expect(snapshot(before)).toEqual(frozen);
    expect(after.attempts[1]?.toolCalls).toHaveLength(1);
    expect(before.attempts[1]?.toolCalls).toHaveLength(0);
    expect(after.attempts[0]).toBe(before.attempts[0]);
    expect(after.attempts[1]).not.toBe(before.attempts[1]);
  });

  it('an approval folds into its attempt without touching the record it folds into', () => {
    const evs = events();
    const i = evs.findLastIndex((e) => e.type === 'approval');
    const before = deriveRun(evs.slice(0, i), true);
    const frozen = snapshot(before);
    const after = foldEvent(before, evs[i] as RunEvent);
    expect(snapshot(before)).toEqual(frozen);
    expect(before.attempts[1]?.approvals).toHaveLength(1);
    expect(after.attempts[1]?.approvals).toHaveLength(2);
  });

  it('an llm_retry folds into its attempt without touching the record it folds into', () => {
    const evs = events();
    const i = evs.findIndex((e) => e.type === 'llm_retry');
    const before = deriveRun(evs.slice(0, i), true);
    const frozen = snapshot(before);
    const after = foldEvent(before, evs[i] as RunEvent);
    expect(snapshot(before)).toEqual(frozen);
    expect(after.attempts[0]?.retries).toEqual([
      { n: 1, provider: 'openai', attempt: 1, reason: 'rate limited (429)', waitMs: 1000 },
    ]);
  });

  it('each attempt names the provider and model whose answer is its script', () => {
    const rec = deriveRun(events());
    expect(rec.attempts.map((a) => [a.n, a.tier, a.provider, a.model])).toEqual([
      [1, 'llm', 'openai', 'qwen2.5-coder:7b'],
      [2, 'llm', 'openai', 'qwen2.5-coder:7b'],
    ]);
  });

  it('a run starts with run_started', () => {
    expect(() => foldEvent(undefined, events()[3] as RunEvent)).toThrow(/run_started/);
  });

  it('events pushed with prompt heads fold into what runs.get answers (prompts as heads)', () => {
    const evs = events();
    const pushed = evs.map(eventView);
    expect(pushed[6]?.data).not.toHaveProperty('user');
    expect(pushed[6]?.data).toMatchObject({ n: 1, kind: 'first', titles: ['Task', 'Tools'] });
    const folded = pushed.reduce<RunRecord | undefined>(
      (rec, e) => foldEvent(rec, e as unknown as RunEvent),
      undefined,
    );
    const full = deriveRun(evs);
    const view = {
      ...full,
      attempts: full.attempts.map((a) => (a.prompt ? { ...a, prompt: promptHead(a.prompt) } : a)),
    };
    expect(folded).toEqual(view);
    // The first prompt of an attempt stays, a correction's prompt does not replace it.
    expect(folded?.attempts[0]?.prompt).toMatchObject({ kind: 'first' });
    expect(folded?.attempts[0]?.prompt).not.toHaveProperty('correction');
  });
});

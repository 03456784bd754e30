/**
 * One read per run request: `runs.continue`, `runs.replay` and `runs.prompt` read a run's events once
 * (or only the prompt rows), `runs.events {afterSeq}` reads only the events after it (a range on the
 * events' key, O(missed)). Counted at the store's statements; real service, real SQLite run store.
 */
import type { SQLInputValue } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { RunEventView } from '../../../src-main/contract/api.ts';
import type { EventPayloads } from '../../../src-main/core/records/events.ts';
import type { RunStatements } from '../../../src-main/infra/store/run-statements.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const prompt = (n: number, user: string, correction?: boolean): EventPayloads['prompt'] => ({
  n,
  kind: n === 1 ? 'first' : 'retry',
  system: 'system text',
  user,
  sections: [],
  hints: [],
  ...(correction ? { correction } : {}),
});

describe('one read per run request', () => {
  const ws = tempWorkspace();
  let svc: ToolsmithService;
  let runId = '';
  /** Reads of the run's events since the last reset, by statement, for `runId` only. */
  const reads = { events: 0, eventsAfter: 0, eventsOfAttempt: 0, rows: 0 };
  beforeAll(async () => {
    svc = ToolsmithService.open(ws);
    const { store } = await svc.runs();
    runId = store.createRun({
      task: 'totals per customer',
      sandbox: 'ecommerce',
      mode: 'plan',
      language: 'python',
      maxRetries: 2,
      maxSteps: 1,
    });
    store.append(runId, 'tier', { n: 1, tier: 'llm', provider: 'openai' });
    store.append(runId, 'prompt', prompt(1, 'first prompt'));
    store.append(runId, 'prompt', prompt(1, 'a correction', true));
    store.append(runId, 'tier', { n: 2, tier: 'llm', provider: 'openai' });
    store.append(runId, 'prompt', prompt(2, 'second prompt'));
    // An LLM answer: what a replay replays (a run no LLM answered has nothing to replay and is refused).
    store.append(runId, 'llm_response', {
      n: 2,
      text: '```python\nemit_result(1)\n```',
      promptTokens: 10,
      completionTokens: 5,
      model: 'qwen2.5-coder:7b',
      provider: 'local',
      latencyMs: 1,
      retries: [],
    });
    store.append(runId, 'script', {
      n: 2,
      code: 'emit_result(1)',
      body: 'emit_result(1)',
      bodyStartLine: 1,
      language: 'python',
      source: 'edit',
    });
    for (let i = 0; i < 50; i++) store.append(runId, 'emit', { n: 2, kind: 'log', data: i });
    store.append(runId, 'run_finished', { status: 'failed', error: 'no script' });
    // The statements are the store's own (private to it): counted as they answer, not replaced.
    const stmts = (store as unknown as { stmts: RunStatements }).stmts;
    for (const name of ['events', 'eventsAfter', 'eventsOfAttempt'] as const) {
      const s = stmts[name] as unknown as { all(...p: SQLInputValue[]): unknown[] };
      const all = s.all.bind(s);
      vi.spyOn(s, 'all').mockImplementation((...p: SQLInputValue[]) => {
        const rows = all(...p);
        if (p[0] === runId) {
          reads[name]++;
          reads.rows += rows.length;
        }
        return rows;
      });
    }
  });
  afterAll(async () => {
    await svc.close();
    removeWorkspace(ws);
  });
  const counted = async (fn: () => Promise<unknown>) => {
    Object.assign(reads, { events: 0, eventsAfter: 0, eventsOfAttempt: 0, rows: 0 });
    await fn();
    return { ...reads };
  };

  it('runs.events {afterSeq} reads only the events after it', async () => {
    let events: RunEventView[] = [];
    const n = await counted(async () => {
      const r = await dispatch(svc, 'runs.events', { runId, afterSeq: 56 });
      if (!r.ok) throw new Error(r.error.message);
      events = (r.value as { events: RunEventView[] }).events;
    });
    expect(events.map((e) => e.seq)).toEqual([57, 58]);
    expect(n).toEqual({ events: 0, eventsAfter: 1, eventsOfAttempt: 0, rows: 2 });
  });

  it("runs.prompt reads only the attempt's prompt rows, and answers as the whole record would", async () => {
    let value: unknown;
    const n = await counted(async () => {
      const r = await dispatch(svc, 'runs.prompt', { runId, n: 1 });
      if (!r.ok) throw new Error(r.error.message);
      value = r.value;
    });
    expect(n).toEqual({ events: 0, eventsAfter: 0, eventsOfAttempt: 1, rows: 2 });
    // The attempt's first prompt, not its correction: what the record holds.
    expect(value).toEqual(prompt(1, 'first prompt'));
    expect(value).toEqual((await svc.runs()).get(runId).attempts[0]?.prompt);
    const second = await dispatch(svc, 'runs.prompt', { runId, n: 2 });
    expect(second).toEqual({ ok: true, value: prompt(2, 'second prompt') });
    // No prompt: the whole record says why.
    expect(await dispatch(svc, 'runs.prompt', { runId, n: 7 })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: expect.stringMatching(/unknown attempt 7/) },
    });
  });

  it('runs.replay reads the run once', async () => {
    const n = await counted(async () => {
      const r = await dispatch(svc, 'runs.replay', { runId });
      if (!r.ok) throw new Error(r.error.message);
    });
    expect(n).toMatchObject({ events: 1, eventsAfter: 0, eventsOfAttempt: 0 });
  });

  it('runs.continue reads the run once', async () => {
    const n = await counted(async () => {
      const r = await dispatch(svc, 'runs.continue', { runId, attempt: 2, body: 'emit_result(2)\n' });
      if (!r.ok) throw new Error(r.error.message);
    });
    expect(n).toMatchObject({ events: 1, eventsAfter: 0, eventsOfAttempt: 0 });
  });
});

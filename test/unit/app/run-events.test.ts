/**
 * `runs.events`: a live view's catch-up. Events after `afterSeq` (all without it), prompts as heads,
 * whether a process still owns the run; clear errors for an unknown run and bad input. Real service,
 * real SQLite run store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { RunEventView } from '../../../src-main/contract/api.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

describe('runs.events', () => {
  const ws = tempWorkspace();
  let svc: ToolsmithService;
  let runId = '';
  beforeAll(async () => {
    svc = ToolsmithService.open(ws);
    const { store } = await svc.runs();
    runId = store.createRun({
      task: 'totals per customer',
      sandbox: 'ecommerce',
      mode: 'plan',
      language: 'python',
      maxRetries: 1,
      maxSteps: 1,
    });
    store.append(runId, 'tier', { n: 1, tier: 'llm', provider: 'openai' });
    store.append(runId, 'prompt', {
      n: 1,
      kind: 'first',
      system: 'system text',
      user: 'x'.repeat(5000),
      sections: [{ title: 'Tools', text: 'y'.repeat(4000) }],
      hints: [],
    });
    store.append(runId, 'run_finished', { status: 'failed', error: 'no script' });
  });
  afterAll(async () => {
    await svc.close();
    removeWorkspace(ws);
  });

  it('answers the events after afterSeq, prompts as heads', async () => {
    const all = await dispatch(svc, 'runs.events', { runId });
    if (!all.ok) throw new Error(all.error.message);
    const { events, live } = all.value as { events: RunEventView[]; live: boolean };
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [0, 'run_started'],
      [1, 'tier'],
      [2, 'prompt'],
      [3, 'run_finished'],
    ]);
    expect(live).toBe(false);
    expect(events[2]?.data).toEqual({ n: 1, kind: 'first', hints: [], titles: ['Tools'], chars: 5000 });
    expect(JSON.stringify(events).length).toBeLessThan(2000);

    const after = await dispatch(svc, 'runs.events', { runId, afterSeq: 1 });
    if (!after.ok) throw new Error(after.error.message);
    expect((after.value as { events: RunEventView[] }).events.map((e) => e.seq)).toEqual([2, 3]);
    // A run's short id (as the workbench shows it) names it too.
    const short = await dispatch(svc, 'runs.events', { runId: runId.slice(0, 8), afterSeq: 3 });
    expect(short).toEqual({ ok: true, value: { events: [], live: false } });
  });

  it('an unknown run and bad input answer errors as data', async () => {
    const unknown = await dispatch(svc, 'runs.events', { runId: 'no-such-run', afterSeq: 0 });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const bad = await dispatch(svc, 'runs.events', { runId, afterSeq: 'x' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    const extra = await dispatch(svc, 'runs.events', { runId, since: 1 });
    expect(extra).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
  });
});

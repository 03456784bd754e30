/**
 * The run summary row is computed in one place (core/records/summary.ts): folding a run's events gives
 * exactly the row the run store holds after writing the same events, live and through an import.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventPayloads, EventType, RunStartedData } from '../../../src-main/core/records/events.ts';
import { summarize } from '../../../src-main/core/records/summary.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';

const dbFile = () => join(mkdtempSync(join(tmpdir(), 'toolsmith-summary-')), 'runs.db');
const started: RunStartedData = {
  task: 'Tier of user u1',
  sandbox: 'ecommerce',
  kit: 'readonly',
  mode: 'plan',
  language: 'python',
  provider: 'local',
  model: 'coder-7b',
  maxRetries: 3,
  maxSteps: 8,
  origin: { runId: 'r-earlier', kind: 'replay' },
};
const answer = (
  n: number,
  model: string,
  provider: string,
  tokens: number,
): EventPayloads['llm_response'] => ({
  n,
  text: '```python\nemit_result(1)\n```',
  promptTokens: tokens,
  completionTokens: 7,
  model,
  provider,
  latencyMs: 30,
  retries: [],
});
const script = (n: number, source: 'llm' | 'template'): EventPayloads['script'] => ({
  n,
  code: 'emit_result(1)',
  body: 'emit_result(1)',
  bodyStartLine: 1,
  language: 'python',
  source,
});

/** A run that changes every summary field: two providers, a template tier between, a failure at the end. */
const recorded: [EventType, EventPayloads[EventType]][] = [
  ['tier', { n: 1, tier: 'llm', provider: 'local' }],
  ['llm_response', answer(1, 'coder-7b', 'local', 100)],
  ['script', script(1, 'llm')],
  ['validation', { n: 1, valid: false, violations: [] }],
  ['tier', { n: 2, tier: 'template', template: 'user-tier' }],
  ['script', script(2, 'template')],
  // An LLM tier after the template: the model the run started with comes back until an answer names one.
  ['tier', { n: 3, tier: 'llm' }],
  ['llm_error', { n: 3, provider: 'local', message: 'HTTP 503', retries: [] }],
  ['tier', { n: 3, tier: 'llm', provider: 'cloud' }],
  ['llm_response', answer(3, 'big-model', 'cloud', 250)],
  ['script', script(3, 'llm')],
  ['run_finished', { status: 'failed', error: 'no attempt succeeded' }],
];

function write(store: RunStore, events: typeof recorded, t0: number): string {
  const id = store.createRun(started, undefined, t0);
  events.forEach(([type, data], i) => store.append(id, type, data, t0 + 10 * (i + 1)));
  return id;
}

describe('the run summary row, folded from events', () => {
  it('equals the store row after the same events, field by field', () => {
    const store = new RunStore(dbFile());
    const id = write(store, recorded, 1_000);
    const row = store.summary(id);
    const folded = summarize(store.events(id));
    expect(folded).toEqual(row);
    // The fold is not trivially empty: these are the fields the events decided.
    expect(folded).toMatchObject({
      status: 'failed',
      model: 'big-model',
      provider: 'cloud',
      tier: 'llm',
      attempts: 3,
      tokens: 100 + 7 + 250 + 7,
      durationMs: 10 * recorded.length,
      error: 'no attempt succeeded',
      kit: 'readonly',
      kind: 'run',
      originRun: 'r-earlier',
    });
    store.close();
  });

  it('equals the store row at every step of a run that is still going', () => {
    const store = new RunStore(dbFile());
    for (let k = 0; k <= recorded.length - 1; k++) {
      const id = write(store, recorded.slice(0, k), 5_000 + k * 1_000);
      // This process owns the run: it is running, not interrupted.
      expect(summarize(store.events(id), true)).toEqual(store.summary(id));
    }
    store.close();
  });

  it('equals the row an import rebuilds from the exported events', () => {
    const from = new RunStore(dbFile());
    const id = write(from, recorded, 2_000);
    const doc = from.export(id);
    from.close();
    const to = new RunStore(dbFile());
    const imported = to.import(doc);
    expect(summarize(to.events(imported))).toEqual(to.summary(imported));
    to.close();
  });

  it('a template test is its own kind in the row and in the fold', () => {
    const store = new RunStore(dbFile());
    const id = store.createRun({ ...started, kind: 'template_test' });
    store.append(id, 'tier', { n: 1, tier: 'edit' });
    expect(store.summary(id)?.kind).toBe('template_test');
    expect(summarize(store.events(id), true)).toEqual(store.summary(id));
    store.close();
  });
});

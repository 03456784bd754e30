/**
 * The run summary row is computed in one place (core/records/summary.ts): folding a run's events gives
 * exactly the row the run store holds after writing the same events, live and through an import.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelAfterTier, NO_MODEL_TIERS, TIERS } from '../../../src-main/core/records/events.ts';
import type {
  EventPayloads,
  EventType,
  RunEvent,
  RunStartedData,
} from '../../../src-main/core/records/events.ts';
import { deriveRun } from '../../../src-main/core/records/records.ts';
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

/** A small seeded generator (mulberry32): the same runs on every machine, a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random run: tiers of every kind in any order, answers from several models, maybe an end. */
function randomRun(rnd: () => number): RunEvent[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const startedModel = pick([undefined, 'coder-7b']);
  const first: RunEvent = {
    v: 1,
    runId: 'r',
    seq: 0,
    ts: 1_000,
    type: 'run_started',
    data: { ...started, ...(startedModel ? { model: startedModel } : { model: undefined }) },
  };
  const events: RunEvent[] = [first];
  const add = (type: EventType, data: EventPayloads[EventType]) =>
    events.push({
      v: 1,
      runId: 'r',
      seq: events.length,
      ts: 1_000 + events.length * 10,
      type,
      data,
    } as RunEvent);
  const length = Math.floor(rnd() * 12);
  for (let i = 0; i < length; i++) {
    const n = 1 + Math.floor(rnd() * 4);
    const tier = pick(TIERS);
    switch (pick(['tier', 'tier', 'answer', 'script', 'error'] as const)) {
      case 'tier':
        add('tier', {
          n,
          tier,
          ...(rnd() < 0.5 ? { provider: pick(['local', 'cloud']) } : {}),
          ...(tier === 'template' ? { template: 'user-tier' } : {}),
        });
        break;
      case 'answer':
        add('llm_response', answer(n, pick(['coder-7b', 'big-model']), pick(['local', 'cloud']), 10 + n));
        break;
      case 'script':
        add('script', script(n, pick(['llm', 'template'] as const)));
        break;
      case 'error':
        add('llm_error', { n, provider: 'local', message: 'HTTP 503', retries: [] });
        break;
    }
  }
  const end = pick([undefined, 'succeeded', 'failed', 'cancelled'] as const);
  if (end)
    add('run_finished', { status: end, ...(end === 'failed' ? { error: 'no attempt succeeded' } : {}) });
  return events;
}

describe('the summary fold and the run record agree (one tier/model rule)', () => {
  it('on 2,000 random runs, live or not: status, tier, model, attempts, tokens, duration, error', () => {
    const rnd = random(31);
    for (let i = 0; i < 2_000; i++) {
      const events = randomRun(rnd);
      const live = rnd() < 0.5;
      const s = summarize(events, live);
      const rec = deriveRun(events, live);
      const seen = {
        status: rec.status,
        tier: rec.tier ?? null,
        model: rec.model ?? null,
        attempts: Math.max(0, ...rec.attempts.map((a) => a.n)),
        tokens: rec.tokens.total,
        durationMs: rec.endedAt === undefined ? 0 : rec.endedAt - rec.startedAt,
        error: rec.error ?? null,
      };
      expect({ run: i, ...seen }).toEqual({
        run: i,
        status: s.status,
        tier: s.tier,
        model: s.model,
        attempts: s.attempts,
        tokens: s.tokens,
        durationMs: s.durationMs,
        error: s.error,
      });
    }
  });

  it('the rule: no model while a template, rule or edited script serves; an LLM tier brings it back', () => {
    const started = () => 'coder-7b';
    expect(NO_MODEL_TIERS).toEqual(['template', 'rule', 'edit']);
    for (const tier of NO_MODEL_TIERS) expect(modelAfterTier(tier, 'big-model', started)).toBeUndefined();
    expect(modelAfterTier('llm', undefined, started)).toBe('coder-7b');
    expect(modelAfterTier('llm', 'big-model', started)).toBe('big-model');
    expect(modelAfterTier('replay', undefined, () => undefined)).toBeUndefined();
  });
});

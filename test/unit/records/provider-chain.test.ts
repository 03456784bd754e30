/**
 * Which provider wrote each attempt, and the chain Continue asks: a run whose first configured provider
 * was down records the one that answered, and a later provider's failure does not take its place.
 */
import { describe, expect, it } from 'vitest';
import type { EventPayloads, EventType, RunEvent } from '../../../src-main/core/records/events.ts';
import { deriveRun, providerChain } from '../../../src-main/core/records/records.ts';

function run(build: (add: <T extends EventType>(type: T, data: EventPayloads[T]) => void) => void) {
  const out: RunEvent[] = [];
  const add = <T extends EventType>(type: T, data: EventPayloads[T]) =>
    out.push({ v: 1, runId: 'r', seq: out.length, ts: out.length, type, data } as RunEvent);
  add('run_started', {
    task: 't',
    sandbox: 's',
    mode: 'plan',
    language: 'python',
    provider: 'down',
    model: 'down-model',
    providers: [
      { id: 'down', model: 'down-model' },
      { id: 'up', model: 'up-model' },
      { id: 'late', model: 'late-model' },
    ],
    maxRetries: 2,
    maxSteps: 1,
  });
  build(add);
  return deriveRun(out);
}

const answer = (n: number, provider: string, model: string, correction = false) => ({
  n,
  text: 'x',
  promptTokens: 1,
  completionTokens: 1,
  model,
  provider,
  latencyMs: 1,
  retries: [],
  ...(correction ? { correction } : {}),
});
const script = (n: number, source: 'llm' | 'edit' = 'llm') => ({
  n,
  code: 'emit_result(1)',
  body: 'emit_result(1)',
  bodyStartLine: 1,
  language: 'python' as const,
  source,
});

describe('provider per attempt and the chain Continue asks', () => {
  it('the first provider down, the second answered: attempts and chain name the second', () => {
    const rec = run((add) => {
      add('tier', { n: 1, tier: 'llm', provider: 'down' });
      add('llm_error', { n: 1, provider: 'down', message: 'connection refused', retries: [] });
      add('tier', { n: 1, tier: 'llm', provider: 'up' });
      add('llm_response', answer(1, 'up', 'up-model'));
      add('script', script(1));
      add('validation', { n: 1, valid: false, violations: [] });
      // The next provider fails: the attempt's script is still the one `up` wrote.
      add('tier', { n: 1, tier: 'llm', provider: 'late' });
      add('llm_error', { n: 1, provider: 'late', message: '500', retries: [] });
    });
    expect(rec.attempts[0]).toMatchObject({ provider: 'up', model: 'up-model' });
    expect(providerChain(rec, 1)).toEqual([{ id: 'up', model: 'up-model' }]);
  });

  it("a correction by another model names that model; the continued attempt's provider comes first", () => {
    const rec = run((add) => {
      add('tier', { n: 1, tier: 'llm', provider: 'up' });
      add('llm_response', answer(1, 'up', 'up-model'));
      add('script', script(1));
      add('tier', { n: 2, tier: 'llm', provider: 'late' });
      add('llm_response', answer(2, 'late', 'late-model'));
      add('llm_response', answer(2, 'late', 'late-model-2', true));
      add('script', script(2));
    });
    expect(rec.attempts[1]).toMatchObject({ provider: 'late', model: 'late-model-2' });
    expect(providerChain(rec, 2)).toEqual([
      { id: 'late', model: 'late-model-2' },
      { id: 'up', model: 'up-model' },
      { id: 'late', model: 'late-model' },
    ]);
  });

  it('an edited script has no provider, and a run no provider answered has an empty chain', () => {
    const rec = run((add) => {
      add('tier', { n: 1, tier: 'edit' });
      add('script', script(1, 'edit'));
    });
    expect(rec.attempts[0]?.provider).toBeUndefined();
    expect(providerChain(rec, 1)).toEqual([]);
  });
});

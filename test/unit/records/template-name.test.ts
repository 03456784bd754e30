/** A run served by a template names it; an LLM attempt after it does not keep the name. */
import { describe, expect, it } from 'vitest';
import type { EventPayloads, EventType, RunEvent } from '../../../src-main/core/records/events.ts';
import { deriveRun } from '../../../src-main/core/records/records.ts';

function run(tiers: EventPayloads['tier'][]): RunEvent[] {
  const out: RunEvent[] = [];
  const add = <T extends EventType>(type: T, data: EventPayloads[T]) =>
    out.push({ v: 1, runId: 'r1', seq: out.length, ts: 1000 + out.length, type, data } as RunEvent);
  add('run_started', {
    task: 'Name of user u2',
    sandbox: 'ecommerce',
    mode: 'plan',
    language: 'python',
    maxRetries: 2,
  } as EventPayloads['run_started']);
  for (const t of tiers) add('tier', t);
  return out;
}

describe('the template of a run', () => {
  it('a run served by a template names it, on the run and on the attempt', () => {
    const r = deriveRun(run([{ n: 1, tier: 'template', template: 'user-name' }]));
    expect(r.template).toBe('user-name');
    expect(r.attempts[0]?.template).toBe('user-name');
  });
  it('an LLM attempt after the template (its script failed) is not served by it', () => {
    const r = deriveRun(
      run([
        { n: 1, tier: 'template', template: 'user-name' },
        { n: 2, tier: 'llm', provider: 'local' },
      ]),
    );
    expect(r.template).toBeUndefined();
    expect(r.attempts[0]?.template).toBe('user-name');
    expect(r.attempts[1]?.template).toBeUndefined();
  });
});

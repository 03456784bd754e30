import { describe, expect, it, vi } from 'vitest';
import { buildMatrix, compareMatrices, costOf } from '../../../src-main/core/suites/matrix.ts';
import type { CaseResult, SuiteColumn } from '../../../src-main/core/suites/matrix.ts';
import { RateGate } from '../../../src-main/core/suites/gate.ts';

const cols: SuiteColumn[] = [
  { id: 'p:a', provider: 'p', model: 'a', templates: false },
  { id: 'p:b', provider: 'p', model: 'b', templates: false },
];
const res = (caseId: string, column: string, rep: number, passed: boolean, latencyMs = 100): CaseResult => ({
  caseId,
  column,
  rep,
  runId: `${caseId}-${column}-${rep}`,
  status: 'succeeded',
  passed,
  attempts: 1,
  promptTokens: 10,
  completionTokens: 5,
  cost: column === 'p:a' ? 0.001 : null,
  latencyMs,
  verdicts: passed ? [] : [{ type: 'equals', passed: false, message: 'expected 1, got 2' }],
  finishedAt: 0,
});

describe('matrix and comparison', () => {
  it('pass rate per cell against the threshold; totals per column', () => {
    const results = [
      res('x', 'p:a', 0, true),
      res('x', 'p:a', 1, true),
      res('x', 'p:a', 2, false),
      res('x', 'p:b', 0, false),
      res('y', 'p:a', 0, true),
      res('y', 'p:b', 0, true, 300),
    ];
    const m = buildMatrix(['x', 'y'], cols, results, { x: 0.6, y: 1 });
    const x = m.cells.find((c) => c.caseId === 'x' && c.column === 'p:a');
    expect(x).toMatchObject({ runs: 3, passes: 2, meets: true, tokens: 45, failure: 'expected 1, got 2' });
    expect(x?.cost).toBeCloseTo(0.003);
    expect(m.cells.find((c) => c.caseId === 'x' && c.column === 'p:b')?.meets).toBe(false);
    expect(m.totals.map((t) => [t.column, t.met, t.cases, t.cost])).toEqual([
      ['p:a', 2, 2, 0.004],
      ['p:b', 1, 2, null],
    ]);
    expect(m.overall).toMatchObject({ cells: 4, met: 3, runs: 6, passes: 4 });

    const later = buildMatrix(['x', 'y'], cols, [res('x', 'p:b', 0, true), res('y', 'p:b', 0, false)], {
      x: 1,
      y: 1,
    });
    const c = compareMatrices({ id: 'old', matrix: m }, { id: 'new', matrix: later });
    expect(c.fixed).toBe(1);
    expect(c.newFailures).toBe(1);
    expect(c.cells.filter((k) => k.change === 'removed').map((k) => k.caseId)).toEqual(['x', 'y']);
    expect(c.tokens.delta).toBe(30 - 90);
  });

  it('cost per million tokens; none without a price', () => {
    expect(costOf({ m: { prompt: 2, completion: 4 } }, 'm', 1_000_000, 500_000)).toBe(4);
    expect(costOf({}, 'm', 1, 1)).toBeNull();
  });

  it('the rate gate closes on a 429 (not on other retries) and holds every waiter until it reopens', async () => {
    // Fake timers and clock: what is checked is when the waiters are let through, not how long it took.
    vi.useFakeTimers();
    try {
      const gate = new RateGate(() => Date.now());
      const settled = (p: Promise<void>) => {
        const s = { done: false };
        void p.then(() => (s.done = true));
        return s;
      };
      gate.noteRetries([{ attempt: 1, reason: 'server error (500)', waitMs: 5000 }]);
      expect(gate.pauses).toBe(0);
      const open = settled(gate.wait());
      await vi.advanceTimersByTimeAsync(0);
      expect(open.done, 'an open gate lets a waiter through at once').toBe(true);

      gate.noteRetries([{ attempt: 1, reason: 'rate limited (429)', waitMs: 300 }]);
      expect(gate.pauses).toBe(1);
      const both = settled(Promise.all([gate.wait(), gate.wait()]).then(() => {}));
      await vi.advanceTimersByTimeAsync(299);
      expect(both.done, 'held until the back-off has passed').toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(both.done, 'both let through when it reopens').toBe(true);

      const ac = new AbortController();
      gate.pause(10_000);
      const aborted = settled(gate.wait(ac.signal));
      await vi.advanceTimersByTimeAsync(20);
      expect(aborted.done).toBe(false);
      ac.abort();
      await vi.advanceTimersByTimeAsync(0);
      expect(aborted.done, 'a cancelled waiter stops waiting').toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

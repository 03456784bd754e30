/**
 * A job's log lines as run events (core/orchestrator/log-coalescer.ts): consecutive lines are one event
 * up to a size, written before any other event of the job, and a slow script's lines are written after a
 * short wait only a bounded number of times: past that, they wait for a size or another event.
 */
import { describe, expect, it } from 'vitest';
import { LogCoalescer, type LogChunk } from '../../../src-main/core/orchestrator/log-coalescer.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('LogCoalescer', () => {
  it('writes consecutive lines as one chunk, at a size and on flush, keeping every line in order', () => {
    const out: LogChunk[] = [];
    const c = new LogCoalescer((x) => out.push(x), { maxChars: 100, waitMs: 60_000 });
    const lines = Array.from({ length: 50 }, (_, i) => `line ${String(i).padStart(2, '0')}`); // 7 characters and its "\n"
    for (const l of lines) c.add(l);
    c.flush();
    c.flush(); // nothing held: nothing written
    expect(out.map((x) => x.lines)).toEqual([13, 13, 13, 11]); // 13 lines reach 104 >= 100
    expect(out.flatMap((x) => x.text.split('\n'))).toEqual(lines);
  });

  it('a slow script: lines come out after the wait, at most maxTimed times, then only at a flush', async () => {
    const out: LogChunk[] = [];
    const c = new LogCoalescer((x) => out.push(x), { maxChars: 1_000_000, waitMs: 1, maxTimed: 3 });
    for (let i = 0; i < 10; i++) {
      c.add(`slow ${i}`);
      await sleep(20);
    }
    expect(out.length).toBeLessThanOrEqual(3);
    expect(out.length).toBeGreaterThan(0);
    c.flush();
    expect(out.length).toBeLessThanOrEqual(4);
    expect(out.flatMap((x) => x.text.split('\n'))).toEqual(Array.from({ length: 10 }, (_, i) => `slow ${i}`));
  });

  it('a writer that throws from the timer does not escape it', async () => {
    const c = new LogCoalescer(
      () => {
        throw new Error('the run store is closed');
      },
      { waitMs: 1 },
    );
    c.add('x');
    await sleep(20); // an exception out of the timer would fail the test run (unhandled error)
    expect(() => c.flush()).not.toThrow(); // already taken by the timer's attempt
  });
});

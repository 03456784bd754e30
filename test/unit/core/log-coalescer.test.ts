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

  it('a slow script: lines come out after the wait; past maxTimed flushes the wait doubles up to maxWaitMs', async () => {
    const out: LogChunk[] = [];
    const t0 = Date.now();
    const c = new LogCoalescer((x) => out.push(x), {
      maxChars: 1_000_000,
      waitMs: 1,
      maxTimed: 3,
      maxWaitMs: 200,
    });
    for (let i = 0; i < 30; i++) {
      c.add(`slow ${i}`);
      await sleep(20);
    }
    // 3 flushes 1 ms after a line, then waits of 2, 4, ... 128, 200, 200 ms: far fewer than 30 events,
    // but the lines keep coming out while the script runs (none held until its end)
    const ms = Date.now() - t0;
    expect(out.length).toBeGreaterThan(3);
    // (3 + the doubling waits 2..128 ms: 7 + one per 200 ms after them)
    expect(out.length).toBeLessThanOrEqual(3 + 7 + Math.ceil(ms / 200));
    expect(out.length).toBeLessThan(30);
    const held = out.flatMap((x) => x.text.split('\n')).length;
    c.flush();
    expect(held).toBeGreaterThan(15);
    expect(out.flatMap((x) => x.text.split('\n'))).toEqual(Array.from({ length: 30 }, (_, i) => `slow ${i}`));
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

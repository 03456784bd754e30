/**
 * A worker's stream can close before its backend hears how it ended (gVisor's sentry, killed for memory,
 * ends the protocol socket before Docker reports the container's exit and its OOM state). The job waits,
 * bounded, for that news: an out-of-memory kill heard late is still reported as oom, not as a crash.
 *
 * The workers are small real processes that speak the worker protocol on stdin/stdout; the backend's news
 * is the connection's `exitKnown` hook, as the Docker factory sets it.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerConnection } from '../../../src-main/infra/sandbox/connection.ts';

/** Reads the job, then exits at once (as a worker killed mid-job does). */
const DIES_ON_JOB = `
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  if (JSON.parse(line).type === 'job') process.exit(137);
});
setInterval(() => {}, 1000);
`;

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function worker(): WorkerConnection {
  const child = spawn(process.execPath, ['-e', DIES_ON_JOB], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  return new WorkerConnection(child.stdin, child.stdout, 'docker', async () => {
    child.kill('SIGKILL');
  });
}

const job = { code: 'x = "a" * (2 * 10**9)', tools: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 20 };

describe("a worker's end heard after its stream closed", () => {
  it('an OOM kill reported late still makes the job oom', async () => {
    const conn = worker();
    // The backend hears of the exit 800 ms after the stream closed (later than the stderr grace period).
    conn.exitKnown = () =>
      new Promise((r) =>
        setTimeout(() => {
          conn.oomKilled = true;
          r();
        }, 800),
      );
    const r = await conn.run(job);
    expect(r.exitReason).toBe('oom');
    expect(r.error?.message).toMatch(/ran out of memory/);
    expect(r.workerBroken).toBe(true);
  });

  it('an exit without OOM is a crash, naming how the worker ended', async () => {
    const conn = worker();
    conn.exitKnown = () => new Promise((r) => setTimeout(r, 300));
    const r = await conn.run(job);
    expect(r.exitReason).toBe('crashed');
    expect(r.error?.message).toMatch(/the sandbox worker died: the worker (closed its output|stream closed)/);
  });

  it('news that never comes holds the job only for a bounded time', async () => {
    const conn = worker();
    conn.exitKnown = () => new Promise(() => {});
    const started = performance.now();
    const r = await conn.run(job);
    expect(r.exitReason).toBe('crashed');
    // Bounded: the 3 s wait for news plus the stderr grace, not the job's 10 s limit.
    expect(performance.now() - started).toBeLessThan(8000);
  });
});

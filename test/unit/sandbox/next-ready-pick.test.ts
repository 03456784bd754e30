/**
 * Which idle worker a job goes to (pool.ts, checkout): the first one whose next job's process is ready
 * (`next_ready`), else the one that has been making its own longest; a worker that never tells is
 * taken as ready (the first idle worker, as before). A `next_ready` about an earlier job is stale.
 *
 * The workers are small real processes that speak the worker protocol on stdin/stdout and answer
 * `next_ready` a set time after each job (their "next process" being made), or never.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkerConnection } from '../../../src-main/infra/sandbox/connection.ts';
import { SandboxPool } from '../../../src-main/infra/sandbox/pool.ts';
import type { SandboxSpec, WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';

/**
 * argv: the ms after a job (or a load) until `next_ready` ('never': never told; 'held': told at once after
 * the load, after a job when the test sends SIGUSR2), and an optional job id whose
 * `next_ready` is sent instead of the last job's (a stale one).
 */
const WORKER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const held = process.argv[1] === 'held';
const makeMs = process.argv[1] === 'never' ? -1 : held ? 0 : Number(process.argv[1]);
const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let last = null;
const told = () => out({ type: 'next_ready', after: process.argv[2] === 'stale' ? 'old' : last });
if (held) process.on('SIGUSR2', told);
const tell = () => {
  if (!(held && last !== null) && makeMs >= 0) setTimeout(told, makeMs);
};
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.type === 'load') { out({ type: 'ready', runtime: 'python', version: 'test', tools: [] }); tell(); }
  else if (m.type === 'ping') out({ type: 'pong', busy: false });
  else if (m.type === 'job') {
    last = m.id;
    out({ type: 'emit', id: m.id, kind: 'result', data: process.pid });
    out({ type: 'done', id: m.id, ok: true });
    tell();
  }
});
setInterval(() => {}, 1000);
`;

const children: ReturnType<typeof spawn>[] = [];

class Factory implements WorkerFactory {
  readonly isolation = 'process' as const;
  private n = 0;
  readonly conns: WorkerConnection[] = [];
  private readonly args: string[][];
  constructor(args: string[][]) {
    this.args = args;
  }
  async spawn() {
    const args = this.args[this.n++] ?? ['never'];
    const child = spawn(process.execPath, ['-e', WORKER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    const conn = new WorkerConnection(child.stdin, child.stdout, 'process', async () => {
      conn.markClosed('killed', false);
      child.kill('SIGKILL');
    });
    this.conns.push(conn);
    return { conn, id: String(child.pid) };
  }
}

const spec: SandboxSpec = { name: 's', runtime: 'python', toolsSource: '', hostTools: [], credentials: {} };
const limits = { minSize: 2, maxSize: 2, maxJobsPerWorker: 100, idleMs: 60_000, queueTimeoutMs: 10_000 };
const job = { code: 'emit_result(1)', tools: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 20 };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** The pool, warm, each worker's first process ready; `who(r)` names the worker (0 or 1) of a result. */
async function warmPool(args: string[][]) {
  const f = new Factory(args);
  const tells = args[0]?.[0] !== 'never';
  const pool = new SandboxPool(spec, f, limits);
  await pool.warm();
  /** Until every worker that tells has said its next process is ready (a loaded machine is slow). */
  const settled = () =>
    vi.waitFor(() => expect(tells ? f.conns.every((c) => c.nextReady === true) : true).toBe(true), {
      timeout: 10_000,
      interval: 10,
    });
  await settled();
  await pause(100);
  const who = (r: { data?: unknown }) => children.findIndex((c) => c.pid === r.data);
  return { pool, who, settled };
}

describe('the worker a job goes to', () => {
  it('back to back: the other worker when the last one is still making its next process', async () => {
    const { pool, who } = await warmPool([['300'], ['300']]);
    try {
      const first = who(await pool.run(job));
      const second = who(await pool.run(job));
      expect(first).toBeGreaterThanOrEqual(0);
      expect(second).toBe(1 - first);
      // Neither is ready now: the one that has been making its process longest (the first).
      expect(who(await pool.run(job))).toBe(first);
    } finally {
      await pool.dispose();
    }
  });

  it('paced: the same warm worker every time once its next process is ready', async () => {
    const { pool, who, settled } = await warmPool([['100'], ['100']]);
    try {
      const seen = new Set<number>();
      for (let i = 0; i < 4; i++) {
        seen.add(who(await pool.run(job)));
        await settled();
      }
      // (one worker, whichever the pool lists first: the workers join it as their loads end)
      expect(seen.size).toBe(1);
      expect(seen.has(-1)).toBe(false);
    } finally {
      await pool.dispose();
    }
  });

  it('a worker that never tells is taken as ready: the first idle worker, as before', async () => {
    const { pool, who } = await warmPool([['never'], ['never']]);
    try {
      const seen = new Set<number>();
      for (let i = 0; i < 4; i++) seen.add(who(await pool.run(job)));
      expect(seen.size).toBe(1);
      expect(seen.has(-1)).toBe(false);
    } finally {
      await pool.dispose();
    }
  });

  it('a next_ready about an earlier job does not make a worker ready', async () => {
    const f = new Factory([['10', 'stale']]);
    const { conn } = await f.spawn();
    expect(conn.nextReady).toBeUndefined();
    await conn.load({ source: '', hostTools: [], credentials: [] });
    await pause(200);
    // (before any job the host's last job is none; the worker named 'old')
    expect(conn.nextReady).toBeUndefined();
    const r = await conn.run(job);
    expect(r.success).toBe(true);
    await pause(200);
    expect(conn.nextReady).toBeUndefined();
  });

  it('a worker that tells is not ready from a job sent until it says so again', async () => {
    // (held until the test has looked: a worker telling after a set time could be read in the same chunk
    // as the job's end on a loaded machine, and the test would see it ready already)
    const f = new Factory([['held']]);
    const { conn } = await f.spawn();
    await conn.load({ source: '', hostTools: [], credentials: [] });
    await vi.waitFor(() => expect(conn.nextReady).toBe(true), { timeout: 10_000, interval: 10 });
    await conn.run(job);
    expect(conn.nextReady).toBe(false);
    children.at(-1)?.kill('SIGUSR2');
    await vi.waitFor(() => expect(conn.nextReady).toBe(true), { timeout: 10_000, interval: 10 });
  });
});

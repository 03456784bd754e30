/**
 * A job whose request never reaches its worker (the worker's input closed under a live connection, as a
 * standby's does when its Docker engine is restarted: the write fails with EPIPE) ran nothing, so the
 * pool runs it once on another worker; a job the worker received is never run twice.
 *
 * The workers are small real processes that speak the worker protocol on stdin/stdout (no sandbox is
 * needed for what is tested here: the host side of the pipe).
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerConnection } from '../../../src-main/infra/sandbox/connection.ts';
import { SandboxPool } from '../../../src-main/infra/sandbox/pool.ts';
import type { SandboxSpec, WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';

/** A protocol-speaking process; `crashOnJob`: it reads the job, then exits. */
const WORKER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const mode = process.argv[1];
const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.type === 'load') {
    out({ type: 'ready', runtime: 'python', version: 'test', tools: [] });
  } else if (m.type === 'ping') out({ type: 'pong', busy: false });
  else if (m.type === 'job') {
    if (mode === 'crashOnJob') process.exit(3);
    out({ type: 'emit', id: m.id, kind: 'result', data: process.pid });
    out({ type: 'done', id: m.id, ok: true });
  }
});
setInterval(() => {}, 1000);
`;

type Mode = 'closeInputAfterLoad' | 'crashOnJob' | 'ok';

/** Answers the tools load, then closes its input (its output stays open): the next write fails (EPIPE). */
const CLOSES_INPUT = `read -r line
printf '%s\\n' '{"type":"ready","runtime":"python","version":"test","tools":[]}'
exec 0<&-
echo 'input closed' >&2
exec sleep 60`;

const children: ReturnType<typeof spawn>[] = [];

class ScriptedFactory implements WorkerFactory {
  readonly isolation = 'process' as const;
  spawns = 0;
  /** Resolves once a worker told (on stderr) that it closed its input. */
  readonly inputClosed: Promise<void>;
  private closedInput!: () => void;
  private readonly modes: Mode[];
  constructor(modes: Mode[]) {
    this.modes = modes;
    this.inputClosed = new Promise((r) => (this.closedInput = r));
  }
  async spawn() {
    const mode = this.modes[this.spawns++] ?? 'ok';
    const child =
      mode === 'closeInputAfterLoad'
        ? spawn('sh', ['-c', CLOSES_INPUT], { stdio: ['pipe', 'pipe', 'pipe'] })
        : spawn(process.execPath, ['-e', WORKER, mode], { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    child.stderr.on('data', (d: Buffer) => {
      if (d.toString().includes('input closed')) this.closedInput();
    });
    const conn = new WorkerConnection(child.stdin, child.stdout, 'process', async () => {
      conn.markClosed('killed', false);
      child.kill('SIGKILL');
    });
    return { conn, id: String(child.pid) };
  }
}

const spec: SandboxSpec = {
  name: 's',
  runtime: 'python',
  toolsSource: '',
  hostTools: [],
  credentials: {},
};
const limits = { minSize: 1, maxSize: 2, maxJobsPerWorker: 100, idleMs: 60_000, queueTimeoutMs: 10_000 };
const job = { code: 'emit_result(1)', tools: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 20 };

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('a job that never reached its worker', () => {
  it('fails on the connection as undelivered, naming the failed write', async () => {
    const f = new ScriptedFactory(['closeInputAfterLoad']);
    const { conn } = await f.spawn();
    await conn.load({ source: '', hostTools: [], credentials: [] });
    await f.inputClosed;
    const r = await conn.run(job);
    expect(r.success).toBe(false);
    expect(r.undelivered).toBe(true);
    expect(r.workerBroken).toBe(true);
    expect(r.error?.message).toMatch(/EPIPE|writing to the worker failed/);
    expect(conn.alive).toBe(false);
  });

  it('is run once more by the pool, on another worker, and succeeds', async () => {
    const f = new ScriptedFactory(['closeInputAfterLoad', 'ok']);
    const pool = new SandboxPool(spec, f, limits);
    try {
      await pool.warm();
      await f.inputClosed;
      const r = await pool.run(job);
      expect(r.error).toBeUndefined();
      expect(r.success).toBe(true);
      // The answer came from another worker's process (the first one's input was closed).
      expect(f.spawns).toBeGreaterThanOrEqual(2);
      expect(r.data).not.toBe(children[0]!.pid);
      expect(children.map((c) => c.pid)).toContain(r.data);
    } finally {
      await pool.dispose();
    }
  });

  it('is never run twice once the worker received it (a crash mid-job is the job’s result)', async () => {
    const f = new ScriptedFactory(['crashOnJob', 'ok']);
    const pool = new SandboxPool(spec, f, limits);
    try {
      await pool.warm();
      const r = await pool.run(job);
      expect(r.success).toBe(false);
      expect(r.exitReason).toBe('crashed');
      expect(r.error?.message).toMatch(/the sandbox worker died/);
      // Had it been run again, the second worker would have answered with success.
    } finally {
      await pool.dispose();
    }
  });
});

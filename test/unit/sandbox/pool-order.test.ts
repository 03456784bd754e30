/**
 * The pool hands a job to the idle worker that finished its last job the longest ago: a worker cleans
 * up after sending a result (the sweep, the wipe, the next job's process and namespaces), so sequential
 * jobs alternate between workers and never wait for that cleanup (issue 29: per-job latency).
 *
 * The workers are small real processes that speak the worker protocol on stdin/stdout and answer a job
 * with their pid.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerConnection } from '../../../src-main/infra/sandbox/connection.ts';
import { SandboxPool } from '../../../src-main/infra/sandbox/pool.ts';
import type { SandboxSpec, WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';

const WORKER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.type === 'load') out({ type: 'ready', runtime: 'python', version: 'test', tools: [] });
  else if (m.type === 'ping') out({ type: 'pong', busy: false });
  else if (m.type === 'job') {
    out({ type: 'emit', id: m.id, kind: 'result', data: process.pid });
    out({ type: 'done', id: m.id, ok: true });
  }
});
setInterval(() => {}, 1000);
`;

const children: ReturnType<typeof spawn>[] = [];

class Factory implements WorkerFactory {
  readonly isolation = 'process' as const;
  async spawn() {
    const child = spawn(process.execPath, ['-e', WORKER], { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    const conn = new WorkerConnection(child.stdin, child.stdout, 'process', async () => {
      conn.markClosed('killed', false);
      child.kill('SIGKILL');
    });
    return { conn, id: String(child.pid) };
  }
}

const spec: SandboxSpec = { name: 's', runtime: 'python', toolsSource: '', hostTools: [], credentials: {} };
const job = { code: 'emit_result(1)', tools: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 20 };

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('the pool picks the idle worker that rested longest', () => {
  it('sequential jobs alternate between the two idle workers', async () => {
    const pool = new SandboxPool(spec, new Factory(), {
      minSize: 2,
      maxSize: 2,
      maxJobsPerWorker: 100,
      idleMs: 60_000,
      queueTimeoutMs: 10_000,
      standby: 0,
    });
    try {
      await pool.warm();
      await expect.poll(() => pool.status().size).toBe(2);
      const pids: unknown[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await pool.run(job);
        expect(r.success).toBe(true);
        pids.push(r.data);
      }
      expect(new Set(pids).size).toBe(2);
      for (let i = 1; i < pids.length; i++) expect(pids[i]).not.toBe(pids[i - 1]);
    } finally {
      await pool.dispose();
    }
  });
});

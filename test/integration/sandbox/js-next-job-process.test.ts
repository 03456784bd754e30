/**
 * A JS job's process made ahead (docs/scaling.md, "JS jobs: the next job's process made ahead"): where the
 * launcher's walls hold (docker on runc, bubblewrap; gVisor, where bun's jobs are rooted), the node worker
 * starts the next job's process (the launcher, its walls, the runtime, worker.mjs loaded, waiting on its
 * IPC channel) once it has loaded and after each job's end, sweep and wipe, never beside a running job.
 * Looked at from the host (the worker's processes: `docker top`, or /proc under the bubblewrap process;
 * on gVisor the sandbox's /proc, read beside the worker) while a job holds in a host tool call.
 * The script is handed its process's own powers (`jsescape`) to attack what it could reach; the sweep and
 * wipe stay on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { ToolResponse } from '../../../src-main/core/tools/model.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import type { WorkerConnection } from '../../../src-main/infra/sandbox/connection.ts';
import { bubblewrapFactory, dockerFactory, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { jsIn, signalLaunched, until } from './support/container-exec.ts';

const docker = new Docker();
const WALLS_OFF = ['jsescape'];

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  state: string;
}

/**
 * Every process of the worker (host pids): its container's (docker top), or below its bwrap process; on
 * gVisor the sandbox's own (its /proc read beside the worker, the reading process left out: the sandbox
 * kernel's pids, which no host process can signal).
 */
async function processes(level: string, id: string, runtime: string): Promise<Proc[]> {
  if (level === 'gvisor') {
    const out = await jsIn(
      id,
      runtime,
      `const fs = process.getBuiltinModule('node:fs'); const all = [];
for (const d of fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) {
  try { const s = fs.readFileSync('/proc/' + d + '/stat', 'latin1'); const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    if (Number(d) !== process.pid) all.push({ pid: Number(d), comm: s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')), state: rest[0], ppid: Number(rest[1]) }); } catch {}
}
console.log(JSON.stringify(all));`,
    );
    return JSON.parse(out) as Proc[];
  }
  if (level === 'docker') {
    const top = (await docker.getContainer(id).top({ ps_args: '-o pid,ppid,stat,comm' })) as {
      Titles: string[];
      Processes: string[][] | null;
    };
    const col = (t: string) => top.Titles.findIndex((x) => x.toUpperCase() === t);
    const [pid, ppid, stat, comm] = [col('PID'), col('PPID'), col('STAT'), col('COMMAND')];
    return (top.Processes ?? []).map((p) => ({
      pid: Number(p[pid]),
      ppid: Number(p[ppid]),
      state: (p[stat] ?? '').slice(0, 1),
      comm: p[comm] ?? '',
    }));
  }
  const all: Proc[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      all.push({
        pid: Number(d),
        comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        state: rest[0] ?? '',
        ppid: Number(rest[1]),
      });
    } catch {
      /* gone */
    }
  }
  const below = new Set([Number(id)]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (!below.has(p.pid) && below.has(p.ppid)) {
        below.add(p.pid);
        grew = true;
      }
  }
  return all.filter((p) => below.has(p.pid) && p.pid !== Number(id));
}

/** The job processes (a job's, or the one waiting for the next job): the launchers' live children. */
async function jobProcesses(level: string, id: string, runtime: string): Promise<Proc[]> {
  const ps = await processes(level, id, runtime);
  const launchers = new Set(ps.filter((p) => p.comm === 'jobns-launch' && p.state !== 'Z').map((p) => p.pid));
  return ps.filter((p) => launchers.has(p.ppid) && p.state !== 'Z');
}

/**
 * Sends `sig` to the job processes waiting for a job, found from inside the container (their parent is a
 * launcher); returns their pids there.
 */
const signalWaiting = (
  level: string,
  runtime: string,
  id: string,
  hostPid: number,
  sig: string,
): Promise<number[]> =>
  level !== 'process'
    ? signalLaunched(id, runtime, sig)
    : Promise.resolve((process.kill(hostPid, sig as NodeJS.Signals), [hostPid]));

/** The script's side of `jsescape`: `sys(op, ...args)` answers the op's value, or throws its error code. */
const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };
const trySys = (op, ...args) => { try { return sys(op, ...args); } catch (e) { return 'error: ' + e.message; } };
const startTicks = () => { const s = sys('read', '/proc/self/stat'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[19]); };
`;

for (const [level, runtime, make] of [
  ['docker', 'node', () => dockerFactory({ wallsOff: WALLS_OFF })],
  ['process', 'node', async () => bubblewrapFactory({ wallsOff: WALLS_OFF })],
  ['docker', 'bun', () => dockerFactory({ wallsOff: WALLS_OFF })],
  // (deno's job process with every permission under jsescape, as if deno's own had fallen: worker.mjs)
  ['docker', 'deno', () => dockerFactory({ wallsOff: WALLS_OFF })],
  // (rooted: the waiting process has a tree of its own under /mnt and a uid of its own)
  ['gvisor', 'bun', () => dockerFactory({ runtime: 'runsc', wallsOff: WALLS_OFF })],
] as const) {
  describe(`a JS job's process made ahead: ${level}, ${runtime}`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    let credentials: Record<string, string> = { FIRST: 'one', SECOND: 'two' };
    let held: (() => void) | undefined;
    const hold = (): Promise<ToolResponse> =>
      new Promise((resolve) => {
        held = () => resolve({ success: true, data: null });
      });
    /** Lets the held job's `hold` call answer. */
    const release = () => held?.();
    const workerId = () => backend.workerIds('ahead', runtime)?.workers[0] as string;
    const run = (code: string): Promise<ExecutionResult> =>
      backend.execute({
        sandbox: 'ahead',
        runtime,
        language: 'js',
        code: SYS + code,
        bodyStartLine: 1,
        tools: { hold: 'hold' },
        timeoutMs: 30_000,
      });
    /** The worker's connection (the pool's one worker). */
    let lastConn: WorkerConnection | undefined;
    const linesOf = (c: WorkerConnection) =>
      (c as unknown as { stderr: { lines(): string[] } }).stderr.lines();
    const conn = () => {
      const c = (
        backend as unknown as {
          pools: Map<string, { workers: { conn: WorkerConnection }[] }>;
        }
      ).pools.get(`ahead:${runtime}`)?.workers[0]?.conn;
      if (c) return (lastConn = c);
      // (a worker gone between cases: its cause, not a TypeError)
      throw new Error(
        `the pool has no worker; the last one's stderr ended with:\n${lastConn ? linesOf(lastConn).slice(-8).join('\n') : '(no worker seen)'}`,
      );
    };
    /**
     * The process waiting for the next job, once the worker has said it is ready (`next_ready`, after the
     * last job's sweep or the last load) and it is the only job process.
     */
    const waitingProcess = () =>
      until('the process waiting for the next job', async () => {
        if (conn().nextReady !== true) return undefined;
        const ps = await jobProcesses(level, workerId(), runtime);
        return ps.length === 1 ? ps[0] : undefined;
      });
    /** What the worker wrote to its stderr (its last lines). */
    const stderrOf = () => linesOf(conn());
    /** Whether the worker says a job is running (its `pong`). */
    const busy = () =>
      new Promise<boolean>((resolve) => {
        const c = conn() as unknown as {
          send(m: object): void;
          listeners: Set<(m: { type: string; busy?: unknown }) => void>;
        };
        const l = (m: { type: string; busy?: unknown }) => {
          if (m.type !== 'pong') return;
          c.listeners.delete(l);
          resolve(m.busy === true);
        };
        c.listeners.add(l);
        c.send({ type: 'ping' });
      });
    const ok = (r: ExecutionResult) => {
      expect(r.error, JSON.stringify(r.error)).toBeUndefined();
      expect(r.success).toBe(true);
      return r.data as Record<string, unknown>;
    };

    beforeAll(async () => {
      factory = await make();
      backend = testBackend(factory, {
        toolsSource: '',
        pool: { minSize: 1, maxSize: 1, standby: 0 },
        hostTools: { hold },
        credentials: () => credentials,
      });
      await backend.warm('ahead', runtime);
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    // (first: the worker has run no job yet, so a reload loads it in place rather than replacing it)
    it('loaded: a process waits; a reload discards it for a new one, and the next job has the new credentials', async () => {
      const before = await waitingProcess();
      const id = workerId();
      credentials = { FIRST: 'one' };
      await backend.reload('ahead');
      expect(workerId()).toBe(id); // (loaded in place: the same worker)
      const after = await waitingProcess();
      expect(after.pid).not.toBe(before.pid);
      expect((await processes(level, id, runtime)).some((p) => p.pid === before.pid && p.state !== 'Z')).toBe(
        false,
      );
      const r = await run(
        `const one = credential('FIRST');\nlet two;\ntry { credential('SECOND'); two = 'read'; } catch (e) { two = e.message; }\nemitResult({ one, two });\n`,
      );
      expect(ok(r)).toEqual({ one: 'one', two: expect.stringMatching(/"SECOND" is not declared/) });
    }, 120_000);

    it('a job runs beside no other job process; once its result is out, the next one waits', async () => {
      held = undefined;
      const job = run(`await hold({});\nemitResult('held');\n`);
      await until('the job to hold', async () => (held ? true : undefined));
      const running = await jobProcesses(level, workerId(), runtime);
      expect(running).toHaveLength(1);
      release();
      expect(ok(await job)).toBe('held');
      // made after the job (its own process gone), without another job asking for it
      expect((await waitingProcess()).pid).not.toBe(running[0]?.pid);
    }, 120_000);

    it('what a job leaves (a daemon, files in /tmp and /dev/shm) and what it looks for: the next job finds nothing', async () => {
      const a = ok(
        await run(`const me = sys('pid');
sys('write', '/tmp/js-ahead-left', 'secret'); sys('write', '/dev/shm/js-ahead-left', 'secret');
const daemon = sys('leave', sys('read', '/proc/self/cmdline').split('\\0')[0], ${JSON.stringify(runtime === 'deno' ? 'eval' : '-e')}, 'setInterval(() => {}, 1000)');
// (kill() answers for any thread's id: its own threads' and the daemon's are its own processes)
const tgid = (p) => Number(/^Tgid:\\s*(\\d+)/m.exec(trySys('read', '/proc/' + p + '/status'))?.[1] ?? p);
const inProc = sys('list', '/proc').filter((n) => /^\\d+$/.test(n)).map(Number).filter((p) => p !== me && p !== daemon);
const signalled = [];
for (let p = 1; p <= 400; p++) if (trySys('kill', p) === true && ![me, daemon].includes(tgid(p))) signalled.push(p);
const up = Number(sys('read', '/proc/uptime').split(' ')[0]);
emitResult({ inProc, signalled, daemon: typeof daemon, up: Math.floor(up * 100) });
`),
      );
      // (nothing but itself and its daemon: no process waiting for the next job beside it)
      expect(a).toMatchObject({ inProc: [], signalled: [], daemon: 'number' });
      await waitingProcess();
      const b = ok(
        await run(`const me = sys('pid');
emitResult({ tmp: sys('list', '/tmp').filter((n) => n.startsWith('js-ahead')),
  shm: sys('list', '/dev/shm').filter((n) => n.startsWith('js-ahead')),
  inProc: sys('list', '/proc').filter((n) => /^\\d+$/.test(n)).map(Number).filter((p) => p !== me),
  start: startTicks() });
`),
      );
      expect(b).toMatchObject({ tmp: [], shm: [], inProc: [] });
      // the next job's process was started after the last thing the job did (not beside it)
      expect(b['start'] as number).toBeGreaterThanOrEqual((a['up'] as number) - 1);
    }, 120_000);

    it('a waiting process killed from outside: the next job runs, and a new one waits after it', async () => {
      const waiting = await waitingProcess();
      const hit = await signalWaiting(level, runtime, workerId(), waiting.pid, 'SIGKILL');
      expect(hit).toHaveLength(1);
      expect(ok(await run(`emitResult(6 * 7);\n`))).toBe(42);
      const next = await waitingProcess();
      expect(next.pid).not.toBe(waiting.pid);
    }, 120_000);

    it('a waiting process that dies holding its job (stopped, then killed): the job runs in a fresh one', async () => {
      const waiting = await waitingProcess();
      expect(await signalWaiting(level, runtime, workerId(), waiting.pid, 'SIGSTOP')).toHaveLength(1);
      const job = run(`emitResult(sys('pid'));\n`);
      // the worker holds the job (handed to the stopped process, which cannot say it took it)
      await until('the worker to hold the job', async () => ((await busy()) ? true : undefined));
      expect(await signalWaiting(level, runtime, workerId(), waiting.pid, 'SIGKILL')).toHaveLength(1);
      expect(ok(await job)).toBe(1);
      expect(stderrOf().join('\n')).toMatch(
        /the next job's process ended before it took its job \(SIGKILL\); the job starts a fresh one/,
      );
      await waitingProcess();
    }, 120_000);

    it('a waiting process that died unseen (the worker stopped meanwhile): the job sent to it runs in a fresh one', async () => {
      const waiting = await waitingProcess();
      // the worker: the waiting process's launcher's parent
      const ps = await processes(level, workerId(), runtime);
      const worker = ps.find((p) => p.pid === ps.find((q) => q.pid === waiting.ppid)?.ppid);
      if (!worker) throw new Error(`no worker process among ${JSON.stringify(ps)}`);
      // (gVisor: the sandbox kernel's pids, signalled from inside the sandbox)
      const signal = (pid: number, sig: string) =>
        level === 'gvisor'
          ? jsIn(workerId(), runtime, `process.kill(${pid}, ${JSON.stringify(sig)})`)
          : process.kill(pid, sig);
      // Stopped, the worker hears of the death only after the job's line: it sends the job to a process
      // that has ended (its write fails: EPIPE).
      await signal(worker.pid, 'SIGSTOP');
      let job: Promise<ExecutionResult>;
      try {
        await signal(waiting.pid, 'SIGKILL');
        job = run(`emitResult(sys('pid'));\n`);
        // (time for the job's line to reach the worker's input before it runs again)
        await new Promise((r) => setTimeout(r, 500));
      } finally {
        await signal(worker.pid, 'SIGCONT');
      }
      expect(ok(await job)).toBe(1);
      expect(stderrOf().join('\n')).toMatch(
        /ended before it took its job \(SIGKILL\); the job starts a fresh one/,
      );
      await waitingProcess();
    }, 120_000);
  });
}

/**
 * A job asking for another heap than the waiting process was started with (`max_old_space_mb`, a protocol
 * field): it gets a fresh process with its own; the next job the default again. Driven on one worker's
 * connection (the host sends no such field today). deno: the job waits until the waiting process's
 * launcher has ended (its cleanup after it ends every process but the worker's, so the job's own may not
 * start beside it).
 */
describe.each(['node', 'deno'] as const)(
  "a JS job's process made ahead: a job with another heap size (docker, %s)",
  (runtime) => {
    let factory: TestFactory;
    let conn: WorkerConnection;
    beforeAll(async () => {
      factory = await dockerFactory({ wallsOff: WALLS_OFF });
      const spec = { name: 'heap', runtime, toolsSource: '', hostTools: [], credentials: {} };
      ({ conn } = await factory.spawn(spec));
      await conn.load({ source: '', hostTools: [], credentials: [] });
    }, 300_000);
    afterAll(async () => {
      await conn?.kill('test over').catch(() => {});
      await factory?.dispose();
    });
    type Line = { type: string; id?: unknown; kind?: unknown; data?: unknown; ok?: unknown };
    /** One job sent as the protocol's line (with `extra` fields); its result, or its error. */
    const job = (id: string, extra: object) =>
      new Promise<unknown>((resolve, reject) => {
        const c = conn as unknown as { send(m: object): void; listeners: Set<(m: Line) => void> };
        let result: unknown;
        const l = (m: Line) => {
          if (m.id !== id) return;
          if (m.type === 'emit' && m.kind === 'result') result = m.data;
          if (m.type === 'done') {
            c.listeners.delete(l);
            if (m.ok === true) resolve(result);
            else reject(new Error(JSON.stringify(m)));
          }
        };
        c.listeners.add(l);
        c.send({
          type: 'job',
          id,
          code:
            SYS +
            // (deno: in its --v8-flags)
            `emitResult(/--max-old-space-size=\\d+/.exec(sys('read', '/proc/self/cmdline'))?.[0]);\n`,
          language: 'js',
          tools: {},
          timeout_ms: 30_000,
          max_output_bytes: 51_200,
          ...extra,
        });
      });

    it('gets its own heap; the next job the default', async () => {
      expect(await job('h1', {})).toBe('--max-old-space-size=192');
      expect(await job('h2', { max_old_space_mb: 96 })).toBe('--max-old-space-size=96');
      expect(await job('h3', {})).toBe('--max-old-space-size=192');
    }, 120_000);
  },
);

/**
 * JS runtimes on gVisor (docs/sandboxes.md, "Between jobs"), where gVisor refuses a JS job's user
 * namespace mounts, so each bun and deno job is "rooted" by the launcher as the Python job there: pid and
 * IPC namespaces and a tree of its own it is chrooted into, a uid of its own, no capability, the job filter:
 * - a bun or deno job is pid 1 of a namespace of its own under a uid other than the worker's, and (sweep
 *   and wipe off, the script handed its process's powers; deno's job process then runs with `-A`, as if
 *   deno's permissions had fallen too) reaches no process, fd, environment or memory outside it, signals
 *   none and writes nothing of the sandbox's (before: a plain child process of the worker under its uid,
 *   which listed the worker's fds and read its environment; deno's until it went through the launcher);
 * - each job's process reports its walls before its job: one short of its uid (a test switch skips it
 *   in the job, not in the launcher's probe) is refused, the wall named, and its script never runs;
 * - node is refused before any container is made, the error naming why and what to choose instead (runsc
 *   will not load the execute-only node binary; before, the first job failed with runsc's own
 *   "failed to load /usr/local/bin/node: permission denied").
 * - a process a job daemonized, killed by the sweep, is reaped (Docker's init below the worker): before,
 *   it stayed the worker's zombie (bun and node reap only the processes they started), one pid per job
 *   held until the worker was replaced. Written as the attack: TOOLSMITH_TEST_WALLS=jsescape hands the
 *   script its process's powers; the sweep stays on.
 */
import { spawnSync } from 'node:child_process';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { gvisorBun } from './support/gvisor-bun.ts';

const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };
`;

describe('JS on gVisor', () => {
  const docker = new Docker();
  const g = gvisorBun('jsgvisor', ['jsescape'], { timeoutMs: 30_000 });
  const run = (runtime: 'node' | 'bun' | 'deno', code: string) => g.run(code, runtime);
  const mine = () =>
    docker.listContainers({
      all: true,
      filters: { label: ['toolsmith.pool=1', `toolsmith.owner=${process.pid}`] },
    });

  // gVisor refuses mounts in a child user namespace: the launcher roots the job instead (the other levels:
  // js-jobns.test.ts).
  it.each(['bun', 'deno'] as const)(
    'a %s job is pid 1 of a pid namespace of its own, under a job uid',
    async (runtime) => {
      const r = await run(
        runtime,
        `${SYS}const t = (f) => { try { return f(); } catch (e) { return 'error: ' + e.message; } };
emitResult({ pid: sys('pid'), ppid: sys('ppid'), uid: t(() => sys('uid')) });\n`,
      );
      expect(r.error).toBeUndefined();
      const d = r.data as { pid: number; ppid: number; uid: number };
      expect(d.pid).toBe(1);
      expect(d.ppid).toBe(0);
      expect(d.uid).toBeGreaterThanOrEqual(100000);
    },
    120_000,
  );

  it('node is refused up front: the cause named and what to choose instead, no container started', async () => {
    const before = (await mine()).length;
    const r = await run('node', 'emitResult(1);\n');
    expect(r.exitReason).toBe('infra');
    expect(r.error?.message).toMatch(/node runtime cannot run under gVisor/);
    expect(r.error?.message).toMatch(/execute-only/);
    expect(r.error?.message).toMatch(
      /choose isolation "docker" or "process" for this sandbox, or the bun runtime/,
    );
    expect(r.error?.message).not.toMatch(/OCI runtime/);
    expect((await mine()).length).toBe(before);
  }, 120_000);

  // (found 2026-12-05: with 96 host tasks for the sandbox kernel beside the 64, the sentry could not make
  // a thread and the sandbox died, runsc exiting 2: every time with this job, about one job in twenty
  // that left a loopback daemon and connected to it; docs/scaling.md, "gVisor's host tasks")
  it('bun: a job running seven bun programs at once (daemons on loopback, a client) ends as it should, on the same sandbox', async () => {
    expect((await run('bun', 'emitResult(0);\n')).data).toBe(0);
    const ids = async () => (await mine()).map((c) => c.Id).sort();
    const before = await ids();
    const client = `const net = require('net'); const got = {}; let left = 20;
const go = (p) => { const c = net.connect({ port: p, host: '127.0.0.1' }); let d = ''; c.on('data', (x) => (d += x));
  c.on('end', () => { got[p] = (got[p] || 0) + 1; if (--left === 0) { console.log(JSON.stringify(got)); process.exit(0); } });
  c.on('error', () => setTimeout(() => go(p), 100)); };
for (const p of [5000, 5001, 5002, 5003]) for (let n = 0; n < 5; n++) go(p);`;
    const r = await run(
      'bun',
      `${SYS}const server = (p) => "require('net').createServer((s) => s.end('from " + p + "')).listen(" + p + ", '127.0.0.1'); setInterval(() => {}, 1000);";
for (const p of [5000, 5001, 5002, 5003]) sys('leave', '/usr/local/bin/bun', '-e', server(p));
const c = sys('run', '/usr/local/bin/bun', '-e', ${JSON.stringify(client)});
emitResult({ status: c.status, got: JSON.parse(c.stdout) });\n`,
    );
    expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    expect(r.data).toEqual({ status: 0, got: { 5000: 5, 5001: 5, 5002: 5, 5003: 5 } });
    expect(await ids()).toEqual(before);
  }, 300_000);

  it('bun: 30 jobs that each leave a daemonized survivor leave no zombie behind', async () => {
    const failed: string[] = [];
    for (let i = 0; i < 30; i++) {
      // a detached child of the job (its own session), alive when the job ends: the sweep kills it
      const r = await run(
        'bun',
        `${SYS}sys('leave', '/usr/local/bin/bun', '-e', 'setInterval(() => {}, 1000)');\nemitResult(${i});\n`,
      );
      if (r.data !== i) failed.push(`${i}: ${r.exitReason} ${JSON.stringify(r.error)}`);
    }
    expect(failed).toEqual([]);
    const r = await run(
      'bun',
      `${SYS}const me = sys('pid');
const states = sys('list', '/proc').filter((n) => /^\\d+$/.test(n)).map(Number).filter((p) => p !== me).map((p) => {
  try { const s = sys('read', '/proc/' + p + '/stat'); return { pid: p, state: s.slice(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3) }; } catch (e) { return { pid: p, state: 'gone' }; }
});
emitResult(states);\n`,
    );
    expect(r.error).toBeUndefined();
    const states = r.data as { pid: number; state: string }[];
    expect(states.filter((s) => s.state === 'Z')).toEqual([]);
    // the worker and the init above it; no survivor of the earlier jobs either
    expect(states.filter((s) => s.state !== 'gone').length).toBeLessThanOrEqual(2);
    // the init is no way in: a job's pid 1 is itself (its /proc is of its own pid namespace)
    const init = await run('bun', `${SYS}emitResult({ cmd: sys('read', '/proc/1/cmdline') });\n`);
    expect(init.error).toBeUndefined();
    const d = init.data as { cmd: string };
    expect(d.cmd).toMatch(/--job/);
    expect(d.cmd).not.toMatch(/docker-init/);
  }, 600_000);

  it('deno runs below the init too', async () => {
    const r = await run('deno', 'emitResult(6 * 7);\n');
    expect(r.error).toBeUndefined();
    expect(r.data).toBe(42);
  }, 300_000);
});

/** The sandbox's side, read from outside the job (docker exec: a process beside the worker, not a job). */
function inSandbox(
  id: string,
  runtime: 'bun' | 'deno',
): {
  workerUid: number;
  tmp: string[];
  trees: string[];
  treeMounts: string[];
  /** The processes of job uids: pid, uid, their launcher (whose pid names their tree), made ahead. */
  jobs: { pid: number; uid: number; ppid: number; ahead: boolean }[];
} {
  const code = `const fs = process.getBuiltinModule('node:fs');
let workerUid = -1;
for (const p of fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) {
  try {
    // (by its arguments: deno's worker names the launcher in its --allow-run)
    const argv = fs.readFileSync('/proc/' + p + '/cmdline', 'latin1').split('\\0');
    if (!argv.includes('/opt/toolsmith/worker.mjs') || argv.includes('--job') || argv[0].endsWith('jobns-launch')) continue;
    workerUid = Number(/^Uid:\\s+(\\d+)/m.exec(fs.readFileSync('/proc/' + p + '/status', 'latin1'))[1]);
  } catch {}
}
const treeMounts = fs.readFileSync('/proc/self/mountinfo', 'latin1').split('\\n').map((l) => l.split(' ')[4]).filter((m) => m?.startsWith('/mnt/'));
const jobs = [];
for (const p of fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) {
  try { const st = fs.readFileSync('/proc/' + p + '/status', 'latin1'); const uid = Number(/^Uid:\\s+(\\d+)/m.exec(st)[1]);
    if (uid >= 100000) jobs.push({ pid: Number(p), uid, ppid: Number(/^PPid:\\s+(\\d+)/m.exec(st)[1]), ahead: fs.readFileSync('/proc/' + p + '/cmdline', 'latin1').split('\\0').includes('--ahead') }); } catch {}
}
console.log(JSON.stringify({ workerUid, tmp: fs.readdirSync('/tmp'), trees: fs.readdirSync('/mnt'), treeMounts, jobs }));`;
  const r = spawnSync(
    'docker',
    ['exec', id, `/usr/local/bin/${runtime}`, runtime === 'deno' ? 'eval' : '-e', code],
    { encoding: 'utf8', timeout: 60_000 }, // (one that never returns fails here, not the whole file)
  );
  if (r.status !== 0) throw new Error(`docker exec: ${r.status ?? r.signal} ${r.stderr}`);
  return JSON.parse(r.stdout) as ReturnType<typeof inSandbox>;
}

// (deno: its job's process has every permission under jsescape, as if deno's own had fallen: worker.mjs)
describe.each(['bun', 'deno'] as const)(
  '%s jobs on gVisor: a uid and a tree of their own (sweep and wipe off)',
  (runtime) => {
    const docker = new Docker();
    const g = gvisorBun(`jsgvisoralone${runtime}`, ['jsescape', 'nosweep', 'nowipe', 'noipcfilter']);
    const run = (code: string) => g.run(code, runtime);

    it("the job reaches no fd, environment, memory or signal of the worker, runs under a uid not the worker's, and writes none of its files", async () => {
      // Every pid a sandbox this young can have but the job's own (its threads): each /proc file of
      // each, and a signal 0.
      const attack = `${SYS}const me = sys('pid');
const t = (f) => { try { return f(); } catch (e) { return 'error: ' + e.message; } };
// (its own threads' ids open as /proc/<tid> too: they are its own)
const own = new Set(sys('list', '/proc/self/task').map(Number));
const reached = [];
for (let p = 1; p <= 200; p++) {
  if (p === me || own.has(p)) continue;
  for (const [what, f] of [['fd', () => sys('list', '/proc/' + p + '/fd')], ['fd/1', () => sys('write', '/proc/' + p + '/fd/1', '{"type":"pong"}\\n')], ['environ', () => sys('read', '/proc/' + p + '/environ')], ['mem', () => sys('read', '/proc/' + p + '/mem')], ['kill', () => sys('kill', p)]]) {
    const r = t(f);
    if (typeof r !== 'string' || !r.startsWith('error: ')) reached.push(p + ' ' + what);
  }
}
emitResult({ pid: me, uid: t(() => sys('uid')), gid: t(() => sys('gid')), procs: sys('list', '/proc').filter((n) => /^\\d+$/.test(n)), reached, tmp: t(() => sys('write', '/tmp/left-by-a-job', 'x')),
  caps: ['CapInh', 'CapPrm', 'CapEff'].map((k) => new RegExp('^' + k + ':\\\\s+(\\\\S+)', 'm').exec(sys('read', '/proc/self/status'))?.[1] ?? k + ' not listed') });
`;
      const a = await run(attack);
      expect(a.error).toBeUndefined();
      const d = a.data as {
        pid: number;
        uid: number;
        gid: number;
        procs: string[];
        reached: string[];
        tmp: unknown;
        caps: string[];
      };
      expect(d.reached).toEqual([]);
      // (the worker is root holding JOB_UID_CAPS: none of them reaches the job; gVisor has no ambient set)
      expect(d.caps).toEqual(Array(3).fill('0000000000000000'));
      expect(d.procs).toEqual(['1']);
      expect(d.pid).toBe(1);
      expect(d.tmp).toBe(true); // (its own /tmp)
      const [c] = await docker.listContainers({
        filters: { label: [`toolsmith.owner=${process.pid}`, `toolsmith.sandbox=jsgvisoralone${runtime}`] },
      });
      expect(c).toBeDefined();
      // (once the next job's process waits: made after this job's end, in a tree of its own; bun only:
      // deno's rooted jobs each start their process on arrival, worker.mjs AHEAD)
      const ahead = runtime === 'bun';
      let sandbox = inSandbox(c!.Id, runtime);
      for (
        let i = 0;
        i < 100 &&
        !(ahead ? sandbox.jobs.length === 1 && sandbox.jobs[0]!.ahead : sandbox.trees.length === 0);
        i++
      ) {
        await new Promise((r) => setTimeout(r, 100));
        sandbox = inSandbox(c!.Id, runtime);
      }
      expect(sandbox.workerUid).toBeGreaterThanOrEqual(0);
      expect(d.uid).not.toBe(sandbox.workerUid);
      expect(d.gid).not.toBe(sandbox.workerUid);
      expect(d.uid).toBeGreaterThanOrEqual(100000);
      // what it wrote is in a tmpfs of its own, not the sandbox's /tmp (the worker's folder): no wipe here
      expect(sandbox.tmp).not.toContain('left-by-a-job');
      // its tree went with it (unmounted by its launcher): the one tree left is the next job's process's,
      // waiting under another uid (docs/scaling.md, "JS jobs: the next job's process made ahead"); deno: none
      if (!ahead)
        expect({ jobs: sandbox.jobs, trees: sandbox.trees, treeMounts: sandbox.treeMounts }).toEqual({
          jobs: [],
          trees: [],
          treeMounts: [],
        });
      const waiting = ahead ? sandbox.jobs[0] : undefined;
      if (waiting) {
        expect(sandbox.jobs).toEqual([
          { pid: expect.any(Number), uid: expect.any(Number), ppid: expect.any(Number), ahead: true },
        ]);
        expect(waiting.uid).not.toBe(d.uid);
        expect(sandbox.trees).toEqual([String(waiting.ppid)]);
        expect(sandbox.treeMounts.length).toBeGreaterThan(0);
        expect(
          sandbox.treeMounts.filter(
            (m) => m !== `/mnt/${waiting.ppid}` && !m.startsWith(`/mnt/${waiting.ppid}/`),
          ),
        ).toEqual([]);
      }
      // the next job: another uid, and nothing of the first
      const b =
        await run(`${SYS}const t = (f) => { try { return f(); } catch (e) { return 'error: ' + e.message; } };
emitResult({ uid: sys('uid'), tmp: sys('list', '/tmp') });\n`);
      expect(b.error).toBeUndefined();
      const e = b.data as { uid: number; tmp: string[] };
      expect(e.uid).not.toBe(d.uid);
      if (waiting) expect(e.uid).toBe(waiting.uid); // (it ran in the process that waited)
      expect(e.uid).not.toBe(sandbox.workerUid);
      expect(e.tmp).not.toContain('left-by-a-job');
    }, 300_000);
  },
);

describe("bun and deno jobs on gVisor: each job's process reports its walls", () => {
  // `jobskip-uid`: the launcher leaves the job's process root's uid (the probe still makes every wall)
  const { run } = gvisorBun('jsgvisorskip', ['jsescape', 'jobskip-uid']);

  it.each(['bun', 'deno'] as const)(
    '%s: a process short of its uid is not given the job: refused, the wall named, the script never run',
    async (runtime) => {
      const r = await run(`${SYS}emitLog('the script ran');\nemitResult(sys('pid'));\n`, runtime);
      expect(r.exitReason).toBe('crashed');
      expect(r.error?.type).toBe('WallsMissing');
      expect(r.error?.message).toMatch(
        /lacks walls it must have: uid \(it runs under the worker's uid 0\); it was not given the job/,
      );
      expect(r.data).toBeUndefined();
      expect(JSON.stringify(r.logs)).not.toMatch(/the script ran/);
    },
    300_000,
  );
});

describe('bun and deno on gVisor with the job launcher off (a worker of root never runs a plain job)', () => {
  const { run } = gvisorBun('jsgvisornojobns', ['nojobns'], { minSize: 0 });

  it.each(['bun', 'deno'] as const)(
    '%s: the worker stops at its start, saying why, and no job runs',
    async (runtime) => {
      const r = await run(`emitLog('the script ran');\nemitResult(1);\n`, runtime);
      expect(r.success).toBe(false);
      expect(r.data).toBeUndefined();
      expect(r.error?.message).toMatch(
        /JS jobs would run as root with the worker's capabilities: the job launcher is switched off \(nojobns\); the worker stops/,
      );
    },
    300_000,
  );
});

describe("a job's done read late by its worker on gVisor (no pidfd there)", () => {
  // `readlate`: the worker stays off its event loop for 1 s once it has handed the job over, so the job
  // has sent its done before the worker reads it. bun (oven-sh/bun#37849, where it has no pidfd) and
  // deno (denoland/deno#33085) dropped that message when the job's process exited first: the job read
  // "the script process died (0)".
  const g = gvisorBun('jsgvisorreadlate', ['readlate'], { timeoutMs: 30_000 });

  for (const runtime of ['bun', 'deno'] as const)
    it(`${runtime}: every result arrives`, async () => {
      for (let i = 0; i < 3; i++) {
        const r = await g.run(`emitResult(${i});\n`, runtime);
        expect(r.error, JSON.stringify(r.error)).toBeUndefined();
        expect(r.data).toBe(i);
      }
    }, 300_000);
});

/**
 * The second wall alone on gVisor: with the job's pid and IPC namespaces and its tree off (`launchplain`,
 * a test switch: the launcher starts each job's process as a plain fork under its job uid, its filter
 * kept), what a deno job leaves must still be gone for the next: its launcher (`--clean`) ends every
 * process of the job's uid and empties the sandbox's writable mounts back to what they held, as the job's
 * uid, and removes the SysV IPC objects it left. Before, deno's worker had neither sweep nor wipe: the
 * survivor, the files and the IPC objects stayed.
 */
describe('deno jobs on gVisor with their namespaces and tree off: the launcher sweeps and wipes', () => {
  const docker = new Docker();
  const g = gvisorBun('jsgvisorplain', ['jsescape', 'launchplain', 'noipcfilter'], { timeoutMs: 60_000 });
  const run = (code: string) => g.run(code, 'deno');
  const STATES = `const state = (p) => { try { const s = sys('read', '/proc/' + p + '/stat'); return s.slice(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3); } catch (e) { return 'gone'; } };\n`;

  it('a detached survivor and files in /tmp and /dev/shm are gone for the next job', async () => {
    const a =
      await run(`${SYS}${STATES}const child = sys('leave', '/usr/local/bin/deno', 'eval', 'setInterval(() => {}, 1000)');
sys('write', '/tmp/js-plain-left', 'secret'); sys('write', '/dev/shm/js-plain-left', 'secret');
emitResult({ pid: sys('pid'), uid: sys('uid'), child, state: state(child) });
`);
    expect(a.error, JSON.stringify(a.error)).toBeUndefined();
    const d = a.data as { pid: number; uid: number; child: number; state: string };
    // (the walls were off: no pid 1 of its own; the survivor ran when the job ended)
    expect(d.pid).not.toBe(1);
    expect(d.uid).toBeGreaterThanOrEqual(100000);
    expect(d.state).toMatch(/^[RS]$/);
    const worker = g.backend.workerIds('jsgvisorplain', 'deno')?.workers ?? [];
    expect(worker).toHaveLength(1);
    const b = await run(
      `${SYS}${STATES}emitResult({ state: state(${d.child}), tmp: sys('list', '/tmp').filter((n) => n.startsWith('js-plain')), shm: sys('list', '/dev/shm').filter((n) => n.startsWith('js-plain')) });\n`,
    );
    expect(b.error, JSON.stringify(b.error)).toBeUndefined();
    expect(g.backend.workerIds('jsgvisorplain', 'deno')?.workers).toEqual(worker);
    expect(b.data).toEqual({ state: expect.stringMatching(/^(gone|Z)$/), tmp: [], shm: [] });
  }, 300_000);

  it('SysV shared memory, message queues and semaphore sets a job makes are gone for the next', async () => {
    // (made by a program the job runs: deno's FFI calling libc; gVisor ignores Docker's IPC sysctls of 0)
    const ffi = (calls: string) =>
      `const libc = Deno.dlopen('libc.so.6', { shmget: { parameters: ['i32', 'usize', 'i32'], result: 'i32' }, msgget: { parameters: ['i32', 'i32'], result: 'i32' }, semget: { parameters: ['i32', 'i32', 'i32'], result: 'i32' } }).symbols; console.log(JSON.stringify(${calls}));`;
    const make = (calls: string) =>
      run(
        `${SYS}emitResult(JSON.parse(sys('run', '/usr/local/bin/deno', 'eval', ${JSON.stringify(ffi(calls))}).stdout));\n`,
      );
    const look = () => make('[libc.shmget(0x7357, 0, 0), libc.msgget(0x7357, 0), libc.semget(0x7357, 0, 0)]');
    // a message queue and a semaphore set: removed, and counted gone, so the same worker goes on
    const worker = g.backend.workerIds('jsgvisorplain', 'deno')?.workers ?? [];
    const a = await make('[libc.msgget(0x7357, 0o1600), libc.semget(0x7357, 1, 0o1600)]');
    expect(a.error, JSON.stringify(a.error)).toBeUndefined();
    // (made: each id >= 0)
    expect(
      (a.data as number[]).every((id) => id >= 0),
      JSON.stringify(a.data),
    ).toBe(true);
    const b = await look();
    expect(b.error, JSON.stringify(b.error)).toBeUndefined();
    expect(b.data).toEqual([-1, -1, -1]);
    expect(g.backend.workerIds('jsgvisorplain', 'deno')?.workers).toEqual(worker);
    // a shared memory segment: removed, but runsc 20221219 keeps counting it (SHM_INFO), so the launcher
    // cannot prove it gone and the worker stops: the next job may run in a new sandbox; found either way
    // by none. (Before, the same worker ran both and the next found all three.)
    const c = await make('[libc.shmget(0x7357, 4096, 0o1600)]');
    expect(c.error, JSON.stringify(c.error)).toBeUndefined();
    expect((c.data as number[])[0]).toBeGreaterThanOrEqual(0);
    const d = await look();
    expect(d.error, JSON.stringify(d.error)).toBeUndefined();
    expect(d.data).toEqual([-1, -1, -1]);
  }, 300_000);

  it("a file the cleanup cannot remove (root's, in the sticky /tmp) stops the worker after that job; the next runs on another", async () => {
    const worker = g.backend.workerIds('jsgvisorplain', 'deno')?.workers ?? [];
    expect(worker).toHaveLength(1);
    const [c] = await docker.listContainers({
      filters: { label: [`toolsmith.owner=${process.pid}`, 'toolsmith.sandbox=jsgvisorplain'] },
    });
    if (!c) throw new Error('no worker container');
    // the job waits until root's file is there (made while it runs: after its launcher looked)
    const job = run(`${SYS}const until = Date.now() + 40000;
while (Date.now() < until && !sys('list', '/tmp').includes('root-left'));
emitResult(sys('list', '/tmp').includes('root-left'));\n`);
    await new Promise((r) => setTimeout(r, 3000));
    // (detached: the job ends once it sees the file, its worker stops and its sandbox goes, which an
    // attached exec still exiting did not survive under load: `docker exec` then never returned)
    const made = spawnSync(
      'docker',
      [
        'exec',
        '-d',
        '-u',
        '0',
        c.Id,
        '/usr/local/bin/deno',
        'eval',
        "Deno.writeTextFileSync('/tmp/root-left', 'x')",
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(made.status, made.stderr).toBe(0);
    const r = await job;
    expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    expect(r.data).toBe(true);
    const next = await run('emitResult(7);\n');
    expect(next.data).toBe(7);
    expect(g.backend.workerIds('jsgvisorplain', 'deno')?.workers).not.toContain(worker[0]);
    // (why it was replaced reaches the host: the launcher's own words, in the pool's status)
    const pool = g.backend.status().find((p) => p.sandbox === 'jsgvisorplain');
    expect(pool?.lastReplaced?.reason).toMatch(
      /the worker stopped: .*could not clean up after the job \(.*\/tmp\/root-left, which the job left, could not be removed\)/,
    );
  }, 300_000);
});

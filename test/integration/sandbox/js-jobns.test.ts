/**
 * JS jobs alone, by the kernel (docs/sandboxes.md, "Between jobs", rule 0): each node, bun and deno job's process is
 * started by the launcher (sandbox-images/node/native/jobns-launch.c) in user, pid, mount and IPC
 * namespaces of its own, with the Python job's walls. Written as the attack: the script has escaped the
 * language (TOOLSMITH_TEST_WALLS=jsescape hands it its process's own powers: /proc, signals, files,
 * programs; under deno its job's process then runs with every permission, `-A`, as if deno's own had
 * fallen), and the walls behind the namespaces (the worker's sweep and wipe) are off (`nosweep`,
 * `nowipe`; deno's worker has neither), so the namespaces hold alone. node has no call for SysV IPC or namespaces: the job runs a
 * small static program for those (test/fixtures/sandbox/jsprobe.c), put where the job can run it: in an
 * image made from the node image (docker), in the worker's folder (bubblewrap).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { ToolResponse } from '../../../src-main/core/tools/model.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory, hostConfig } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import type { WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';
import {
  bubblewrapFactory,
  dockerFactory,
  requireDocker,
  TEST_LIMITS,
  testBackend,
} from '../../support/sandbox.ts';
import { POLL_MS } from '../../support/budgets.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { hostPython } from '../../support/host-python.ts';
import { repoRoot } from '../../support/workspace.ts';
import {
  PROBE_IN_IMAGE,
  probeImage,
  probeOnBubblewrap,
  probeOnDocker,
  useProbe,
  useProbeLevel,
} from './support/jsprobe.ts';
import type { ProbeLevel } from './support/jsprobe.ts';

const WALLS_OFF = ['jsescape', 'nosweep', 'nowipe', 'noipcfilter'];
useProbe();

const LEVELS: ProbeLevel[] = [
  probeOnDocker('node', WALLS_OFF),
  probeOnDocker('bun', WALLS_OFF),
  // (deno's job process with every permission under jsescape, as if deno's own had fallen: worker.mjs)
  probeOnDocker('deno', WALLS_OFF),
  probeOnBubblewrap(WALLS_OFF),
];

/** The script's side: `sys(op, ...args)` answers the op's value, or throws its error code. */
const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };
const trySys = (op, ...args) => { try { return sys(op, ...args); } catch (e) { return 'error: ' + e.message; } };
`;

for (const level of LEVELS) {
  describe(`JS jobs alone, namespaces only (sweep and wipe off): ${level.name}`, () => {
    const made = useProbeLevel(level);
    const run = (body: string): Promise<ExecutionResult> =>
      made().backend.execute({
        sandbox: 'jsjobns',
        runtime: level.runtime,
        language: 'js',
        code: SYS + body,
        bodyStartLine: 1,
        tools: {},
        timeoutMs: 30_000,
      });
    const ok = (r: ExecutionResult) => {
      expect(r.error, JSON.stringify(r.error)).toBeUndefined();
      expect(r.success).toBe(true);
      return r.data as Record<string, unknown>;
    };

    it("no other job's process and not the worker is in its /proc or can be signalled", async () => {
      // job A leaves a survivor in a session of its own; job B looks for it and for the worker
      const a = ok(
        await run(`emitResult({ left: sys('leave', ${JSON.stringify(made().probe)}, 'sleep') });\n`),
      );
      expect(typeof a['left']).toBe('number');
      const b = ok(
        await run(`const me = sys('pid');
const inProc = sys('list', '/proc').filter((n) => /^\\d+$/.test(n)).map(Number).filter((p) => p !== me);
const signalled = [];
// (its own threads answer kill() too: they are its own process)
const mine = sys('list', '/proc/self/task').map(Number);
for (let p = 1; p <= 400; p++) if (!mine.includes(p) && trySys('kill', p) === true) signalled.push(p);
emitResult({ me, ppid: sys('ppid'), inProc, signalled });
`),
      );
      expect(b).toEqual({ me: 1, ppid: 0, inProc: [], signalled: [] });
    }, 120_000);

    it('a file one job writes in /tmp or /dev/shm is not there for the next', async () => {
      ok(
        await run(
          `sys('write', '/tmp/js-left-' + 'behind', 'secret'); sys('write', '/dev/shm/js-left-behind', 'secret');\nemitResult(sys('list', '/tmp').includes('js-left-behind'));\n`,
        ),
      );
      const b = ok(
        await run(
          `emitResult({ tmp: sys('list', '/tmp').filter((n) => n.startsWith('js-left')), shm: sys('list', '/dev/shm').filter((n) => n.startsWith('js-left')) });\n`,
        ),
      );
      expect(b).toEqual({ tmp: [], shm: [] });
    }, 120_000);

    it('SysV shared memory, message queues and semaphores do not cross from one job to the next', async () => {
      const a = ok(
        await run(`const r = sys('run', ${JSON.stringify(made().probe)}, 'ipc-make', '0x7357a11e');
emitResult(JSON.parse(r.stdout));
`),
      );
      // (made: each id >= 0)
      expect(
        Object.values(a).every((v) => typeof v === 'number' && v >= 0),
        JSON.stringify(a),
      ).toBe(true);
      const b = ok(
        await run(`const r = sys('run', ${JSON.stringify(made().probe)}, 'ipc-find', '0x7357a11e');
const listed = ['shm', 'msg', 'sem'].map((k) => sys('read', '/proc/sysvipc/' + k).trim().split('\\n').length - 1);
emitResult({ found: JSON.parse(r.stdout), listed });
`),
      );
      expect(b).toEqual({ found: { shm: -1, msg: -1, sem: -1 }, listed: [0, 0, 0] });
    }, 120_000);

    it('the job holds no capability and can make no user namespace', async () => {
      const r = ok(
        await run(`const status = sys('read', '/proc/self/status');
const field = (k) => new RegExp('^' + k + ':\\\\s*(\\\\S+)', 'm').exec(status)?.[1];
const u = sys('run', ${JSON.stringify(made().probe)}, 'userns');
emitResult({ eff: field('CapEff'), prm: field('CapPrm'), filters: field('Seccomp_filters'),
  maxUserns: sys('read', '/proc/sys/user/max_user_namespaces').trim(), userns: JSON.parse(u.stdout) });
`),
      );
      expect(r).toMatchObject({ eff: '0000000000000000', prm: '0000000000000000', maxUserns: '0' });
      // the job's own filter on top of the container's (or bubblewrap's)
      expect(Number(r['filters'])).toBeGreaterThanOrEqual(2);
      expect(r['userns']).toEqual({ unshare_user: 'EPERM', clone_user: 'EPERM', clone_job: 'EPERM' });
    }, 120_000);
  });
}

/**
 * The worker ends a job by SIGKILL to the process it started, the launcher: the job's pid 1 (and with it
 * everything in its namespace) must go too (PR_SET_PDEATHSIG), the sweep off. A cancelled job (the
 * worker stays: a timeout would replace it) that never yields, read from the host (`docker top`).
 */
describe('JS jobs alone: a cancelled job is gone with its launcher (docker, sweep off)', () => {
  const docker = new Docker();
  let factory: DockerWorkerFactory;
  let backend: SandboxBackend;
  beforeAll(async () => {
    await requireDocker(docker);
    const tag = await probeImage(docker, 'node');
    factory = new DockerWorkerFactory(docker, async () => tag, TEST_LIMITS, { wallsOff: WALLS_OFF });
    await factory.start();
    backend = testBackend(factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });
  const run = (body: string, signal?: AbortSignal) =>
    backend.execute({
      sandbox: 'jsjobns-cancel',
      language: 'js',
      code: SYS + body,
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 60_000,
      ...(signal ? { signal } : {}),
    });
  /** The worker container's processes as the host sees them (pid and command line). */
  const processes = async (id: string) => {
    const top = (await docker.getContainer(id).top({ ps_args: '-o pid,args' })) as {
      Processes: string[][] | null;
    };
    return (top.Processes ?? []).map((p) => `${p[0]} ${p.at(-1) ?? ''}`);
  };

  it('the job and a child it started are gone once the job is cancelled; the worker serves the next', async () => {
    expect((await run('emitResult(1);\n')).data).toBe(1);
    const [c] = await docker.listContainers({
      filters: { label: ['toolsmith.pool=1', `toolsmith.owner=${process.pid}`] },
    });
    if (!c) throw new Error('no worker container');
    const abort = new AbortController();
    const running = run(`sys('leave', '${PROBE_IN_IMAGE}', 'sleep');\nwhile (true) {}\n`, abort.signal);
    const job = (p: string) => p.includes('--job') || p.includes('jsprobe');
    for (let i = 0; i < 100 && (await processes(c.Id)).filter(job).length < 2; i++)
      await new Promise((res) => setTimeout(res, 100));
    // (the job's processes; the next job's process, made after the job's end, is not one of them)
    const ofJob = (await processes(c.Id)).filter(job);
    expect(ofJob.length).toBeGreaterThanOrEqual(2);
    abort.abort();
    expect((await running).error?.type).toBe('Cancelled');
    let left: string[] = [];
    for (let i = 0; i < 50; i++) {
      left = (await processes(c.Id)).filter((p) => ofJob.includes(p));
      if (left.length === 0) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(left).toEqual([]);
    expect((await run('emitResult(2);\n')).data).toBe(2);
  }, 120_000);
});

/**
 * Every walled job leaves nothing that holds a pid: the worker (pid 1 of the sandbox) reaps only the
 * processes it started, so a job's pid 1 must be reaped by its launcher. Before, the worker killed the
 * launcher outright, the job's pid 1 became the worker's zombie, one per job, and with the tests' 64-pid
 * limit the 52nd job hung at node's start (its platform could not start a thread) until its time limit.
 */
for (const [name, make] of [
  ['docker', () => dockerFactory()],
  ['process (bubblewrap)', async () => bubblewrapFactory()],
] as const) {
  describe(`JS jobs alone: 80 jobs in a row on one worker under a 64-pid limit: ${name}`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    beforeAll(async () => {
      factory = await make();
      backend = testBackend(factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    it('every job runs, none waits for its time limit', async () => {
      const failed: string[] = [];
      for (let i = 0; i < 80; i++) {
        const r = await backend.execute({
          sandbox: 'jsjobns-many',
          language: 'js',
          code: `emitResult(${i});\n`,
          bodyStartLine: 1,
          tools: {},
          timeoutMs: 20_000,
        });
        if (r.data !== i) failed.push(`${i}: ${r.exitReason} ${JSON.stringify(r.error)}`);
      }
      expect(failed).toEqual([]);
    }, 600_000);
  });
}

/**
 * A launcher that does not end its job within the worker's 2 s (stopped or starved; TOOLSMITH_TEST_WALLS
 * =launcherstall: SIGTERM ignored, the job never reaped) is killed; its job's pid 1 dies with it
 * (PR_SET_PDEATHSIG) and the kernel gives it to the worker, pid 1 of the sandbox on both levels, which
 * cannot reap it. Before, it stayed the worker's zombie, one more per such job, each holding a pid of the
 * sandbox's limit; now the worker stops and says why, and the pool replaces it. Read from the host: the
 * zombies among the sandbox's processes (the containers' and the test process's descendants).
 */
/** The processes of the host as `pid -> { ppid, state }`. */
function hostProcesses(): Map<number, { ppid: number; state: string }> {
  const all = new Map<number, { ppid: number; state: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      all.set(Number(name), { ppid: Number(ppid), state: state ?? '?' });
    } catch {
      /* gone */
    }
  }
  return all;
}

/** The zombies (as `pid<-ppid`) among the descendants of `roots`, the roots included. */
function zombiesBelow(roots: number[]): string[] {
  const all = hostProcesses();
  const below = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, p] of all) {
      if (below.has(pid) || !below.has(p.ppid)) continue;
      below.add(pid);
      grew = true;
    }
  }
  return [...below].filter((p) => all.get(p)?.state === 'Z').map((p) => `${p}<-${all.get(p)?.ppid}`);
}

/** The host pids of this process's pool containers (the roots of their process trees). */
const containerRoots = async () => {
  const docker = new Docker();
  const mine = await docker.listContainers({
    filters: { label: ['toolsmith.pool=1', `toolsmith.owner=${process.pid}`] },
  });
  const pids = await Promise.all(
    mine.map(async (c) => {
      const info = await docker.getContainer(c.Id).inspect();
      return info.State.Pid;
    }),
  );
  return pids.filter((p) => p > 0);
};

for (const [name, make, roots, runtime] of [
  ['docker', () => dockerFactory({ wallsOff: ['launcherstall'] }), containerRoots, 'node'],
  // (bun: its `stopping` line written before it exits, as node's)
  ['docker, bun', () => dockerFactory({ wallsOff: ['launcherstall'] }), containerRoots, 'bun'],
  // (deno: its worker cannot kill the launcher nor look for the job's pid 1; it stops, saying `stopping` first)
  ['docker, deno', () => dockerFactory({ wallsOff: ['launcherstall'] }), containerRoots, 'deno'],
  [
    'process (bubblewrap)',
    async () => bubblewrapFactory({ wallsOff: ['launcherstall'] }),
    async () => [process.pid],
    'node',
  ],
] as const) {
  describe(`JS jobs alone: a launcher that does not end its job in time: ${name}`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    beforeAll(async () => {
      factory = await make();
      backend = testBackend(factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    /** A job answering `i` on the stall sandbox's pool. */
    const run = (i: number) =>
      backend.execute({
        sandbox: 'jsjobns-stall',
        runtime,
        language: 'js',
        code: `emitResult(${i});\n`,
        bodyStartLine: 1,
        tools: {},
        timeoutMs: 20_000,
      });

    it('a job sent right behind the stalled one never ran there: it runs on a fresh worker', async () => {
      const first = await run(100);
      expect(first.data).toBe(100);
      const stalled = backend.workerIds('jsjobns-stall', runtime)?.workers ?? [];
      expect(stalled).toHaveLength(1);
      // Sent at once: its worker is still waiting 2 s for the stalled launcher, then stops.
      const behind = await run(101);
      expect({ exit: behind.exitReason, data: behind.data, error: behind.error?.message }).toEqual({
        exit: 'ok',
        data: 101,
        error: undefined,
      });
      expect(backend.workerIds('jsjobns-stall', runtime)?.workers).not.toContain(stalled[0]);
    }, 300_000);

    it('leaves no zombie: the worker stops, naming why, and is replaced', async () => {
      const ran: number[] = [];
      const failed: string[] = [];
      for (let i = 0; i < 8 && ran.length < 3; i++) {
        const r = await run(i);
        if (r.data === i) ran.push(i);
        else failed.push(`${r.exitReason}: ${r.error?.message ?? ''}`);
      }
      expect(ran.length).toBe(3);
      // A job sent to a worker that stopped after its last job's end never ran there: it ran on another
      // (before 2026-12-05 it failed, `crashed`).
      expect(failed).toEqual([]);
      // (each stalled job's launcher is killed 2 s after its end: its zombie, if any, appears by then)
      let zombies: string[] = [];
      for (let i = 0; i < 300; i++) {
        await new Promise((res) => setTimeout(res, 100));
        zombies = zombiesBelow(await roots());
        if (i >= 40 && zombies.length === 0) break;
      }
      expect(zombies).toEqual([]);
    }, 600_000);
  });
}

/**
 * A job held by a worker that stops (`stopping`, docs/protocol.md) goes once to another worker; when that
 * one stops too, the job fails `infra`, saying it never ran and why each worker stopped, never `crashed`
 * or `timeout`. Every worker of the pool stalls (`launcherstall`: each worker stops 2 s after its first
 * job's end). Two workers each hold a job in a host tool call; the first is released, and the next job,
 * sent at once, goes to it while it waits for its stalled launcher; it stops, and the job goes to the
 * other worker (the replacement of the first is held back until the test is over, so the job waits for
 * the other one), released now: it waits for its own stalled launcher, and stops too.
 */
for (const runtime of ['node', 'deno'] as const) {
  describe(`JS jobs alone: every worker a job is sent to stops before it takes it (docker, ${runtime})`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    // (each job's `hold` call by its name: the two calls may come in either order)
    const held = new Map<string, () => void>();
    const hold = (args: Record<string, unknown>): Promise<ToolResponse> =>
      new Promise((resolve) => held.set(String(args['job']), () => resolve({ success: true, data: null })));
    // (the pool's first two workers start at once; every later one waits for `open`)
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => (open = r));
    let spawns = 0;
    beforeAll(async () => {
      factory = await dockerFactory({ wallsOff: ['launcherstall'] });
      const gated: WorkerFactory = {
        isolation: factory.isolation,
        spawn: async (spec, signal) => {
          if (++spawns > 2) await gate;
          return factory.spawn(spec, signal);
        },
      };
      backend = testBackend(gated, {
        toolsSource: '',
        pool: { minSize: 2, maxSize: 2, standby: 0 },
        hostTools: { hold },
      });
      await backend.warm('jsjobns-stop2', runtime);
    }, 300_000);
    afterAll(async () => {
      open();
      await backend?.dispose();
      await factory?.dispose();
    });

    const run = (code: string) =>
      backend.execute({
        sandbox: 'jsjobns-stop2',
        runtime,
        language: 'js',
        code,
        bodyStartLine: 1,
        tools: { hold: 'hold' },
        timeoutMs: 20_000,
      });
    const until = async (what: string, ok: () => boolean) => {
      for (const end = Date.now() + POLL_MS; !ok(); await new Promise((r) => setTimeout(r, 20)))
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    };
    const pool = () => backend.status().find((p) => p.sandbox === 'jsjobns-stop2');

    it('the job fails infra: it never ran, each worker named with why it stopped', async () => {
      const a = run(`await hold({ job: 'a' });\nemitResult('held');\n`);
      const b = run(`await hold({ job: 'b' });\nemitResult('held');\n`);
      await until('both workers to hold a job', () => held.size === 2);
      held.get('a')?.();
      const ran = (r: ExecutionResult) => ({ data: r.data, error: r.error?.message });
      expect(ran(await a)).toEqual({ data: 'held', error: undefined });
      // At once: the worker that ran `a` is the idle one, waiting 2 s for its stalled launcher.
      const job = run(`emitResult('ran');\n`);
      // Its worker stopped: the job waits for the pool's other worker (the first one's replacement held).
      await until('the job to wait for the other worker', () => pool()?.queued === 1);
      held.get('b')?.();
      expect(ran(await b)).toEqual({ data: 'held', error: undefined });
      const r: ExecutionResult = await job;
      expect({ exit: r.exitReason, type: r.error?.type, data: r.data }).toEqual({
        exit: 'infra',
        type: 'Infra',
        data: undefined,
      });
      expect(r.error?.message).toMatch(
        /^the job never ran: the two sandbox workers it was sent to stopped before they took it \(the first: the job's launcher \(pid \d+\) did not end its job within 2 s.*; the second: the job's launcher \(pid \d+\) did not end its job within 2 s.*\); the script was not at fault$/s,
      );
    }, 300_000);
  });
}

describe('the launcher builds the Python job filter, instruction for instruction', () => {
  it('--print-filter is jobns._assemble for this machine', async () => {
    const { buildJobLauncher } = await import('../../../src-main/infra/sandbox/images.ts');
    const built = buildJobLauncher(join(repoRoot, 'sandbox-images'));
    expect(built.why).toBeUndefined();
    const c = spawnSync(built.path as string, ['--print-filter'], { encoding: 'utf8' });
    // The suite's Python (test/support/host-python.ts), never the first python3 on PATH.
    const py = hostPython(
      'from toolsmith_worker import jobns\nfor i in jobns._assemble(jobns._ARCH): print(*i)',
      [],
      {
        path: join(repoRoot, 'sandbox-images/python'),
      },
    );
    expect(py.status, py.stderr).toBe(0);
    expect(c.stdout.split('\n').length).toBeGreaterThan(40);
    expect(c.stdout).toBe(py.stdout);
    expect(readFileSync(built.path as string).length).toBeGreaterThan(0);
  });
});

/**
 * A writable mount the launcher's plan has no room for would be left to every job in turn, and the
 * worker's probe, which checks only the walls planned, would not see it: the launcher refuses instead
 * (then the worker runs JS jobs as before, the sweep and wipe keeping them apart). Before, it skipped
 * every writable mount past its 22nd without a word and the probe passed.
 */
describe('the launcher and more writable mounts than its plan holds (docker, node)', () => {
  it('--probe refuses, naming the mount left out, instead of a plan without it', async () => {
    const docker = new Docker();
    await requireDocker(docker);
    const image = await buildImage(docker, 'node', imagePaths());
    const extra = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`/tmp/m${i}`, 'rw,nosuid,nodev,noexec,size=1m,mode=1777']),
    );
    const base = hostConfig(TEST_LIMITS);
    const c = await docker.createContainer({
      Image: image,
      Entrypoint: ['/opt/toolsmith/jobns-launch'],
      Cmd: ['--keep', '/opt/toolsmith', '--probe'],
      User: '65534:65534',
      Labels: { 'toolsmith.test': '1' },
      HostConfig: {
        ...base,
        Tmpfs: { ...base.Tmpfs, ...extra },
        LogConfig: { Type: 'json-file', Config: {} },
      },
    });
    try {
      await c.start();
      const { StatusCode } = (await c.wait()) as { StatusCode: number };
      const logs = (await c.logs({ stdout: true, stderr: true })).toString('latin1');
      const planned = [...logs.matchAll(/^.{0,8}plan tmpfs:(\/tmp\/m\d+)$/gm)].map((m) => m[1]);
      // (every extra mount planned would do too: what may not happen is a probe that passes without one)
      if (StatusCode === 0) expect(planned.sort()).toEqual(Object.keys(extra).sort());
      expect(StatusCode, logs).toBe(70);
      expect(logs).toMatch(
        /more than 22 writable mounts \(\/tmp\/m\d+ is one too many\): jobs are not started here/,
      );
    } finally {
      await c.remove({ force: true });
    }
  }, 300_000);
});

/**
 * Each job's process reports the walls it is in before it is given its job (worker.mjs wallsRefused):
 * the launcher's probe alone was trusted before, so a job whose process lacked a wall the probe had found
 * ran all the same. `jobskip-pid` (a test switch) makes the launcher clone the job's process, not the
 * probe's, without its pid namespace: the job is refused, the walls named, and its script never runs.
 */
describe("each JS job's process reports its walls (docker, node)", () => {
  let factory: WorkerFactory & { dispose(): Promise<void> };
  let backend: SandboxBackend;
  beforeAll(async () => {
    factory = await dockerFactory({ wallsOff: ['jsescape', 'jobskip-pid'] });
    backend = testBackend(factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });

  it('a process outside a pid namespace of its own is not given the job: the walls named', async () => {
    const r = await backend.execute({
      sandbox: 'jsjobnsskip',
      runtime: 'node',
      language: 'js',
      code: `${SYS}emitLog('the script ran');\nemitResult(sys('pid'));\n`,
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 30_000,
    });
    expect(r.exitReason).toBe('crashed');
    expect(r.error?.type).toBe('WallsMissing');
    expect(r.error?.message).toMatch(
      /lacks walls it must have: pid \(its pid is \d+, not 1 of a pid namespace of its own\), proc; it was not given the job/,
    );
    expect(r.data).toBeUndefined();
    expect(JSON.stringify(r.logs)).not.toMatch(/the script ran/);
  }, 300_000);
});

/**
 * The second wall alone: with the job's namespaces off (`launchplain`, a test switch: the launcher starts
 * each job's process as a plain fork, its filter kept), what a job leaves must still be gone for the next
 * job. node and bun: the worker's own sweep and wipe (betweenJobs). deno, whose worker may read no /proc
 * and signal no process: the launcher's (`--clean`, jobns-launch.c), after the job's process has ended and
 * before the launcher does. Before, deno had neither: the survivor ran on and the files stayed. deno below
 * Docker's init too (`init`: the worker is no pid 1 there, so the launcher's kill(-1) would reach it: it
 * stops every other process first, then kills them and lets the worker go on).
 */
for (const [runtime, init] of [
  ['node', false],
  ['bun', false],
  ['deno', false],
  ['deno', true],
] as const) {
  describe(`JS jobs with their namespaces off: the sweep and wipe alone (docker, ${runtime}${init ? ', below an init' : ''})`, () => {
    const docker = new Docker();
    let factory: DockerWorkerFactory;
    let backend: SandboxBackend;
    const sandbox = `jsplain${runtime}${init ? 'init' : ''}`;
    beforeAll(async () => {
      await requireDocker(docker);
      const tag = await probeImage(docker, runtime);
      factory = new DockerWorkerFactory(docker, async () => tag, TEST_LIMITS, {
        wallsOff: ['jsescape', 'launchplain'],
        ...(init ? { init: true } : {}),
      });
      await factory.start();
      backend = testBackend(factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });
    const run = (body: string) =>
      backend.execute({
        sandbox,
        runtime,
        language: 'js',
        code: SYS + body,
        bodyStartLine: 1,
        tools: {},
        timeoutMs: 30_000,
      });
    const ok = (r: ExecutionResult) => {
      expect(r.error, JSON.stringify(r.error)).toBeUndefined();
      return r.data as Record<string, unknown>;
    };
    /** The state letter of each pid (`gone` when it has none), read by a job. */
    const STATES = `const state = (p) => { try { const s = sys('read', '/proc/' + p + '/stat'); return s.slice(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3); } catch (e) { return 'gone'; } };\n`;

    it('SysV IPC is refused to the job (EPERM): the IPC filter, with no IPC namespace of its own', async () => {
      const a = ok(
        await run(
          `emitResult(JSON.parse(sys('run', '${PROBE_IN_IMAGE}', 'ipc-make', '0x7357a11f').stdout));\n`,
        ),
      );
      expect(a).toEqual({ shm: -1, msg: -1, sem: -1, errno: 1 });
    }, 120_000);

    it('a double-forked setsid survivor, a detached child and files in /tmp and /dev/shm are gone for the next job', async () => {
      const a = ok(
        await run(`${STATES}const daemon = JSON.parse(sys('run', '${PROBE_IN_IMAGE}', 'daemon').stdout).pid;
const child = sys('leave', '${PROBE_IN_IMAGE}', 'sleep');
sys('write', '/tmp/js-plain-left', 'secret'); sys('write', '/dev/shm/js-plain-left', 'secret');
emitResult({ pid: sys('pid'), daemon, child, states: [state(daemon), state(child)] });
`),
      );
      // (the namespaces were off: the job is no pid 1, and what it left was running when it ended)
      expect(a['pid']).not.toBe(1);
      const worker = backend.workerIds(sandbox, runtime)?.workers ?? [];
      expect(worker).toHaveLength(1);
      expect(a['states']).toEqual([expect.stringMatching(/^[RS]$/), expect.stringMatching(/^[RS]$/)]);
      const b = ok(
        await run(`${STATES}emitResult({ states: [state(${Number(a['daemon'])}), state(${Number(a['child'])})],
  tmp: sys('list', '/tmp').filter((n) => n.startsWith('js-plain')), shm: sys('list', '/dev/shm').filter((n) => n.startsWith('js-plain')) });
`),
      );
      // (on the same worker: the next job looked where the first left them)
      expect(backend.workerIds(sandbox, runtime)?.workers).toEqual(worker);
      // (a zombie is no survivor: node and bun, pid 1 of the sandbox, reap only their own children)
      expect(b).toEqual({
        states: [expect.stringMatching(/^(gone|Z)$/), expect.stringMatching(/^(gone|Z)$/)],
        tmp: [],
        shm: [],
      });
    }, 120_000);

    it("a process the cleanup cannot end (root's) stops the worker after that job; the next job runs on another", async () => {
      ok(await run('emitResult(0);\n'));
      const [c] = await docker.listContainers({
        filters: { label: [`toolsmith.owner=${process.pid}`, `toolsmith.sandbox=${sandbox}`] },
      });
      if (!c) throw new Error('no worker container');
      const before = backend.workerIds(sandbox, runtime)?.workers ?? [];
      expect(before).toHaveLength(1);
      // root's process in the sandbox, as if a job had left one it may not signal
      const exec = await docker.getContainer(c.Id).exec({
        Cmd: [PROBE_IN_IMAGE, 'sleep'],
        User: '0',
        AttachStdout: false,
        AttachStderr: false,
      });
      await exec.start({ Detach: true });
      const results = [];
      for (let i = 1; i <= 3; i++) results.push((await run(`emitResult(${i});\n`)).data);
      expect(results).toEqual([1, 2, 3]);
      expect(backend.workerIds(sandbox, runtime)?.workers).not.toContain(before[0]);
    }, 300_000);
  });
}

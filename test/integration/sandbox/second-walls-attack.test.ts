/**
 * An independent attack on "Every job alone" (docs/security.md, "Every job alone, attacked again:
 * channel by channel"), for the channel no other second-walls file attacked: what a job's process
 * inherits from the fork server (and the fork server from the worker) that another process may change
 * from outside with no ptrace access, so that the dumpable flag does not stop it: resource limits
 * (`prlimit`), nice value, CPU set, scheduling policy and I/O priority. Each with the job's namespaces
 * switched off (`nojobns`; JS: `launchplain` with `jsescape`), where the worker's check between jobs is
 * the only wall, and with every wall on, where the job names no process but its own. Failed before with
 * the namespaces off on docker, gVisor and bubblewrap, Python and node: the next job's process inherited
 * a soft limit carrying a number, nice 17, one CPU and (but on gVisor) SCHED_IDLE and the idle I/O class.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { jsJobs } from './support/js-job.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { bubblewrapFactory, dockerFactory, oneWorker, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const ATTACK = `
import ctypes as _at_ct
import resource as _at_rl

_AT = _at_ct.CDLL(None, use_errno=True)
_AT.syscall.restype = _at_ct.c_long
_AT_ARCH = __import__("platform").machine()
_IOPRIO_SET, _IOPRIO_GET = {"x86_64": (251, 252), "aarch64": (30, 31)}[_AT_ARCH]
# A soft limit the next job would not meet by chance (below every hard limit it is set under).
_AT_SECRET = 0x5EC12E
_AT_LIMITS = ("RLIMIT_RTTIME", "RLIMIT_MSGQUEUE", "RLIMIT_SIGPENDING", "RLIMIT_NOFILE", "RLIMIT_STACK")


def _at_pids():
    """Every process this job can name (its own aside): the worker, the fork server, anything else."""
    me = os.getpid()
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me)


def _at_worker():
    """Which worker runs this job (namespaces off: the parent is its fork server): the host name (a
    container's own), the fork server's pid and start time; with the namespaces on, the host name only."""
    if not os.getppid():
        return os.uname().nodename
    with open(f"/proc/{os.getppid()}/stat") as f:
        start = f.read().rsplit(")", 1)[1].split()[19]
    return f"{os.uname().nodename}/{os.getppid()}/{start}"


def _at_state():
    """What a job's process inherits from the process it was made by and cannot choose itself."""
    return {
        "limits": {n: list(_at_rl.getrlimit(getattr(_at_rl, n))) for n in _AT_LIMITS},
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "cpus": sorted(os.sched_getaffinity(0)),
        "policy": os.sched_getscheduler(0),
        "ioprio": _AT.syscall(_IOPRIO_GET, 1, 0),
    }


@tool(grade=(2, 2))
def sched_plant() -> ToolResponse:
    """Writes a mark into every other process it can name: a soft limit of each kind (one carrying a
    number), the nice value, the CPU set, the scheduling policy and the I/O priority. What each call said."""
    import errno

    said = {}
    before = _at_state()
    cpus = sorted(os.sched_getaffinity(0))
    for pid in _at_pids():
        got = []
        for n in _AT_LIMITS:
            soft, hard = _at_rl.getrlimit(getattr(_at_rl, n))
            want = _AT_SECRET if n in ("RLIMIT_RTTIME", "RLIMIT_MSGQUEUE") else 64
            try:
                _at_rl.prlimit(pid, getattr(_at_rl, n), (want if hard < 0 or hard >= want else hard, hard))
                got.append(n)
            except OSError as e:
                got.append(f"{n}:{errno.errorcode.get(e.errno)}")
        for what, call in (
            ("nice", lambda: os.setpriority(os.PRIO_PROCESS, pid, 17)),
            ("cpus", lambda: os.sched_setaffinity(pid, cpus[-1:])),
            ("policy", lambda: os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))),
        ):
            try:
                call()
                got.append(what)
            except OSError as e:
                got.append(f"{what}:{errno.errorcode.get(e.errno)}")
        r = _AT.syscall(_IOPRIO_SET, 1, pid, (3 << 13) | 0)  # IOPRIO_WHO_PROCESS, class idle
        got.append("ioprio" if r == 0 else f"ioprio:{errno.errorcode.get(_at_ct.get_errno())}")
        said[str(pid)] = got
    return ToolResponse(success=True, data={"pids": said, "before": before, "cpus": cpus, "worker": _at_worker()})


@tool(grade=(1, 0))
def sched_look() -> ToolResponse:
    """What this job's process inherited."""
    return ToolResponse(success=True, data={**_at_state(), "worker": _at_worker()})
`;

const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8') + '\n' + ATTACK;
const TOOLS = ['add', 'sched_plant', 'sched_look'];

const ok = (r: ExecutionResult) => {
  expect(r.success, JSON.stringify(r.error)).toBe(true);
  return r.data as Record<string, unknown>;
};

for (const [level, make] of [
  ['docker', (off: string[]) => dockerFactory({ wallsOff: off })],
  ['gvisor', (off: string[]) => dockerFactory({ runtime: 'runsc', wallsOff: off })],
  ['process', async (off: string[]) => bubblewrapFactory({ wallsOff: off })],
] as const) {
  for (const off of [['nojobns'], []]) {
    describe(
      `limits, priority, CPU set and scheduling of the processes around a job (${off.join(',') || 'every wall on'}): ${level}`,
      { concurrent: true },
      () => {
        const run = oneWorker(() => make(off), toolsSource, TOOLS);

        it("a job marks every process it can name: the next job's process inherits none of it", async () => {
          const { worker: _w, ...base } = ok(await run('emit_result(sched_look().data)\n'));
          const a = ok(await run('emit_result(sched_plant().data)\n'));
          const marked = Object.values(a['pids'] as Record<string, string[]>).flat();
          if (off.length) {
            // The attack is real: the worker and the fork server were named, and marked (at least their
            // nice value and CPU set on every level; gVisor refuses the limits to another uid).
            expect(Object.keys(a['pids'] as object).length, JSON.stringify(a)).toBeGreaterThanOrEqual(2);
            expect(marked, JSON.stringify(a)).toEqual(expect.arrayContaining(['nice', 'cpus']));
          } else {
            // The first wall: the job's pid namespace holds no process but its own.
            expect(a['pids'], JSON.stringify(a)).toEqual({});
          }
          const { worker, ...b } = ok(await run('emit_result(sched_look().data)\n'));
          expect(b, JSON.stringify({ base, a })).toEqual(base);
          if (off.length) {
            // (the second wall: the worker saw its marks changed and stopped; the next job ran on another)
            expect(worker, 'a new worker served the next job').not.toBe(a['worker']);
          } else {
            // (nothing reached: the same worker goes on; its host name, a container's own, tells on docker
            // and gVisor)
            expect(worker, 'the same worker served the next job').toBe(a['worker']);
          }
          expect(ok(await run('emit_result(add(a=40, b=2).data)\n'))).toBe(42);
        }, 120_000);
      },
    );
  }
}

/**
 * The same attack from a JS job on bubblewrap (node), its namespaces off (`launchplain`: the launcher
 * starts the job's process as a plain fork) and the script handed its process's powers (`jsescape`): it
 * runs the host's `prlimit`, `renice`, `taskset`, `chrt` and `ionice` on every process it can name (the
 * node worker, the launcher), and the next job reads what its process inherited.
 */
describe('limits, priority, CPU set and scheduling of the processes around a JS job (bubblewrap node, namespaces off)', () => {
  let backend: SandboxBackend;
  let factory: TestFactory;
  beforeAll(async () => {
    factory = bubblewrapFactory({ wallsOff: ['jsescape', 'launchplain'] });
    backend = testBackend(factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });
  const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };
const state = () => {
  const stat = sys('read', '/proc/self/stat');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const status = sys('read', '/proc/self/status');
  return {
    limits: sys('read', '/proc/self/limits'),
    nice: f[16],
    policy: f[38],
    cpus: /Cpus_allowed_list:\\s*(\\S+)/.exec(status)[1],
    ioprio: sys('run', '/usr/bin/ionice').stdout,
  };
};
`;
  const { run, data } = jsJobs(() => backend, 'jsmarks', SYS);

  it("a job marks the worker and its launcher: the next job's process inherits none of it", async () => {
    const base = data(await run('emitResult(state());\n'));
    const worker = backend.workerIds('jsmarks', 'node')?.workers ?? [];
    expect(worker).toHaveLength(1);
    const a = data(
      await run(`const me = sys('pid');
const said = {};
for (const p of sys('list', '/proc').filter((n) => /^\\d+$/.test(n) && Number(n) !== me)) {
  said[p] = [
    ['/usr/bin/prlimit', '--pid', p, '--rttime=6209838:', '--sigpending=64:'],
    ['/usr/bin/renice', '-n', '17', '-p', p],
    ['/usr/bin/taskset', '-p', '1', p],
    ['/usr/bin/chrt', '-i', '-p', '0', p],
    ['/usr/bin/ionice', '-c', '3', '-p', p],
  ].map((c) => sys('run', ...c).status);
}
emitResult({ said, me });
`),
    );
    // The attack is real: the worker was named and every program it ran on it succeeded.
    expect(Object.values(a['said'] as Record<string, number[]>), JSON.stringify(a)).toContainEqual([
      0, 0, 0, 0, 0,
    ]);
    const b = data(await run('emitResult(state());\n'));
    expect(b, JSON.stringify({ base, a })).toEqual(base);
    expect(backend.workerIds('jsmarks', 'node')?.workers, 'a new worker served the next job').not.toEqual(
      worker,
    );
  }, 120_000);
});

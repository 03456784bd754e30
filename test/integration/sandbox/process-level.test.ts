/**
 * The process (bubblewrap) isolation level beside Docker, written as the attacks and faults: its limits
 * count only its own processes (many processes of uid 65534 elsewhere, a fork bomb in a Docker sandbox),
 * memory is capped as memory (one big allocation; several processes together), denied system calls fail
 * with EPERM, /usr/local is not visible; and a worker that writes to stderr and dies while loading its
 * tools says so in the infra error, on the process and the Docker backends.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { ToolResponse } from '../../../src-main/core/tools/model.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import type { DockerWorkerFactory } from '../../../src-main/infra/sandbox/docker.ts';
import type { WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';
import { cgroupLayout } from '../../../src-main/infra/sandbox/cgroups.ts';
import { WORKER_UID_BASE, WORKER_UID_COUNT } from '../../../src-main/infra/sandbox/process.ts';
import type { ProcessOptions, ProcessWorkerFactory } from '../../../src-main/infra/sandbox/process.ts';
import { bubblewrapFactory, dockerFactory as startDocker, TEST_LIMITS } from '../../support/sandbox.ts';

const SECRET = 'sk-stderr-secret-4242';

/** Tool code is trusted (it may import): the hostile behaviour lives here, scripts just call it. */
const TOOLS = `
import ctypes
import os
import signal
import time

libc = ctypes.CDLL(None, use_errno=True)


def _sys(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return 0 if r >= 0 else ctypes.get_errno()


@tool(grade=(0, 0))
def add(a: int, b: int = 1) -> ToolResponse:
    """Add two numbers."""
    return ToolResponse(success=True, data=a + b)


@tool(grade=(2, 2))
def fork_some(n: int = 8) -> ToolResponse:
    """Fork n children that exit at once."""
    pids = [os.fork() or os._exit(0) for _ in range(n)]
    for p in pids:
        os.waitpid(p, 0)
    return ToolResponse(success=True, data=len(pids))


@tool(grade=(2, 2))
def fork_bomb() -> ToolResponse:
    """Fork until the process limit stops it; answers how many children it got (then ends them)."""
    kids = []
    while True:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        kids.append(pid)
    for k in kids:
        os.kill(k, signal.SIGKILL)
        os.waitpid(k, 0)
    return ToolResponse(success=True, data=len(kids))


_held = []


@tool(grade=(2, 2))
def take_pids() -> ToolResponse:
    """Fork until the process limit; the children wait until release_pids ends them. How many it got."""
    while True:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        _held.append(pid)
    return ToolResponse(success=True, data=len(_held))


@tool(grade=(2, 2))
def release_pids() -> ToolResponse:
    """Ends the children take_pids holds."""
    for k in _held:
        os.kill(k, signal.SIGKILL)
        os.waitpid(k, 0)
    n = len(_held)
    _held.clear()
    return ToolResponse(success=True, data=n)


@tool(grade=(2, 2))
def alloc(mb: int) -> ToolResponse:
    """Allocate (and write) mb MiB."""
    b = b"x" * (mb << 20)
    return ToolResponse(success=True, data=len(b) >> 20)


@tool(grade=(2, 2))
def alloc_in_children(n: int, mb: int) -> ToolResponse:
    """n children each hold mb MiB at once (each under the per-process data limit); their exit statuses."""
    r, w = os.pipe()
    kids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            try:
                b = b"x" * (mb << 20)
                os.write(w, b"1")
                time.sleep(3)
                os._exit(0)
            except MemoryError:
                os._exit(2)
        kids.append(pid)
    statuses = []
    for k in kids:
        _, st = os.waitpid(k, 0)
        statuses.append(-os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st))
    return ToolResponse(success=True, data=statuses)


@tool(grade=(2, 2))
def syscalls() -> ToolResponse:
    """errno of system calls a sandbox must not make (0: it worked)."""
    out = {}
    # ptrace: attach to a child of our own, which made itself dumpable again.
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1
        os.write(w, b"1")
        time.sleep(30)
        os._exit(0)
    os.read(r, 1)
    out["ptrace"] = _sys(101, 16, pid, 0, 0)  # PTRACE_ATTACH
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    out["ptrace_x32"] = _sys(0x40000000 | 101, 16, os.getpid(), 0, 0)
    out["unshare_user"] = _sys(272, 0x10000000)
    child = libc.syscall(ctypes.c_long(56), ctypes.c_long(0x10000000 | signal.SIGCHLD), 0, 0, 0, 0)
    if child == 0:
        os._exit(0)  # (only where clone with CLONE_NEWUSER is not refused)
    out["clone_newuser"] = ctypes.get_errno() if child < 0 else 0
    if child > 0:
        os.waitpid(child, 0)
    buf = ctypes.create_string_buffer(8)
    iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
    out["process_vm_readv"] = _sys(310, os.getppid(), ctypes.addressof(iov), 1, ctypes.addressof(iov), 1, 0)
    out["bpf"] = _sys(321, 0, 0, 0)
    out["keyctl"] = _sys(250, 0, -3, 0)  # KEYCTL_GET_KEYRING_ID of the session keyring
    out["userfaultfd"] = _sys(323, 0)
    out["personality"] = _sys(135, 0x0040000)  # ADDR_NO_RANDOMIZE
    out["mount"] = _sys(165, 0, 0, 0, 0, 0)
    out["clone3"] = _sys(435, 0, 0)
    return ToolResponse(success=True, data=out)


@tool(grade=(1, 0))
def usr_local() -> ToolResponse:
    """What the sandbox sees of /usr/local."""
    return ToolResponse(success=True, data=sorted(os.listdir("/usr/local")) if os.path.isdir("/usr/local") else None)


@tool(grade=(1, 0))
def whoami() -> ToolResponse:
    """The uid and the RLIMIT_NPROC, RLIMIT_DATA of this job."""
    import resource
    return ToolResponse(success=True, data={"uid": os.getuid(), "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0], "data": resource.getrlimit(resource.RLIMIT_DATA)[0]})
`;

/** tools.py that writes to stderr and exits while it loads (credential value in it, to be blanked). */
const DIES_LOADING = `
import os, sys
sys.stderr.write("starting up\\n")
sys.stderr.write("tools.py: cannot read /etc/weather.conf: no such file\\n")
sys.stderr.write("token in use: " + os.environ.get("TOOLSMITH_CRED_API_TOKEN", "none") + "\\n")
sys.stderr.flush()
os._exit(3)
`;

const TOOL_NAMES = [
  'add',
  'fork_some',
  'fork_bomb',
  'take_pids',
  'release_pids',
  'hold',
  'alloc',
  'alloc_in_children',
  'syscalls',
  'usr_local',
  'whoami',
];
const docker = new Docker();
const disposers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const d of disposers.reverse()) await d();
});

/**
 * The worker uids of this file's factories: a slice of the reserved range of its own, so that "nothing
 * left behind" looks only at what this file started (another Toolsmith or test run on the machine takes
 * its workers' uids anywhere in the range).
 */
const UID_COUNT = 64;
const UID_BASE =
  WORKER_UID_BASE + WORKER_UID_COUNT / 2 + (process.pid % (WORKER_UID_COUNT / 2 / UID_COUNT)) * UID_COUNT;

function processFactory(opts: Partial<ProcessOptions> = {}): ProcessWorkerFactory {
  // The last two uids of the slice are the uid test's own (its stranger and its worker): the other
  // tests' workers, alive until the file ends, draw at random from the rest.
  const f = bubblewrapFactory({ memoryMb: 256, uidBase: UID_BASE, uidCount: UID_COUNT - 2, ...opts });
  disposers.push(() => f.dispose());
  return f;
}

async function dockerFactory(): Promise<DockerWorkerFactory> {
  const f = await startDocker({ docker, limits: { ...TEST_LIMITS, memoryMb: 256 } });
  disposers.push(() => f.dispose());
  return f;
}

/** The host tool `hold`: answers once the test calls `release` (a job holds what it took until then). */
let release: (() => void) | undefined;
const hold = (): Promise<ToolResponse> =>
  new Promise((resolve) => {
    release = () => resolve({ success: true, data: null });
  });

function backend(factory: WorkerFactory, source = TOOLS, credentials: Record<string, string> = {}) {
  const b = new SandboxBackend({
    factory,
    pool: { minSize: 1, maxSize: 2, maxJobsPerWorker: 1000, idleMs: 60_000, queueTimeoutMs: 30_000 },
    maxOutputBytes: 50 * 1024,
    specFor: (name, runtime) => ({
      name,
      runtime,
      toolsSource: source,
      hostTools: [{ name: 'hold' }],
      credentials,
    }),
    hostTools: { hold },
  });
  disposers.push(() => b.dispose());
  return b;
}

const run = (b: SandboxBackend, code: string, timeoutMs = 20_000): Promise<ExecutionResult> =>
  b.execute({
    sandbox: 's',
    language: 'python',
    code,
    bodyStartLine: 1,
    tools: Object.fromEntries(TOOL_NAMES.map((t) => [t, t])),
    timeoutMs,
  });

/** Processes of uid 65534 now: all of them, and those inside Docker's containers. */
function nobodyProcesses(): { all: number; docker: number } {
  let all = 0;
  let inDocker = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (!/^Uid:\s+65534\s/m.test(readFileSync(`/proc/${p}/status`, 'utf8'))) continue;
      all++;
      if (/docker|containerd/.test(readFileSync(`/proc/${p}/cgroup`, 'utf8'))) inDocker++;
    } catch {
      /* gone */
    }
  }
  return { all, docker: inDocker };
}

/** Processes running under the reserved worker uid range (none may outlive their factory). */
function workerUidProcesses(): string[] {
  const out: string[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1]);
      if (uid >= UID_BASE && uid < UID_BASE + UID_COUNT) out.push(`${p} uid ${uid}`);
    } catch {
      /* gone */
    }
  }
  return out;
}

describe('limits that count only the sandbox’s own processes', () => {
  const sleepers: ChildProcess[] = [];
  afterEach(() => {
    for (const s of sleepers.splice(0)) {
      try {
        if (s.pid) process.kill(s.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });

  it.each<[string, Partial<ProcessOptions>]>([
    ['with its cgroup', {}],
    ['without cgroups (its own uid / user namespace)', { noCgroups: true }],
  ])(
    'a bubblewrap worker keeps working while >100 other uid-65534 processes exist (%s)',
    async (_name, opts) => {
      if (process.getuid?.() !== 0)
        throw new Error('this test starts processes as uid 65534 and needs root (as the test machines run)');
      for (let i = 0; i < 110; i++)
        sleepers.push(spawn('sleep', ['600'], { uid: 65534, gid: 65534, stdio: 'ignore' }));
      await expect.poll(() => nobodyProcesses().all, { timeout: 10_000 }).toBeGreaterThan(100);
      const f = processFactory(opts);
      const b = backend(f);
      const r = await run(b, 'emit_result({"n": fork_some(n=8).data, "sum": add(a=2).data})\n');
      expect(r.error?.message ?? '').toBe('');
      expect(r).toMatchObject({ success: true, data: { n: 8, sum: 3 }, isolation: 'bubblewrap' });
      // A uid of its own (as root), its process limit still in force, counting only itself.
      const who = await run(b, 'emit_result(whoami().data)\n');
      const me = who.data as { uid: number; nproc: number; data: number };
      expect(me.uid).toBeGreaterThanOrEqual(UID_BASE);
      expect(me.nproc).toBe(64);
      expect(me.data).toBe(256 * 1024 * 1024);
      expect(who.isolationDetails).toMatch(opts.noCgroups ? /no cgroup/ : /cgroup v[12] per worker/);
      // …and a fork bomb inside it is still stopped, the worker still serving.
      const bomb = await run(b, 'emit_result(fork_bomb().data)\n');
      expect(bomb.success).toBe(true);
      expect(bomb.data as number).toBeLessThan(64);
      expect((await run(b, 'emit_result(add(a=40, b=2).data)\n')).data).toBe(42);
    },
    120_000,
  );

  it('a worker never gets a uid that a process on the machine (another Toolsmith) runs under', async () => {
    if (process.getuid?.() !== 0)
      throw new Error('this test starts a process under a worker uid and needs root');
    // Two uids of this file's slice: a stranger holds the first, so each worker must get the second.
    const base = UID_BASE + UID_COUNT - 2;
    const stranger = spawn('sleep', ['600'], { uid: base, gid: base, stdio: 'ignore' });
    sleepers.push(stranger);
    await expect.poll(() => workerUidProcesses().some((l) => l.endsWith(`uid ${base}`))).toBe(true);
    for (let i = 0; i < 3; i++) {
      const f = processFactory({ uidBase: base, uidCount: 2 });
      const b = backend(f);
      const who = await run(b, 'emit_result(whoami().data)\n');
      expect(who.error?.message ?? '').toBe('');
      expect((who.data as { uid: number }).uid).toBe(base + 1);
      await b.dispose(); // (the pool first: it would replace the workers the factory's end kills)
      await f.dispose();
      await expect.poll(() => workerUidProcesses().some((l) => l.endsWith(`uid ${base + 1}`))).toBe(false);
    }
  }, 120_000);

  it('a fork bomb in a Docker sandbox does not break a process sandbox', async () => {
    const d = backend(await dockerFactory());
    expect((await run(d, 'emit_result(add(a=1).data)\n')).data).toBe(2); // image built, worker warm
    // It holds the processes it took until the process sandbox's job below is done (host tool `hold`).
    const bomb = run(d, 'n = take_pids().data\nhold()\nrelease_pids()\nemit_result(n)\n', 60_000);
    // The Docker sandbox is at its process limit (64, all uid 65534) …
    await expect.poll(() => nobodyProcesses().docker, { timeout: 30_000, interval: 200 }).toBeGreaterThan(55);
    // … while a process sandbox starts a worker, loads its tools and forks.
    const p = backend(processFactory());
    const r = await run(p, 'emit_result(fork_some(n=4).data)\n');
    expect(r.error?.message ?? '').toBe('');
    expect(r).toMatchObject({ success: true, data: 4 });
    expect(nobodyProcesses().docker).toBeGreaterThan(55); // (still at its limit when the job ran)
    await expect.poll(() => release).toBeDefined(); // (the job holds)
    release?.();
    const held = await bomb;
    expect(held.success).toBe(true);
    expect(held.data as number).toBeGreaterThan(50);
  }, 180_000);
});

describe('memory capped as memory (limit 256 MiB)', () => {
  let b: SandboxBackend;
  beforeAll(() => {
    b = backend(processFactory());
  });

  it.each([700, 1024])(
    'a %i MiB allocation fails as oom, and the worker is replaced',
    async (mb) => {
      const r = await run(b, `emit_result(alloc(mb=${mb}).data)\n`);
      expect(r.exitReason).toBe('oom');
      expect(r.error?.message).toMatch(/memory/i);
      expect((await run(b, 'emit_result(alloc(mb=100).data)\n')).data).toBe(100);
    },
    60_000,
  );

  it('several processes under the per-process limit together are stopped by the cgroup', async () => {
    // Three children of 150 MiB each: each one fits RLIMIT_DATA, the three of them do not fit 256 MiB.
    const r = await run(b, 'emit_result(alloc_in_children(n=3, mb=150).data)\n', 30_000);
    expect(r.isolationDetails).toMatch(/cgroup v[12] per worker/);
    expect(r.success).toBe(true);
    const statuses = r.data as number[];
    expect(statuses).toContain(-9); // the kernel's OOM killer, inside the worker's cgroup
    expect(statuses.filter((s) => s === 0).length).toBeLessThan(3);
    // A later failing job is not mistaken for an OOM of this one.
    const e = await run(b, 'emit_result(add(a="x").data)\n');
    expect(e.exitReason).toBe('error');
  }, 60_000);

  it('a node job filling 1.6 GB of buffers is stopped (its data limit has room for V8, the cgroup does not)', async () => {
    const js = (code: string) =>
      b.execute({ sandbox: 's', language: 'js', code, bodyStartLine: 1, tools: {}, timeoutMs: 20_000 });
    expect((await js('emitResult(6 * 7);\n')).data).toBe(42);
    const r = await js(
      'const a = [];\nfor (let i = 0; i < 100; i++) a.push(new Uint8Array(16 << 20).fill(1));\nemitResult(a.length);\n',
    );
    expect(r.exitReason).toBe('oom');
    expect((await js('emitResult(1 + 1);\n')).data).toBe(2);
  }, 60_000);
});

describe('bubblewrap level: system calls and file system', () => {
  let b: SandboxBackend;
  beforeAll(() => {
    b = backend(processFactory());
  });

  it('denied system calls fail with EPERM (clone3 with ENOSYS, so glibc falls back to clone)', async () => {
    const r = await run(b, 'emit_result(syscalls().data)\n');
    expect(r.error?.message ?? '').toBe('');
    expect(r.isolationDetails).toMatch(/seccomp deny-list/);
    const EPERM = 1;
    expect(r.data).toEqual({
      ptrace: EPERM,
      ptrace_x32: EPERM,
      unshare_user: EPERM,
      clone_newuser: EPERM,
      process_vm_readv: EPERM,
      bpf: EPERM,
      keyctl: EPERM,
      userfaultfd: EPERM,
      personality: EPERM,
      mount: EPERM,
      clone3: 38,
    });
    // Ordinary forks and threads still work.
    expect((await run(b, 'emit_result(fork_some(n=3).data)\n')).data).toBe(3);
  }, 60_000);

  it("a JS job's skills are checked again by the node worker (its check and parser beside it)", async () => {
    const job = (ret: string) => ({
      sandbox: 's',
      language: 'js' as const,
      code: `/** Twice x. */\nasync function twice(x) {\n  ${ret}\n}\nemitResult(await twice(21));\n`,
      bodyStartLine: 1,
      tools: {},
      skills: ['twice'],
      timeoutMs: 20_000,
    });
    expect(await b.execute(job('return x * 2;'))).toMatchObject({ success: true, data: 42 });
    const refused = await b.execute(job('return globalThis.process ?? x;'));
    expect(refused.success).toBe(false);
    expect(refused.error?.type).toBe('ValidationError');
    expect(refused.error?.message).toMatch(/^skill twice:2: globalThis is not available to a skill/);
  }, 60_000);

  it('/usr/local is not visible', async () => {
    // Something to hide, even on a machine whose /usr/local is empty.
    const marker = `/usr/local/toolsmith-probe-${process.pid}`;
    writeFileSync(marker, 'host only');
    try {
      expect(readdirSync('/usr/local').length).toBeGreaterThan(0);
      const r = await run(b, 'emit_result(usr_local().data)\n');
      expect(r).toMatchObject({ success: true, data: [] });
      expect(r.isolationDetails).toMatch(/\/usr\/local hidden/);
    } finally {
      rmSync(marker, { force: true });
    }
  }, 30_000);
});

describe("a worker's last stderr lines are in its infra errors", () => {
  it.each([
    ['process (bubblewrap)', async () => processFactory()],
    ['docker', dockerFactory],
  ])(
    '%s: tools.py that writes to stderr and exits while loading',
    async (_name, make) => {
      const b = backend(await make(), DIES_LOADING, { api_token: SECRET });
      const r = await run(b, 'emit_result(1)\n', 30_000);
      expect(r.exitReason).toBe('infra');
      const msg = r.error?.message ?? '';
      // (tools.py runs in the first job's process, not the worker: that process ends, the worker answers)
      expect(msg).toMatch(
        /tools\.py failed to load: ToolsLoadFailed: the process that loaded tools\.py ended before it described the tools/,
      );
      expect(msg).toMatch(/its stderr ended with:\n {2}starting up\n/);
      expect(msg).toContain('tools.py: cannot read /etc/weather.conf: no such file');
      expect(msg).toContain('token in use: ***');
      expect(JSON.stringify(r)).not.toContain(SECRET);
    },
    180_000,
  );
});

describe('nothing left behind', () => {
  it('no process of the worker uid range and no cgroup outlives the factories', async () => {
    for (const d of disposers.splice(0).reverse()) await d();
    await expect.poll(() => workerUidProcesses(), { timeout: 10_000, interval: 250 }).toEqual([]);
    const layout = cgroupLayout(
      readFileSync('/proc/self/mountinfo', 'utf8'),
      readFileSync('/proc/self/cgroup', 'utf8'),
    );
    expect(layout, 'this machine offers a cgroup hierarchy with pids and memory').toBeDefined();
    const left = (layout?.parents ?? []).filter((d) => existsSync(d));
    expect(
      left,
      `left: ${JSON.stringify(left.map((d) => [d, readdirSync(d).filter((n) => /^w\d/.test(n))]))}`,
    ).toEqual([]);
  }, 60_000);
});

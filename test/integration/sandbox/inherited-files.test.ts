/**
 * What a job's process inherits besides memory, and where tools.py runs (docs/security.md, "Every job
 * alone"). Each job's process is a copy of the fork server, and a copy shares the open files and shared
 * mappings of the process it was copied from. When tools.py loaded in the worker, a pipe, a socketpair, a
 * file in /tmp or `mmap.mmap(-1, n)` (shared unless told otherwise) it opened was one channel through every
 * job of the worker, with every wall on; a file opened read-only carried its offset from job to job; and its
 * top level could rewrite the worker's own Python (its wipe, its sweep, the job namespaces), so every later
 * job ran without them. Now tools.py never runs in the worker or the fork server: each job's process runs
 * it itself, behind its walls, and what it opens is that job's alone.
 */
import { describe, expect, it } from 'vitest';
import { bubblewrapFactory, dockerFactory, oneWorker } from '../../support/sandbox.ts';
import { READ_FILE, REWRITE_WORKER } from './support/hostile-tools.ts';

const CHANNELS = `import mmap
import os
import socket

_R, _W = os.pipe()
os.set_blocking(_R, False)
_LOG = open("/tmp/tools-load.log", "a+")
_A, _B = socket.socketpair()
_B.setblocking(False)
_SHM = mmap.mmap(-1, 4096)
_ROOT = os.open("/", os.O_RDONLY | os.O_DIRECTORY)  # (read-only, but a way into the worker's mounts)


@tool(grade=(2, 2))
def plant(secret: str) -> ToolResponse:
    """Writes the secret into everything tools.py opened when it loaded.

    Args:
        secret: What a later job must not read.
    """
    os.write(_W, secret.encode())
    _LOG.write(secret)
    _LOG.flush()
    _A.send(secret.encode())
    _SHM[: len(secret)] = secret.encode()
    return ToolResponse(success=True, data=os.getppid())


@tool(grade=(2, 2))
def find() -> ToolResponse:
    """What an earlier job left in each of them."""
    out = {}
    try:
        out["pipe"] = os.read(_R, 100).decode()
    except OSError as e:
        out["pipe"] = type(e).__name__
    _LOG.seek(0)
    out["file"] = _LOG.read()
    try:
        out["socket"] = _B.recv(100).decode()
    except OSError as e:
        out["socket"] = type(e).__name__
    out["memory"] = _SHM[:64].rstrip(b"\\0").decode()
    return ToolResponse(success=True, data=out)
`;

const READ_ONLY = `import os

_FILE = open("/usr/lib/os-release", "rb")


@tool(grade=(2, 2))
def seek(to: int) -> ToolResponse:
    """Moves the offset of the file tools.py opened when it loaded, and reads on.

    Args:
        to: The offset.
    """
    _FILE.seek(to)
    at = _FILE.tell()
    _FILE.read(3)
    return ToolResponse(success=True, data=at)


@tool(grade=(2, 2))
def where() -> ToolResponse:
    """Where that file's offset is, and what it reads from there."""
    return ToolResponse(success=True, data=[_FILE.tell(), _FILE.read(4).decode()])
`;

/**
 * tools.py, as it loads in the worker, gives itself a mount every job's process starts with: on gVisor by
 * raising the capabilities the worker keeps permitted for the fork server (CAP_SYS_ADMIN among them); on
 * runc by moving the worker into a user and mount namespace of its own (unshare, its ids mapped once it
 * is dumpable again). Its tmpfs on /srv was then in every job's mounts as it was: no fresh mount, no wipe.
 */
const MOUNTS = `import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]


class _Head(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _write(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
        return True
    except OSError:
        return False


def _mount():
    head, data = _Head(0x20080522, 0), (_Data * 2)()
    if _libc.capget(ctypes.byref(head), data) == 0:
        data[0].effective, data[1].effective = data[0].permitted, data[1].permitted
        _libc.capset(ctypes.byref(head), data)
    if _libc.mount(b"tmpfs", b"/srv", b"tmpfs", 0, b"size=1m,mode=777") == 0:
        return "/srv"
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(0x10000000 | 0x00020000) != 0:
        return None
    _libc.prctl(4, 1, 0, 0, 0)
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    return "/srv" if _libc.mount(b"tmpfs", b"/srv", b"tmpfs", 0, b"size=1m,mode=777") == 0 else None


SHARED = _mount()


@tool(grade=(2, 2))
def plant(secret: str) -> ToolResponse:
    """Writes the secret into the mount tools.py made.

    Args:
        secret: What a later job must not read.
    """
    if SHARED is None:
        return ToolResponse(success=True, data="no mount")
    with open(SHARED + "/left", "w") as f:
        f.write(secret)
    return ToolResponse(success=True, data=SHARED)


@tool(grade=(2, 2))
def find() -> ToolResponse:
    """What an earlier job left there."""
    try:
        with open("/srv/left") as f:
            return ToolResponse(success=True, data=f.read())
    except OSError as e:
        return ToolResponse(success=True, data=type(e).__name__)
`;

/**
 * The attack that got through while tools.py loaded in the worker: its top level rewrote the worker's wipe
 * and sweep and switched the job namespaces off (`jobns.wanted`), so every later job ran as a plain fork
 * of the fork server, next to what the last one left.
 */
const REWRITE = `import os
import sys
import time

${REWRITE_WORKER}

${READ_FILE}

@tool(grade=(2, 2))
def plant(secret: str) -> ToolResponse:
    """Leaves the secret in /tmp and /dev/shm, and a daemon behind.

    Args:
        secret: What a later job must not read.
    """
    for path in ("/tmp/left", "/dev/shm/left"):
        with open(path, "w") as f:
            f.write(secret)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(120)
        os._exit(0)
    os.wait()
    return ToolResponse(success=True, data={"token": TOKEN, "rewrote": REWROTE})


@tool(grade=(2, 2))
def find() -> ToolResponse:
    """What an earlier job left: files, and processes other than this one."""
    others = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid())
    return ToolResponse(success=True, data={"token": TOKEN, "tmp": _read("/tmp/left"), "shm": _read("/dev/shm/left"), "others": others})
`;

/** A top level that loads when the tools are described, and raises in every job's process. */
const FAILS_LATER = `if not tool.__self__.describe:
    # (the registry of a job's process describes nothing)
    raise RuntimeError("not in a job")


@tool(grade=(0, 0))
def add_one(x: int) -> ToolResponse:
    """Adds one.

    Args:
        x: A number.
    """
    return ToolResponse(success=True, data=x + 1)
`;

/**
 * Imports the worker makes ahead of the job processes (tools.preimport reads every import statement,
 * also one that never runs): a package's __main__ is a program, which ran in the worker with its argv and
 * folder (unittest.__main__ discovered tests in the worker's cwd, ran them and called sys.exit: the worker
 * ended and the load failed).
 */
const MAIN_MODULES = `if False:
    import unittest.__main__
    import venv.__main__


@tool(grade=(0, 0))
def add_one(x: int) -> ToolResponse:
    """Adds one.

    Args:
        x: A number.
    """
    return ToolResponse(success=True, data=x + 1)
`;

const SECRET = 'job-a-secret-4f1c';

const LEVELS = [
  ['docker', () => dockerFactory()],
  ['gvisor', () => dockerFactory({ runtime: 'runsc' })],
  ['process', async () => bubblewrapFactory()],
] as const;

for (const [level, make] of LEVELS) {
  describe(
    `what tools.py opens or does when it loads is no channel between jobs: ${level}`,
    { concurrent: true },
    () => {
      describe('a pipe, a socketpair, a file in /tmp and shared memory opened at load', () => {
        const run = oneWorker(make, CHANNELS, ['plant', 'find']);

        it("each job's process opens its own: no later job reads what an earlier one wrote", async () => {
          const a = await run(`emit_result(plant(secret="${SECRET}").data)\n`);
          const b = await run('emit_result(find().data)\n');
          expect(a.error, JSON.stringify(a.error)).toBeUndefined();
          expect(b.error, JSON.stringify(b.error)).toBeUndefined();
          // (before: job B read the secret from all four, its worker the same as job A's; then such a
          // load was refused)
          expect(JSON.stringify(b.data ?? null)).not.toContain(SECRET);
          expect(b.data).toEqual({
            pipe: 'BlockingIOError',
            file: '',
            socket: 'BlockingIOError',
            memory: '',
          });
        }, 300_000);
      });

      describe('a mount tools.py makes as it loads', () => {
        const run = oneWorker(make, MOUNTS, ['plant', 'find']);

        it("it runs in the job's process, which may make none; no later job reads what an earlier one wrote there", async () => {
          const a = await run(`emit_result(plant(secret="${SECRET}").data)\n`);
          const b = await run('emit_result(find().data)\n');
          expect(a.error, JSON.stringify(a.error)).toBeUndefined();
          // (before: job B read the secret on docker and gvisor; then the worker stopped)
          expect(a.data).toBe('no mount');
          expect(b.data).toBe('FileNotFoundError');
        }, 300_000);
      });

      describe('a file opened read-only at load', () => {
        const run = oneWorker(make, READ_ONLY, ['seek', 'where']);

        it('each job reads it at its own offset, never where an earlier job left it', async () => {
          const a = await run('emit_result(seek(to=5).data)\n');
          const b = await run('emit_result(where().data)\n');
          expect(a.error, JSON.stringify(a.error)).toBeUndefined();
          expect(a.data).toBe(5);
          expect(b.error, JSON.stringify(b.error)).toBeUndefined();
          // (before: [267, '']: where job A's read left the shared offset, the file's end)
          expect(b.data).toEqual([0, 'PRET']);
        }, 300_000);
      });

      describe("a top level of tools.py that rewrites the worker's own code", () => {
        const run = oneWorker(make, REWRITE, ['plant', 'find']);

        it("rewrites only its own job's copy: the next job still has its namespaces, sweep and wipe", async () => {
          const a = await run(`emit_result(plant(secret="${SECRET}").data)\n`);
          const b = await run('emit_result(find().data)\n');
          expect(a.error, JSON.stringify(a.error)).toBeUndefined();
          expect(b.error, JSON.stringify(b.error)).toBeUndefined();
          const planted = a.data as { token: string; rewrote: string[] };
          const found = b.data as { token: string; tmp: string; shm: string; others: number[] };
          // the top level reached the worker's modules (its own copies of them)
          expect(planted.rewrote).toEqual([
            'toolsmith_worker.worker',
            'toolsmith_worker.hygiene',
            'toolsmith_worker.jobns',
          ]);
          // (before, on docker and bubblewrap: job B read job A's files and saw its daemon)
          expect(found.tmp).toBe('FileNotFoundError');
          expect(found.shm).toBe('FileNotFoundError');
          expect(found.others).toEqual([]);
          // tools.py ran again in job B's own process (before: one load in the worker, one token for all)
          expect(found.token).not.toBe(planted.token);
        }, 300_000);
      });

      describe("a standard-library package's __main__ named in tools.py", () => {
        const run = oneWorker(make, MAIN_MODULES, ['add_one']);

        it('the worker imports no program ahead: the tools load and the job runs', async () => {
          const a = await run('emit_result(add_one(1).data)\n');
          // (before: "the worker died while loading tools ... Ran 0 tests in 0.000s": unittest's
          // discovery ran in the worker, in its own folder, then its sys.exit ended the worker)
          expect(a.error, JSON.stringify(a.error)).toBeUndefined();
          expect(a.data).toBe(2);
        }, 300_000);
      });

      describe("a top level that raises only in a job's process", () => {
        const run = oneWorker(make, FAILS_LATER, ['add_one']);

        it("the job fails naming tools.py's error, the line and why", async () => {
          // (the first job runs in the process that described the tools, where it loaded)
          const first = await run('emit_result(add_one(1).data)\n');
          expect(first.data, JSON.stringify(first.error)).toBe(2);
          const a = await run('emit_result(add_one(1).data)\n');
          expect(a.data).toBeUndefined();
          expect(a.error?.type).toBe('ToolsFailed');
          expect(a.error?.message).toContain(
            "tools.py raised RuntimeError: not in a job (tools.py line 3) as this job's process loaded it",
          );
        }, 300_000);
      });
    },
  );
}

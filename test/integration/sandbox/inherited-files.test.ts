/**
 * What a job's process inherits besides memory (docs/security.md, "Every job alone"): each job's process
 * is a copy of the fork server, and a copy shares the open files and shared mappings of the process it
 * was copied from. A pipe, a socketpair, a file in /tmp or `mmap.mmap(-1, n)` (shared unless told
 * otherwise) that tools.py opened when it loaded was one channel through every job of the worker, with
 * every wall on: job A wrote its secret there, job B read it (its fresh mounts and the wipe did nothing:
 * the wipe unlinked the file, the descriptor kept it); a file opened read-only carried its offset from
 * job to job. Now such a load is refused, naming each thing (a folder too: a path looked up from it
 * crosses the worker's mounts, not the job's); a read-only file on a read-only mount may stay open, and
 * each job's process opens it again for itself.
 */
import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { bubblewrapFactory, dockerFactory, oneWorker } from '../../support/sandbox.ts';

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

const SECRET = 'job-a-secret-4f1c';

const LEVELS = [
  ['docker', () => dockerFactory()],
  ['gvisor', () => dockerFactory({ runtime: 'runsc' })],
  ['process', async () => bubblewrapFactory()],
] as const;

for (const [level, make] of LEVELS) {
  describe(
    `what tools.py opens when it loads is no channel between jobs: ${level}`,
    { concurrent: true },
    () => {
      describe('a pipe, a socketpair, a file in /tmp and shared memory opened at load', () => {
        const run = oneWorker(make, CHANNELS, ['plant', 'find']);

        it('the load is refused, naming each; no later job reads what an earlier one wrote', async () => {
          const a = await run(`emit_result(plant(secret="${SECRET}").data)\n`);
          const b = await run('emit_result(find().data)\n');
          // (before: job B read the secret from all four, its worker the same as job A's)
          expect(JSON.stringify(b.data ?? null)).not.toContain(SECRET);
          for (const r of [a, b] as ExecutionResult[]) {
            expect(r.exitReason).toBe('infra');
            const message = r.error?.message ?? '';
            expect(message).toMatch(/SharedAcrossJobs: tools\.py left open, when it loaded, what every job/);
            expect(message).toMatch(/\(pipe:\[\d+\]\)/);
            expect(message).toMatch(/\(socket:\[\d+\]\)/);
            expect(message).toContain('(/tmp/tools-load.log)');
            expect(message).toMatch(/descriptor \d+ \(\/\)/);
            expect(message).toMatch(/a shared writable mapping of \/dev\/zero \(deleted\) \(4096 bytes/);
          }
        }, 300_000);
      });

      describe('a mount tools.py gives the worker as it loads', () => {
        const run = oneWorker(make, MOUNTS, ['plant', 'find']);

        it('the worker stops rather than start jobs from it; no later job reads what an earlier one wrote there', async () => {
          const a = await run(`emit_result(plant(secret="${SECRET}").data)\n`);
          const b = await run('emit_result(find().data)\n');
          // (before: job B read the secret on docker and gvisor)
          expect(JSON.stringify(b.data ?? null)).not.toContain(SECRET);
          if (level === 'process') {
            // bubblewrap's own filter refuses the unshare, and the worker holds no capability: no mount made
            expect(a.data).toBe('no mount');
            expect(b.data).toBe('FileNotFoundError');
            return;
          }
          for (const r of [a, b]) {
            expect(r.exitReason).toBe('infra');
            expect(r.error?.message).toMatch(
              /WorkerChanged: tools\.py changed the worker itself as it loaded \(its mounts/,
            );
          }
        }, 300_000);
      });

      describe('a file opened read-only at load', () => {
        const run = oneWorker(make, READ_ONLY, ['seek', 'where']);

        it('each job reads it at its own offset, never where an earlier job left it', async () => {
          const a = await run('emit_result(seek(to=5).data)\n');
          const b = await run('emit_result(where().data)\n');
          if (level === 'gvisor') {
            // gVisor's statvfs does not say its root is read-only (f_flag 32 on a read-only rootfs), and its
            // fdinfo has no mount id to look it up: there such a file is refused like the rest.
            expect(a.error?.message).toMatch(/SharedAcrossJobs: .*\(\/usr\/lib\/os-release\)/);
            return;
          }
          expect(a.error, JSON.stringify(a.error)).toBeUndefined();
          expect(a.data).toBe(5);
          expect(b.error, JSON.stringify(b.error)).toBeUndefined();
          // (before: [267, '']: where job A's read left the shared offset, the file's end)
          expect(b.data).toEqual([0, 'PRET']);
        }, 300_000);
      });
    },
  );
}

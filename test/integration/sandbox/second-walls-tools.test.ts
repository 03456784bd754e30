/**
 * The attacks of a hostile tools.py (inherited-files.test.ts: its top level rewriting the worker's own
 * Python, channels it opens as it loads, a mount) and what a job's process leaves for the next (a
 * daemon, a listening abstract socket, files, an environment, a signal handler, a key in the session or
 * user keyring), with the first walls switched off (docs/security.md, "Every job alone"): the job's
 * namespaces (`nojobns`), its seccomp filter (`noseccomp`), and both. The second walls (the sweep of
 * the sandbox's pid namespace, the wipe of its writable mounts; tools.py running in the job's process
 * only; the sandbox's own seccomp profile or filter, which refuses keyrings) still keep the next job
 * from every secret of the last. The controls switch the sweep, the wipe, or both off too: then what
 * that wall stopped reaches the next job, so the cases can fail.
 */
import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { bubblewrapFactory, dockerFactory, oneWorker } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { READ_FILE, REWRITE_WORKER } from './support/hostile-tools.ts';

const ATTACK = `import ctypes
import errno
import mmap
import os
import signal
import socket
import sys
import time

# The top level, in every job's process as it loads: it rewrites the worker's modules (its own copies),
# opens channels, tries a mount with whatever capability the process still holds.
${REWRITE_WORKER}_R, _W = os.pipe()
os.set_blocking(_R, False)


def _open_log():
    # (an earlier job's log of another uid, gVisor's job uids, with the wipe off: opened to read)
    for mode in ("a+", "r"):
        try:
            return open("/tmp/tools-load.log", mode)
        except OSError:
            pass
    return None


_LOG = _open_log()
_A, _B = socket.socketpair()
_B.setblocking(False)
_SHM = mmap.mmap(-1, 4096)
_NAME = b"\\0toolsmith-left-behind"

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.syscall.restype = ctypes.c_long


class _Head(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _mount():
    head, data = _Head(0x20080522, 0), (_Data * 2)()
    if _libc.capget(ctypes.byref(head), data) == 0:
        data[0].effective, data[1].effective = data[0].permitted, data[1].permitted
        _libc.capset(ctypes.byref(head), data)
    if not os.path.isdir("/srv"):
        return None
    return "/srv" if _libc.mount(b"tmpfs", b"/srv", b"tmpfs", 0, b"size=1m,mode=777") == 0 else None


MOUNTED = _mount()


${READ_FILE}

def _survivor(secret):
    """A daemon of its own session, named so the next job can look for it, serving the secret on an
    abstract socket (the sandbox's network namespace where the job has none of its own)."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            try:
                _libc.prctl(15, b"ts-left-behind", 0, 0, 0)
                s = socket.socket(socket.AF_UNIX)
                s.bind(_NAME)
                s.listen(4)
                s.settimeout(120)
                while True:
                    c, _ = s.accept()
                    c.sendall(secret.encode())
                    c.close()
            finally:
                os._exit(0)
        os._exit(0)
    os.wait()


@tool(grade=(2, 2))
def plant(secret: str) -> ToolResponse:
    """Leaves the secret everywhere a job can.

    Args:
        secret: What a later job must not read.
    """
    os.write(_W, secret.encode())
    _LOG.write(secret)
    _LOG.flush()
    os.chmod("/tmp/tools-load.log", 0o666)  # (a later job under another uid may read it)
    _A.send(secret.encode())
    _SHM[: len(secret)] = secret.encode()
    for path in ("/tmp/left", "/dev/shm/left", os.getcwd() + "/left"):
        try:
            with open(path, "w") as f:
                f.write(secret)
            os.chmod(path, 0o666)
        except OSError:
            pass
    if MOUNTED:
        with open(MOUNTED + "/left", "w") as f:
            f.write(secret)
    os.environ["TOOLSMITH_LEFT"] = secret
    for ring in (-3, -4):  # the session and user keyrings (add_key; refused around the job as well)
        _libc.syscall(248, b"user", b"toolsmith-left", secret.encode(), len(secret), ring)
    signal.signal(signal.SIGUSR1, lambda *_: None)
    _survivor(secret)
    time.sleep(0.2)  # (the survivor listening before the job ends)
    return ToolResponse(success=True, data={"token": TOKEN, "rewrote": REWROTE, "mounted": MOUNTED})


@tool(grade=(2, 2))
def find() -> ToolResponse:
    """What an earlier job left behind, wherever it is."""
    out = {"token": TOKEN}
    try:
        out["pipe"] = os.read(_R, 100).decode()
    except OSError as e:
        out["pipe"] = type(e).__name__
    if _LOG is None:
        out["log"] = None
    else:
        _LOG.seek(0)
        out["log"] = _LOG.read()
    try:
        out["socketpair"] = _B.recv(100).decode()
    except OSError as e:
        out["socketpair"] = type(e).__name__
    out["memory"] = _SHM[:64].rstrip(b"\\0").decode()
    for key, path in (("tmp", "/tmp/left"), ("shm", "/dev/shm/left"), ("cwd", os.getcwd() + "/left"), ("srv", "/srv/left")):
        out[key] = _read(path)
    out["env"] = os.environ.get("TOOLSMITH_LEFT")
    key, buf = -1, ctypes.create_string_buffer(100)
    for ring in (-3, -4):
        key = key if key >= 0 else _libc.syscall(250, 10, ring, b"user", b"toolsmith-left", 0)  # KEYCTL_SEARCH
    out["keyring"] = buf.raw[: _libc.syscall(250, 11, key, buf, 100)].decode() if key >= 0 else None  # KEYCTL_READ
    out["handler"] = signal.getsignal(signal.SIGUSR1) is not signal.SIG_DFL
    survivors = []
    for p in os.listdir("/proc"):
        if p.isdigit() and _read(f"/proc/{p}/comm").strip() == "ts-left-behind":
            survivors.append(int(p))
    out["survivors"] = survivors
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(_NAME)
        out["abstract"] = s.recv(100).decode()
    except OSError as e:
        out["abstract"] = errno.errorcode.get(e.errno, type(e).__name__)
    return ToolResponse(success=True, data=out)
`;

const SECRET = 'job-a-secret-7d2e';

type Found = Record<string, unknown> & { token: string; survivors: number[] };

const ok = (r: ExecutionResult) => {
  expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  return r.data as Found;
};

/** Job A plants, job B (on the same worker) looks: what B found, and what A said. */
async function aThenB(run: ReturnType<typeof oneWorker>) {
  const a = ok(await run(`emit_result(plant(secret="${SECRET}").data)\n`));
  const b = ok(await run('emit_result(find().data)\n'));
  return { a, b };
}

const FIRST_WALLS_OFF = [['nojobns'], ['noseccomp'], ['nojobns', 'noseccomp']];

const LEVELS: [string, (wallsOff: string[]) => Promise<TestFactory>][] = [
  ['docker', (wallsOff) => dockerFactory({ wallsOff })],
  ['gvisor', (wallsOff) => dockerFactory({ runtime: 'runsc', wallsOff })],
  ['process', async (wallsOff) => bubblewrapFactory({ wallsOff })],
];

for (const [level, make] of LEVELS) {
  describe(`a hostile tools.py with the first walls off: ${level}`, { concurrent: true }, () => {
    for (const off of FIRST_WALLS_OFF) {
      describe(off.join(', '), () => {
        const run = oneWorker(() => make(off), ATTACK, ['plant', 'find']);

        it('the next job finds nothing of the last: no file, channel, process, socket, mount, key, variable or handler', async () => {
          const { a, b } = await aThenB(run);
          // the top level reached the worker's modules (its own process's copies of them)
          expect(a['rewrote']).toEqual([
            'toolsmith_worker.worker',
            'toolsmith_worker.hygiene',
            'toolsmith_worker.jobns',
          ]);
          // no capability left to mount with, in any of them
          expect(a['mounted']).toBeNull();
          expect(JSON.stringify(b), JSON.stringify(a)).not.toContain(SECRET);
          expect(b).toMatchObject({
            pipe: 'BlockingIOError',
            log: '',
            socketpair: 'BlockingIOError',
            memory: '',
            tmp: 'FileNotFoundError',
            shm: 'FileNotFoundError',
            cwd: 'FileNotFoundError',
            srv: 'FileNotFoundError',
            env: null,
            handler: false,
            keyring: null,
            survivors: [],
          });
          // (refused: no listener; gVisor with the namespaces on: no abstract name in the job's own network)
          expect(b['abstract']).toMatch(/^(ECONNREFUSED|ENOENT|EPERM|EACCES|EINVAL)$/);
          // tools.py ran again in job B's own process
          expect(b.token).not.toBe(a.token);
        }, 300_000);
      });
    }

    // Each second wall switched off in turn (with both first walls off): what it alone stopped gets through.
    for (const [off, wants] of [
      ['nosweep', { abstract: SECRET, survivors: 1, tmp: 'FileNotFoundError' }],
      ['nowipe', { abstract: 'ECONNREFUSED', survivors: 0, tmp: SECRET }],
      ['nosweep, nowipe', { abstract: SECRET, survivors: 1, tmp: SECRET }],
    ] as const) {
      describe(`control: ${off} as well`, () => {
        const run = oneWorker(() => make(['nojobns', 'noseccomp', ...off.split(', ')]), ATTACK, [
          'plant',
          'find',
        ]);

        it("the same attack reaches the next job where that wall stood: the last job's files, or its daemon and socket", async () => {
          const { b } = await aThenB(run);
          expect(b, JSON.stringify(b)).toMatchObject({ abstract: wants.abstract, tmp: wants.tmp });
          expect(b.survivors).toHaveLength(wants.survivors);
          if (wants.tmp === SECRET) expect(b).toMatchObject({ shm: SECRET, cwd: SECRET, log: SECRET });
          // what lives in a process stays there: each is a fresh fork of the fork server
          expect(b).toMatchObject({ pipe: 'BlockingIOError', memory: '', env: null, handler: false });
        }, 300_000);
      });
    }
  });
}

/**
 * A job's process says which walls it has in its first line to the worker (`{"type": "walls", "alone":
 * ...}`); a process wholly alone lets the worker make the next job's process as soon as a job's result is
 * out, before that job's sweep and wipe, and keeps it out of the sweep (docs/scaling.md, "The next job's
 * process"). tools.py runs in that process and can find its protocol pipe (child_main's frame holds it):
 * the process writes its walls line before tools.py runs, so a line tools.py forges comes second and is
 * dropped. Here, with the namespaces off (a plain fork, not alone), tools.py claims `alone`: were it
 * taken, the next job's process would be made beside what the last job left: daemons that keep forking
 * (their pids then follow the next process's own: the next pid its job gets is not its own plus one),
 * and a file in /tmp, which that process's tools.py reads as it loads, before the wipe. With the walls
 * line written after tools.py ran, this failed 12 times in 12 (docker, gvisor, process: 1 to 6 pids
 * after the next process's own; on gVisor twice the next job's process read the last job's secret).
 */
const FORGER = `import os
import sys
import time

FORGED = False
if not tool.__self__.describe:  # (the process that describes the tools sends its manual second)
    _f = sys._getframe()
    while _f is not None and "msg_w" not in _f.f_locals:
        _f = _f.f_back
    if _f is not None:
        os.write(_f.f_locals["msg_w"], b'{"type":"walls","alone":true}\\n')
        FORGED = True


${READ_FILE}

AT_LOAD = _read("/tmp/left")  # what this process found as it loaded
TICKERS = 4  # (daemons forking without end: at least one forks between a process made early and the sweep)


@tool(grade=(2, 2))
def plant(secret: str) -> ToolResponse:
    """Leaves the secret in /tmp and a daemon that forks without end.

    Args:
        secret: What a later job must not read.
    """
    with open("/tmp/left", "w") as f:
        f.write(secret)
    if os.fork() == 0:
        os.setsid()
        for _ in range(TICKERS):
            if os.fork() == 0:
                end = time.monotonic() + 120
                while time.monotonic() < end:
                    try:
                        if os.fork() == 0:
                            os._exit(0)
                        os.wait()
                    except OSError:
                        time.sleep(0.001)
                os._exit(0)
        os._exit(0)
    os.wait()
    global _BALLAST
    _BALLAST = b"x" * (16 << 20)  # (its process takes a moment to end: the next one is made meanwhile)
    return ToolResponse(success=True, data={"forged": FORGED, "pid": os.getpid()})


@tool(grade=(2, 2))
def find() -> ToolResponse:
    """What this process found as it loaded, and how many pids were handed out since it was made."""
    child = os.fork()  # (the next pid handed out in the sandbox: gVisor has no ns_last_pid)
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    return ToolResponse(success=True, data={"forged": FORGED, "at_load": AT_LOAD, "after_me": child - os.getpid() - 1})
`;

for (const [level, make] of LEVELS) {
  describe(`a walls line forged by tools.py (namespaces off): ${level}`, () => {
    const run = oneWorker(() => make(['nojobns']), FORGER, ['plant', 'find']);

    it("is not taken: the next job's process is made after the last job's sweep and wipe", async () => {
      // (the first job runs in the process that described the tools, which forges nothing)
      expect((await run('emit_result(1)\n')).data).toBe(1);
      const a = ok(await run(`emit_result(plant(secret="${SECRET}").data)\n`));
      expect(a['forged']).toBe(true);
      const b = ok(await run('emit_result(find().data)\n'));
      expect(b['forged']).toBe(true);
      // (with the forged line taken: the secret read as the process loaded, and the ticker's pids after it)
      expect(b['at_load']).toBe('FileNotFoundError');
      expect(b['after_me'], JSON.stringify(b)).toBe(0);
    }, 300_000);
  });
}

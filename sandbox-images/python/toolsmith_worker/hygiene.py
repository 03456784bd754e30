"""What keeps jobs apart and the sandbox clean: the subreaper, stray processes, the writable mounts, no
dumps, the OOM counter, and the egress relay of a tool container."""

import os
import signal
import socket
import stat
import time

# Between jobs on one warm sandbox (docs/sandboxes.md, "Between jobs"): nothing a job started may outlive
# it, nothing it wrote anywhere may meet the next job, and no job may read the worker's memory or a later
# job's. Where the sandbox has its own pid namespace and mounts (a container or bubblewrap:
# TOOLSMITH_PRIVATE_TMP=1) every process but init, the worker and its fork server is a job's leftover and
# is killed after each job, and every writable mount is emptied; the next job's child is forked only after
# that, and a namespace that cannot be proven clean ends the worker (the host replaces it). A plain
# process (no namespace of its own) only ends the worker's own children and never touches /tmp.
PRIVATE_TMP = os.environ.get("TOOLSMITH_PRIVATE_TMP") == "1"
# The folder holding the worker (its entry and this package): under /tmp in the process backend.
OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBC = []


def _libc():
    if not _LIBC:
        import ctypes

        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def _prctl(option, value):
    try:
        return _libc().prctl(option, value, 0, 0, 0) == 0
    except Exception:  # noqa: BLE001
        return False


# ---------------------------------------------------------------- a uid of its own for each job

# Where the container starts the worker as root with only CAP_SETUID, CAP_SETGID and CAP_KILL (gVisor:
# docker.ts), the worker becomes the image's user at once and each job runs under a uid of its own from
# JOB_UID_BASE on (docs/security.md, "A uid of its own"): nothing of the worker or fork server (their
# stdio, pipes, files) is then the job's, on a kernel whose /proc lets a process of the same uid open
# another's fds whatever its dumpable flag. The worker keeps CAP_KILL (it kills jobs) and, not effective,
# CAP_SETUID/CAP_SETGID for the fork servers it starts and its wipe; the fork server holds all three; a
# job none. JOB_UIDS is False where the worker did not start as root: jobs then share the worker's uid.
USER = 65534
JOB_UID_BASE = 100000
JOB_UID_COUNT = 1000
CAP_KILL, CAP_SETGID, CAP_SETUID = 1 << 5, 1 << 6, 1 << 7
CAP_SYS_CHROOT, CAP_SYS_ADMIN = 1 << 18, 1 << 21
# gVisor (Python): kept permitted by the worker alone (never the fork server's or a job's), effective only
# while its wipe unlinks the POSIX message queues a job left: gVisor's /dev/mqueue is mode 0555 whatever is
# asked (chmod refused), so no one without it may remove a queue there, its owner included (measured).
CAP_DAC_OVERRIDE = 1 << 1
JOB_UIDS = [False]
# gVisor (docker.ts adds them to the three above): CAP_SYS_ADMIN and CAP_SYS_CHROOT, kept permitted by the
# worker and effective in the fork server only, let each job process mount a /proc of its own pid
# namespace and fresh writable mounts in a tree of its own and chroot into it (jobns, "rooted" jobs).
JOB_ROOT = [False]
ROOT_CAPS = CAP_SYS_ADMIN | CAP_SYS_CHROOT


def _caps(effective=None, permitted=None):
    """Reads this process's capability sets (the low 32 bits: every capability used here), sets them when
    given; returns (effective, permitted) as they are after."""
    import ctypes

    class Head(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    libc = _libc()
    head, data = Head(0x20080522, 0), (Data * 2)()
    if libc.capget(ctypes.byref(head), data) != 0:
        return 0, 0
    if effective is not None or permitted is not None:
        if permitted is not None:
            data[0].permitted = permitted
        data[0].effective = (effective if effective is not None else data[0].effective) & data[0].permitted
        data[0].inheritable = data[1].effective = data[1].permitted = data[1].inheritable = 0
        libc.capset(ctypes.byref(head), data)
        libc.capget(ctypes.byref(head), data)
    return data[0].effective, data[0].permitted


def drop_root():
    """First thing in the worker: started as root (with no capability but CAP_SETUID, CAP_SETGID and
    CAP_KILL, on gVisor also CAP_SYS_ADMIN and CAP_SYS_CHROOT), it becomes USER, keeping those permitted
    and CAP_KILL effective; job uids (and job trees: JOB_ROOT) are then on. Started as any other user:
    nothing changes."""
    if os.getuid() != 0:
        return False
    MQUEUE_MINE[0] = mount_mqueue()
    _prctl(8, 1)  # PR_SET_KEEPCAPS: the permitted set survives leaving uid 0
    os.setgroups([])
    os.setresgid(USER, USER, USER)
    os.setresuid(USER, USER, USER)
    _prctl(8, 0)
    want = CAP_KILL | CAP_SETGID | CAP_SETUID
    _, permitted = _caps(CAP_KILL, _caps()[1] & (want | ROOT_CAPS | (CAP_DAC_OVERRIDE if MQUEUE_MINE[0] else 0)))
    JOB_UIDS[0] = os.getresuid() == (USER, USER, USER) and permitted & want == want
    JOB_ROOT[0] = JOB_UIDS[0] and permitted & ROOT_CAPS == ROOT_CAPS
    if not JOB_UIDS[0]:
        _caps(0, 0)
    elif not JOB_ROOT[0]:
        _caps(CAP_KILL, want)
    MQUEUE_MINE[0] = MQUEUE_MINE[0] and JOB_ROOT[0] and bool(permitted & CAP_DAC_OVERRIDE)
    return JOB_UIDS[0]


MQUEUE = "/dev/mqueue"
MQUEUE_MINE = [False]  # the worker mounted /dev/mqueue (gVisor) and holds CAP_DAC_OVERRIDE for its wipe


def mount_mqueue():
    """gVisor (runsc mounts no /dev/mqueue, though it has the file system): the sandbox's POSIX message
    queues mounted at /dev/mqueue, nosuid, nodev, noexec, by the worker while it is still root with
    CAP_SYS_ADMIN, so that its wipe finds and removes the queues a job made (a queue is reached by name
    alone: with no mount, nothing lists it; found with the job namespaces and the IPC filter off). Each
    rooted job's tree gets a fresh mqueue of its own IPC namespace there (jobns._plan), as on runc. Where
    /dev/mqueue is already a mount, or the kernel refuses, nothing changes."""
    import ctypes

    try:
        with open("/proc/self/mountinfo", "rb") as f:
            if any(ln.split()[4:5] == [MQUEUE.encode()] for ln in f.read().splitlines()):
                return False
        os.makedirs(MQUEUE, mode=0o755, exist_ok=True)
    except OSError:
        return False
    lib = _libc()
    lib.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    return lib.mount(b"mqueue", MQUEUE.encode(), b"mqueue", 0x2 | 0x4 | 0x8, None) == 0  # nosuid|nodev|noexec


def server_caps():
    """In the fork server: CAP_SETUID and CAP_SETGID effective too (it moves each job to its uid), and on
    gVisor CAP_SYS_ADMIN and CAP_SYS_CHROOT (its clone of a new pid namespace, the job tree's mounts)."""
    if JOB_UIDS[0]:
        # (permitted cut to the same: CAP_DAC_OVERRIDE, the worker's for its wipe, is none of its own)
        held = CAP_KILL | CAP_SETGID | CAP_SETUID | (ROOT_CAPS if JOB_ROOT[0] else 0)
        _caps(held, held)


def job_uid(n):
    """The uid (and gid) of the n-th job process a fork server makes: consecutive jobs (the running one
    and the next one, made while it runs) never share one."""
    return JOB_UID_BASE + n % JOB_UID_COUNT


def become_job(uid):
    """In a job's process (a plain fork): its own uid and gid, every id, then no capability at all.
    True when the process holds exactly that."""
    try:
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    except OSError:
        return False
    return os.getresuid() == (uid, uid, uid) and os.getresgid() == (uid, uid, uid) and _caps(0, 0) == (0, 0)


class _AsOwner:
    """While a wipe works on what a job (under its own uid) left: the effective uid and gid of the
    folder's owner, so the sticky /tmp and the job's own folders let the worker in (gVisor has no
    setfsuid; the real and saved ids stay the worker's, CAP_SETUID/CAP_SETGID effective for the wipe
    only). The job is over by then, and the next one runs under another uid."""

    def __init__(self, st):
        self.uid = st.st_uid if JOB_UIDS[0] and st.st_uid != USER else None
        self.gid = st.st_gid

    def __enter__(self):
        if self.uid is not None:
            os.setresgid(-1, self.gid, -1)
            os.setresuid(-1, self.uid, -1)
        return self

    def __exit__(self, *_):
        if self.uid is not None:
            os.setresuid(-1, USER, -1)
            os.setresgid(-1, USER, -1)
        return False


def trim_heap():
    try:
        if _LIBC:
            _LIBC[0].malloc_trim(0)
    except Exception:  # noqa: BLE001 - not glibc: nothing to trim
        pass


def needs_subreaper(jobs_in_pidns, pid=None):
    """Whether the worker must be a child subreaper: only where it is not pid 1 (a plain process, or a
    container whose pid 1 is an init: `docker run --init`, a pod sharing its process namespace) and its
    jobs do not run in pid namespaces of their own (plain forks: namespaces refused or switched off), so
    that a job's orphans become its children (reap_strays, the sweep) rather than another process's.
    Where jobs have pid namespaces it must not be one: gVisor 20240729 hands a job pid namespace's orphans
    to a subreaper outside it when that namespace's pid 1 exits instead of killing them (20221219 and
    Linux kill them), so a job's survivor would outlive its pid namespace (docs/sandboxes.md, "Each job
    alone"). At pid 1 every orphan of the sandbox is the worker's already."""
    return (os.getpid() if pid is None else pid) != 1 and not jobs_in_pidns


def become_subreaper(jobs_in_pidns):
    """PR_SET_CHILD_SUBREAPER where needs_subreaper says so; whether the worker is one now."""
    if not needs_subreaper(jobs_in_pidns):
        return False
    return _prctl(36, 1)


def set_pdeathsig():
    return _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the process that forked us


def no_dump():
    """PR_SET_DUMPABLE 0: no process of the same user may read this one's memory (/proc/<pid>/mem,
    environ, fds) or ptrace it. Set by the worker (and so inherited by the fork server and every child,
    fork keeps it) and again by each child before its job's code runs."""
    return _prctl(4, 0)


def set_dumpable(on):
    return _prctl(4, 1 if on else 0)


def oom_first():
    """Makes this process (a job's) the OOM killer's first choice over the worker and fork server (a
    process may raise its own score); briefly dumpable, as its /proc files belong to root otherwise.
    (A job process in namespaces of its own does this in jobns.enter, in its one dumpable moment.)"""
    set_dumpable(True)
    oom_score_first()
    set_dumpable(False)


def oom_score_first():
    """oom_first's write alone, for a process that is dumpable already."""
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(fd, b"1000")
        finally:
            os.close(fd)
    except OSError:
        pass


def _children():
    try:
        fd = os.open(f"/proc/self/task/{os.getpid()}/children", os.O_RDONLY)
        try:
            text = os.read(fd, 65536)
        finally:
            os.close(fd)
        return [int(p) for p in text.split()]
    except (OSError, ValueError):
        return []


# Whether the worker is a child subreaper (become_subreaper; reported in its ready message): False at pid 1,
# where its jobs have pid namespaces of their own, or where the kernel has none. A job's daemonized
# grandchildren are then re-parented to the namespace's init (or die with the job's pid namespace).
SUBREAPER = False


def reap_strays(server=0):
    """The process backend (no namespace of its own): kills and reaps every process the worker still has
    as a child once a job is over (except its fork server, pid `server`)."""
    for _ in range(50):
        kids = [pid for pid in _children() if pid != server]
        if not kids:
            return
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


# ---------------------------------------------------------------- the sandbox's pid namespace

_LAST_PID = []  # /proc/sys/kernel/ns_last_pid, open (-1 where the kernel has none: gVisor)


def _last_pid():
    """The last pid handed out in this pid namespace (None where unknown): unchanged across a scan of
    /proc, no process was created during the scan, so what the scan saw is the whole namespace."""
    if not _LAST_PID:
        try:
            _LAST_PID.append(os.open("/proc/sys/kernel/ns_last_pid", os.O_RDONLY | os.O_CLOEXEC))
        except OSError:
            _LAST_PID.append(-1)
    if _LAST_PID[0] < 0:
        return None
    try:
        return int(os.pread(_LAST_PID[0], 32, 0))
    except (OSError, ValueError):
        return None


def _stat(pid):
    """(state, parent pid) of a process, None when it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        try:
            text = os.read(fd, 4096)
        finally:
            os.close(fd)
        fields = text.rsplit(b")", 1)[1].split()
        state = fields[0]
        if state == b"Z" and _live_thread(pid):
            # The leader thread exited on its own (exit, not exit_group) and another thread runs on: the
            # process is alive although its stat says zombie.
            state = b"R"
        return state, int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


def _live_thread(pid):
    """True when a thread of the process other than its (zombie) leader is still alive."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tids:
        if tid == str(pid):
            continue
        try:
            fd = os.open(f"/proc/{pid}/task/{tid}/stat", os.O_RDONLY)
            try:
                text = os.read(fd, 4096)
            finally:
                os.close(fd)
            if text.rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                return True
        except (OSError, IndexError):
            continue
    return False


def _others(keep):
    """Every process of the namespace outside `keep`, as {pid: (state, parent)} (the gone left out)."""
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in keep:
            st = _stat(int(name))
            if st is not None:
                found[int(name)] = st
    return found


def stop_and_kill(keep):
    """Stops every process of the namespace at once, kills all but `keep` (and the caller), then lets
    `keep` go on. kill(-1) reaches every process this user may signal except the caller and init, in one
    step that a fork cannot slip past (a child forked meanwhile gets the signal too), so a fork loop
    cannot outrun it. Run by the fork server (the worker asks it: no fork needed, even at the pids limit),
    or by a short-lived child of the worker when there is no fork server: the worker is stopped too."""
    me = os.getpid()
    try:
        os.kill(-1, signal.SIGSTOP)
        mine = keep | {me}
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            live = [p for p, (state, _) in _others(mine).items() if state not in (b"Z", b"X")]
            if not live:
                break
            for p in live:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.001)
    finally:
        for p in keep:
            if p not in (1, me):
                try:
                    os.kill(p, signal.SIGCONT)
                except OSError:
                    pass


def _sweep(keep, by_server):
    """stop_and_kill, by the fork server (`by_server()`, False when it cannot) or else by a child of the
    worker; when neither can be had, the worker kills what it sees itself and the caller looks again."""
    if by_server():
        return
    try:
        pid = os.fork()
    except OSError:
        for p, (state, _) in _others(keep).items():
            if state not in (b"Z", b"X"):
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        return
    if pid == 0:
        try:
            stop_and_kill(keep)
        finally:
            os._exit(0)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _look(keep, me, server, reap_server):
    """One scan of the namespace: the live processes outside `keep`, and whether the scan is exact (no pid
    was handed out while it ran). Zombies are reaped on the way (the fork server's by `reap_server()`)."""
    before = _last_pid()
    others = _others(keep)
    exact = before is not None and before == _last_pid()
    live = [p for p, (state, _) in others.items() if state not in (b"Z", b"X")]
    for p, (state, parent) in others.items():
        if state == b"Z" and parent == me:
            try:
                os.waitpid(p, os.WNOHANG)
            except ChildProcessError:
                pass
    if server and any(state == b"Z" and parent == server for state, parent in others.values()):
        reap_server()
    return live, exact


def clean_namespace(server, reap_server, sweep_by_server, spare=0):
    """After a job, in the sandbox's own pid namespace: makes init, the worker and its fork server (pid
    `server`) the only live processes left (and the next job's process, pid `spare`, made while the job
    ran in namespaces of its own that job never saw), and proves it: a scan of /proc during which no pid
    was handed out (where the kernel does not tell, gVisor: two empty scans in a row). Anything else found
    is swept (`stop_and_kill`, by the fork server: `sweep_by_server()`). False when the namespace could not
    be proven clean: the caller ends the worker."""
    me = os.getpid()
    keep = {1, me, server} if server else {1, me}
    if spare:
        keep.add(spare)
    for attempt in range(6):
        live, exact = _look(keep, me, server, reap_server)
        if not live and (exact or (_last_pid() is None and not _look(keep, me, server, reap_server)[0])):
            return True
        if attempt:
            time.sleep(0.002 * attempt)  # (zombies of init: it reaps them in a moment)
        if live:
            _sweep(keep, sweep_by_server)
    return False


# ---------------------------------------------------------------- IPC objects

# The system calls that make or open SysV IPC objects and POSIX message queues, per architecture (the
# audit arch of seccomp_data, then shmget, semget, msgget, mq_open). These objects live in the sandbox's
# IPC namespace, shared by every job, and no file system lists them everywhere (gVisor has no
# /proc/sysvipc; only the worker's own /dev/mqueue lists queues there and on bubblewrap): job processes
# may not make or open them at all.
_IPC_CALLS = {"x86_64": (0xC000003E, (29, 64, 68, 240)), "aarch64": (0xC00000B7, (194, 190, 186, 180))}


def deny_ipc():
    """Installs a seccomp filter (inherited by every process forked after) that fails those calls with
    EPERM. True when it is in place."""
    import platform

    arch = _IPC_CALLS.get(platform.machine())
    if arch is None:
        return False
    audit, calls = arch
    # Only loads, jumps with constants and returns, which the kernel's seccomp cache can evaluate: every
    # other call stays "always allowed" and skips the filters (measured: getppid costs the same with it).
    n = len(calls)
    deny = 5 + n  # (the allow is at 4 + n)
    prog = [
        (0x20, 0, 0, 4),  # ld [arch]
        (0x15, 0, deny - 2, audit),  # another arch (32-bit `int 0x80`: its own numbers for these calls): denied
        (0x20, 0, 0, 0),  # ld [nr]
        (0x35, deny - 4, 0, 0x40000000),  # jge __X32_SYSCALL_BIT: the x32 ABI, denied as a whole
    ]
    for i, nr in enumerate(calls):
        prog.append((0x15, deny - (4 + i) - 1, 0, nr))  # jeq nr: deny
    prog += [(0x06, 0, 0, 0x7FFF0000), (0x06, 0, 0, 0x00050000 | 1)]  # allow; errno EPERM
    return install_filter(prog)


class _Filter:
    """ctypes types of a seccomp program (made on first use)."""

    types = None


def filter_program(prog):
    """A classic BPF seccomp program, given as (code, jt, jf, k) tuples, as the sock_fprog that
    load_filter takes (with the array it points to kept alive beside it)."""
    import ctypes

    if _Filter.types is None:

        class Filter(ctypes.Structure):
            _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

        class Prog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]

        _Filter.types = (Filter, Prog)
    Filter, Prog = _Filter.types
    filters = (Filter * len(prog))(*prog)
    return Prog(len(prog), filters), filters


def load_filter(program):
    """Installs a program made by filter_program on this process (and every process it forks after).
    True when it is in place."""
    import ctypes

    try:
        libc = _libc()
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS (Docker's no-new-privileges sets it too)
            return False
        return libc.prctl(22, 2, ctypes.byref(program[0]), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
    except Exception:  # noqa: BLE001
        return False


def install_filter(prog):
    """Installs a seccomp program given as (code, jt, jf, k) tuples (filter_program, load_filter)."""
    return load_filter(filter_program(prog))


# ---------------------------------------------------------------- writable paths

_WIPE = []  # [(folder, names there when the worker started)]: every writable mount, found once
_MOUNTS = []  # [(mount point, file system type)] of those writable mounts (jobns gives each job fresh ones)
_MODES = {}  # {writable mount: its mode at the start} (a job of the mount's owner may change it)
_IPC_LEFT = []  # what the last wipe could not remove (SysV objects): the worker then stops


def find_writable():
    """Every writable mount of the sandbox (from /proc/self/mountinfo: /tmp, /dev/shm, /dev/mqueue, the
    cwd's mount, any tmpfs or read-write mount this user can write), with what each holds now."""
    _WIPE.clear()
    _MOUNTS.clear()
    seen = set()
    try:
        with open("/proc/self/mountinfo", "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        lines = []
    points = []
    for line in lines:
        parts = line.split(" - ", 1)
        head = parts[0].split()
        if len(head) < 6 or len(parts) < 2:
            continue
        point = head[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
        fstype = parts[1].split()[0]
        if "rw" not in head[5].split(","):
            continue
        if fstype in ("proc", "sysfs", "cgroup", "cgroup2", "devpts", "devtmpfs") or point.startswith(("/proc/", "/sys/")) or point in ("/proc", "/sys"):
            continue
        points.append(point)
        _MOUNTS.append((point, fstype))
    try:
        points.append(os.getcwd())
    except OSError:
        pass
    for point in points:
        mine = point == MQUEUE and MQUEUE_MINE[0]  # (gVisor's: mode 0555, wiped with CAP_DAC_OVERRIDE)
        if point in seen or not os.path.isdir(point) or not (mine or os.access(point, os.W_OK | os.X_OK)):
            continue
        seen.add(point)
        try:
            names = frozenset(os.listdir(point))
            _MODES[point] = stat.S_IMODE(os.stat(point).st_mode)
        except OSError:
            continue
        _WIPE.append((point, names))
    _MOUNTS[:] = [(p, t) for p, t in _MOUNTS if any(p == w for w, _ in _WIPE)]
    return [p for p, _ in _WIPE]


def writable_mounts():
    """The sandbox's writable mounts as (mount point, file system type), found by find_writable."""
    return list(_MOUNTS)


def _remove(path):
    """Removes a file or a whole tree a job left, whatever it did to it: folders it made unreadable or
    read-only get their owner's permissions back first (entered as that owner: _AsOwner); every folder of
    the tree is first moved up beside `path` (so no path ever grows past PATH_MAX however deep the tree,
    and nothing recurses); symbolic links are removed, never followed; another mount is never entered."""
    try:
        top = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(top.st_mode):
        with _AsOwner(top):
            try:
                os.unlink(path)
            except OSError:
                pass
        return
    folder = os.path.dirname(path)
    queue = [path]
    n = 0
    while queue:
        d = queue.pop()
        try:
            with _AsOwner(os.lstat(d)):
                n = _empty(d, folder, top, queue, n)
        except OSError:
            pass


def _empty(d, folder, top, queue, n):
    """_remove's step: empties the folder d (its subfolders moved up beside it into `queue`), removes it."""
    try:
        os.chmod(d, 0o700)
        names = os.listdir(d)
    except OSError:
        names = []
    for name in names:
        child = os.path.join(d, name)
        try:
            st = os.lstat(child)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            try:
                os.unlink(child)
            except OSError:
                pass
        elif st.st_dev == top.st_dev:
            while True:
                n += 1
                flat = os.path.join(folder, f".toolsmith-wipe-{os.getpid()}-{n}")
                if not os.path.lexists(flat):
                    break
            try:
                os.chmod(child, 0o700)
                os.rename(child, flat)
                queue.append(flat)
            except OSError:
                pass
    try:
        os.rmdir(d)
    except OSError:
        pass
    return n


def wipe_writable():
    """Empties every writable mount back to what it held when the worker started (the worker's own folder
    and mount points stay), and removes SysV IPC objects (shared memory, message queues, semaphores) a job
    made: the next job finds nothing of the last one. POSIX message queues are files of /dev/mqueue (on
    gVisor and bubblewrap a mount the sandbox makes for that: mount_mqueue, process.ts). With job uids,
    CAP_SETUID/CAP_SETGID are effective for the wipe only (each folder is entered as its owner), and on
    gVisor CAP_SYS_ADMIN too while SysV objects are removed (those of other uids, whatever their mode).
    Returns what it could not remove (SysV objects), None when nothing is left: the worker then stops."""
    _IPC_LEFT.clear()
    if JOB_UIDS[0]:
        _caps(CAP_KILL | CAP_SETGID | CAP_SETUID)
    try:
        _wipe()
    finally:
        if JOB_UIDS[0]:
            _caps(CAP_KILL)
    return _IPC_LEFT[0] if _IPC_LEFT else None


# SysV IPC objects (docs/security.md, "Every job alone"): counted by *_INFO and found by index with
# *_STAT_ANY (Linux 4.17: whatever their mode), else *_STAT, whose answer is the object's id; where objects
# are still counted after that (gVisor 20221219 answers 0 to *_STAT of shared memory and queues, and has no
# /proc/sysvipc; its ids are small), removed by id from 0, as `jobns-launch --clean` does. /proc/sysvipc
# was read before: one pread of 64 KiB, so a job that made ~400 segments first kept the rest for the next
# job (bubblewrap), and gVisor has no such file (nothing was removed there).
_SHM_INFO, _SHM_STAT, _SHM_STAT_ANY = 14, 13, 15
_MSG_INFO, _MSG_STAT, _MSG_STAT_ANY = 12, 11, 13
_SEM_INFO, _SEM_STAT, _SEM_STAT_ANY = 19, 18, 20
_IPC_KINDS = (
    # (name, ctl, info, stat, stat_any, index of the in-use count among the info struct's ints)
    ("shared memory segment", "shmctl", _SHM_INFO, _SHM_STAT, _SHM_STAT_ANY, 0),  # shm_info.used_ids
    ("message queue", "msgctl", _MSG_INFO, _MSG_STAT, _MSG_STAT_ANY, 0),  # msginfo.msgpool (MSG_INFO: queues)
    ("semaphore set", "semctl", _SEM_INFO, _SEM_STAT, _SEM_STAT_ANY, 7),  # seminfo.semusz
)
_IPC_BUF = []


def _ipc_ctl(ctl, ident, cmd):
    if not _IPC_BUF:
        import ctypes

        libc = _libc()
        buf = ctypes.create_string_buffer(512)  # (larger than any of the structs)
        _IPC_BUF.append(buf)
        _IPC_BUF.append({"shmctl": libc.shmctl, "msgctl": libc.msgctl, "semctl": libc.semctl})
        _IPC_BUF.append((ctypes.c_int * 128).from_buffer(buf))
    buf, fn = _IPC_BUF[0], _IPC_BUF[1][ctl]
    if ctl == "semctl":
        return fn(ident, 0, cmd, buf), buf
    return fn(ident, cmd, buf), buf


def _ipc_used(ctl, info, at):
    """(objects of a kind in use, highest index in use); (0, -1) where the kernel gives no count."""
    top, _ = _ipc_ctl(ctl, 0, info)
    if top < 0:
        return 0, -1
    return _IPC_BUF[2][at], top


def _ipc_rm(ctl, ident):
    fn = _IPC_BUF[1][ctl]
    if ctl == "semctl":
        fn(ident, 0, 0)  # IPC_RMID
    else:
        fn(ident, 0, None)


_SHM_UNCOUNTED = []


def _shm_uncounted():
    """True on gVisor (the kernel with no /proc/sysvipc): its SHM_INFO count is not to be trusted."""
    if not _SHM_UNCOUNTED:
        _SHM_UNCOUNTED.append(not os.path.exists("/proc/sysvipc/shm"))
    return _SHM_UNCOUNTED[0]


_SHM_FLOOR = [0]  # gVisor: every shared memory id below it was removed by an earlier wipe
_SHM_SCAN_MAX = 1 << 16


def _shm_by_probe():
    """gVisor 20221219 counts a removed segment in SHM_INFO for ever (measured: used_ids 1 after its only
    segment was removed and no id answered IPC_STAT) and answers 0 to SHM_STAT, so neither finds nor
    proves anything there. Its ids are handed out in order (the last one + 1): a segment made and removed
    here tells the next id, and every id from the floor up to it is removed (the job's, whatever their
    key or mode; CAP_SYS_ADMIN). False when no probe could be made or the range is too long to walk (a job
    that made and removed segments by the ten thousand): the worker then stops."""
    lib = _libc()
    probe = lib.shmget(0, 1, 0o1600)  # IPC_PRIVATE | IPC_CREAT, 0600
    if probe < 0:
        return False
    lib.shmctl(probe, 0, None)
    if probe - _SHM_FLOOR[0] > _SHM_SCAN_MAX:
        return False
    for ident in range(_SHM_FLOOR[0], probe):
        lib.shmctl(ident, 0, None)
    _SHM_FLOOR[0] = probe + 1
    return True


def _ipc_clean():
    """Removes every SysV object of the sandbox's IPC namespace; what is still left, named, or None."""
    for name, ctl, info, stat_, stat_any, at in _IPC_KINDS:
        used, top = _ipc_used(ctl, info, at)
        if used <= 0:
            continue
        if ctl == "shmctl" and _shm_uncounted():
            if not _shm_by_probe():
                return f"the SysV {name}s the job left could not be walked"
            continue
        for i in range(top + 1):
            ident, _ = _ipc_ctl(ctl, i, stat_any)
            if ident < 0:
                ident, _ = _ipc_ctl(ctl, i, stat_)
            if ident >= 0:
                _ipc_rm(ctl, ident)
        ident = 0
        while ident < 4096:
            used, _ = _ipc_used(ctl, info, at)
            if used <= 0:
                break
            _ipc_rm(ctl, ident)
            ident += 1
        if used > 0:
            return f"{used} SysV {name}{'' if used == 1 else 's'} the job left could not be removed"
    return None


def _unlink_queue(p):
    """A POSIX message queue a job left in gVisor's /dev/mqueue (MQUEUE_MINE), unlinked with
    CAP_DAC_OVERRIDE effective for that call alone (a flat file system: no folder, no link)."""
    held = _caps()[0]
    _caps(held | CAP_DAC_OVERRIDE)
    try:
        os.unlink(p)
    except OSError:
        pass
    finally:
        _caps(held)


def _wipe():
    for folder, keep in _WIPE:
        try:
            # Its mode as at the start: a job of the mount's owner (bubblewrap's /tmp, /dev/shm and
            # /dev/mqueue belong to the sandbox's user, the job's with its namespaces off) that made it
            # mode 000 had the listing below fail, so what it wrote stayed for the next job, which made the
            # folder readable again (found with the namespaces off).
            if stat.S_IMODE(os.stat(folder).st_mode) != _MODES.get(folder):
                os.chmod(folder, _MODES[folder])
        except (OSError, KeyError):
            pass
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name in keep:
                continue
            p = os.path.join(folder, name)
            if folder == MQUEUE and MQUEUE_MINE[0]:
                _unlink_queue(p)
                continue
            if p == OWN_DIR or OWN_DIR.startswith(p + "/") or os.path.ismount(p):
                continue
            _remove(p)
    if JOB_ROOT[0]:
        _caps(CAP_KILL | CAP_SETGID | CAP_SETUID | CAP_SYS_ADMIN)
    try:
        left = _ipc_clean()
    finally:
        if JOB_ROOT[0]:
            _caps(CAP_KILL | CAP_SETGID | CAP_SETUID)
    if left:
        _IPC_LEFT.append(left)


_OOM_FD = []  # the open counter file, found on first use (re-read with pread: no open per job)


def close_worker_fds():
    """In a job's process: closes the files the worker keeps open for its own checks (its cgroup's OOM
    counter, its pid namespace's ns_last_pid; the sandbox's /proc/sysvipc lists too until the wipe found
    SysV objects by *_INFO instead). They hold no job's data, but they describe the sandbox around the
    job (how many processes earlier jobs made), which is not the job's to read."""
    for fd in _OOM_FD + _LAST_PID:
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    _OOM_FD[:] = [-1] if _OOM_FD else []
    _LAST_PID[:] = [-1] if _LAST_PID else []


# What a job's process inherits from the fork server (and the fork server from the worker) that another
# process may change from outside: every resource limit (prlimit), and of the thread that forks the nice value
# (setpriority), the CPU set (sched_setaffinity), the scheduling policy (sched_setscheduler) and the I/O
# priority (ioprio_set). None of these calls asks for ptrace access: the kernel lets a process of the same
# uid make them whatever the dumpable flag, and gVisor lets any process renice or pin another. With the job
# namespaces off a job made them all on the worker and the fork server, so every later job inherited a
# limit carrying a number (a channel from one job to the next), a nice value of 17, one CPU, SCHED_IDLE and
# the idle I/O class (docs/security.md, "Every job alone, attacked again"). Nothing can give a process back
# a lower nice value or a higher hard limit without a capability, so the worker notes them at its start and
# stops between jobs when the worker or the fork server no longer has them: the host replaces it.
_MARKS = []
_IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine)


_RLIMITS = []  # every resource limit this Python knows, found once


def _limits(pid):
    import resource

    if not _RLIMITS:
        _RLIMITS.extend(getattr(resource, n) for n in sorted(dir(resource)) if n.startswith("RLIMIT_"))
    out = []
    for which in _RLIMITS:
        try:
            out.append(resource.prlimit(pid, which))
        except OSError as e:
            out.append(e.errno)
    return out


def _thread_marks(tid):
    """(nice, CPU set, policy, I/O priority) of one thread, or None when it is gone."""
    try:
        nice = os.getpriority(os.PRIO_PROCESS, tid)
        cpus = tuple(sorted(os.sched_getaffinity(tid)))
        policy = os.sched_getscheduler(tid)
    except ProcessLookupError:
        return None
    except OSError as e:
        return (e.errno,)
    io = _libc().syscall(_IOPRIO_GET, 1, tid) if _IOPRIO_GET else 0  # IOPRIO_WHO_PROCESS
    return nice, cpus, policy, io


def note_marks():
    """At the worker's start (before the fork server): its limits and its thread's marks, the state every
    process of the worker should keep."""
    _MARKS[:] = [_limits(os.getpid()), _thread_marks(os.getpid())]


def marks_changed(pids):
    """Between jobs, after the sweep: what of the worker's marks (note_marks) one of `pids` (the worker, its
    fork server) no longer has, None when all hold."""
    if not _MARKS:
        return None
    for pid in pids:
        if not pid:
            continue
        if _limits(pid) != _MARKS[0]:
            return f"a job changed the resource limits of process {pid}"
        # (its main thread's: the one that forks; a process made inherits the marks of the thread that made it)
        if _thread_marks(pid) not in (None, _MARKS[1]):
            return f"a job changed the priority, CPU set or scheduling of process {pid}"
    return None


def oom_kills():
    """The container cgroup's OOM-kill counter (cgroup v2 or v1), or None where it cannot be read."""
    if not _OOM_FD:
        for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
            try:
                _OOM_FD.append(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
                break
            except OSError:
                continue
        else:
            _OOM_FD.append(-1)
    if _OOM_FD[0] < 0:
        return None
    try:
        text = os.pread(_OOM_FD[0], 4096, 0)
    except OSError:
        return None
    for line in text.split(b"\n"):
        if line.startswith(b"oom_kill "):
            try:
                return int(line.split()[1])
            except (IndexError, ValueError):
                return None
    return None


def start_egress_relay():
    """In a tool container with egress (docs/sandboxes.md): relays 127.0.0.1:PORT, where HTTP(S)_PROXY
    point, to the host's proxy socket mounted in the container. The container has no other network; the
    host's proxy decides what may pass. A thread of the worker, so it outlives every job."""
    path = os.environ.get("TOOLSMITH_EGRESS_SOCKET")
    if not path:
        return
    import threading

    port = int(os.environ.get("TOOLSMITH_EGRESS_PORT") or "3128")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    os.set_inheritable(listener.fileno(), False)

    def pump(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def serve():
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                time.sleep(0.05)  # (out of file descriptors or threads: never a busy loop)
                continue
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(path)
            except OSError:
                client.close()
                upstream.close()
                continue

            def both(c=client, u=upstream):
                t = threading.Thread(target=pump, args=(u, c), daemon=True)
                t.start()
                pump(c, u)
                t.join()
                c.close()
                u.close()

            try:
                threading.Thread(target=both, daemon=True).start()
            except RuntimeError:  # no thread left under the pids limit: refuse this connection
                client.close()
                upstream.close()

    threading.Thread(target=serve, daemon=True, name="egress-relay").start()


def scrub_environ():
    """Moves the environment out of the block the kernel wrote at exec (every variable set again with
    setenv: glibc copies it to the heap) and overwrites that block with NULs: /proc/<pid>/environ reads the
    block, not the variables, and every forked job copies it. Removing a variable from os.environ leaves
    its bytes there; gVisor lets any process of the sandbox read that file of the worker."""
    import ctypes

    try:
        libc = _libc()
        env = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
        old = []
        i = 0
        while env[i]:
            old.append(env[i])
            i += 1
        for addr in old:
            name, _, value = ctypes.string_at(addr).partition(b"=")
            if libc.setenv(name, value, 1) != 0:
                return False
        # The block's bounds: env_start and env_end of /proc/self/stat (fields 50, 51); where they read 0
        # (gVisor), the kernel's strings around the first one (a variable set since lives on the heap).
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])
        if not 0 < start < end and old:
            near = [a for a in old if abs(a - old[0]) < 1 << 20]
            start, end = min(near), max(a + len(ctypes.string_at(a)) + 1 for a in near)
        if 0 < start < end:
            ctypes.memset(start, 0, end - start)
        return True
    except Exception:  # noqa: BLE001 - not glibc: os.environ is what scripts see anyway
        return False

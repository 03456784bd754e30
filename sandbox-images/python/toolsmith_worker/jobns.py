"""Each job alone, by the kernel: the fork server makes every job's process with clone() in namespaces
of its own (user, pid, mount, IPC), so the job is pid 1 of a pid namespace holding nothing but the job,
sees a /proc of that namespace only, writes to fresh tmpfs mounts that vanish with it, and ending its
pid 1 ends everything it started (docs/security.md, "Jobs alone").

Order in the new process, before the job arrives (off the critical path: the fork server makes the
next job's process while the pool is idle): map its own uid and gid (the kernel allows an unprivileged
process exactly that one line), make every mount private, mount its own /proc and fresh writable mounts,
then give up every capability it holds in its user namespace and install a seccomp filter that refuses
what could undo or get around those namespaces (unshare, setns, mount, a clone with namespace flags) and
the kernel surface a job never needs (io_uring, bpf, ptrace, ...). What the kernel refuses on a level is
left out and said so (WALLS).

gVisor (release 20221219) refuses every mount inside a child user namespace and has no mount namespace
(a mount made after clone(CLONE_NEWNS) shows in the parent's mountinfo): there a job is "rooted"
(hygiene.JOB_ROOT, the fork server holding CAP_SYS_ADMIN and CAP_SYS_CHROOT). Its process is cloned into
pid, IPC and network namespaces of its own (no user namespace), binds the sandbox's root read-only at a folder of
its own under JOBS_DIR, mounts there a /proc of its own pid namespace and a fresh tmpfs on each writable
mount, chroots into that tree, takes its own uid and gives up every capability, then the job filter. A
chrooted process may not make a user namespace (EPERM), so nothing undoes the chroot without a
capability. The fork server unmounts the tree once the job's process is gone. gVisor 20240729 kills a
job's pid namespace with its pid 1 only where no process outside it is a child subreaper: the worker is
none where its jobs have pid namespaces, pid 1 or not (hygiene.needs_subreaper).

Internal switches for the tests (TOOLSMITH_TEST_WALLS, comma-separated): `nojobns` runs jobs with a plain
fork as before, `nosweep` skips the sweep of the sandbox's pid namespace, `nowipe` the wipe of its
writable mounts, `noseccomp` the job's seccomp filter, `noipcfilter` the fork server's SysV/POSIX IPC
filter, `norooted` the gVisor job's tree (the user, pid and IPC namespaces as before it: bench:sandbox's
side-by-side run), `nonetns` the gVisor job's network namespace (bench:sandbox's `BENCH_AB=netns`), `nocenter` the walls made in C (jobns.enter's Python path instead: the tests compare
both), `ptyinjob` a rooted job importing `pty` itself (bench:sandbox's `BENCH_AB=ptyahead`); each wall
is then tested with the others off. One is a fault made on purpose: `sweepfails`, the sweep after every
job reports, after 0.2 s, a namespace it could not prove clean (the worker stops between jobs: `stopping`)."""

import ctypes
import os
import platform
import signal

from . import hygiene

OFF = frozenset(w for w in os.environ.get("TOOLSMITH_TEST_WALLS", "").split(",") if w)

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWTIME = 0x00000080
NS_FLAGS = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME
JOB_FLAGS = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC
# gVisor: its CLONE_NEWNS makes no mount namespace. CLONE_NEWNET (`nonetns` leaves it out): a network
# stack of the job's own in the sandbox kernel, its loopback up, so no port or abstract socket of the
# worker's side or of another job is reachable (docs/security.md, "A network of its own (gVisor)").
ROOTED_FLAGS = CLONE_NEWPID | CLONE_NEWIPC | (0 if "nonetns" in OFF else CLONE_NEWNET)
JOBS_DIR = "/mnt"  # rooted jobs: a tmpfs of the fork server's, each job's tree a folder in it
MNT_DETACH = 2

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 0x1, 0x2, 0x4, 0x8, 0x1000, 0x4000, 0x40000
HIDDEN = ("/run/toolsmith-protocol", "/run/toolsmith-egress")
# Pseudo-terminals (docs/sandboxes.md, "Pseudo-terminals"): each job a devpts instance of its own over the
# sandbox's, in its mount namespace (/dev/ptmx is a link to pts/ptmx on docker and bubblewrap), so no job
# lists or opens another job's or the worker's terminals. Where the kernel refuses a new instance (gVisor
# refuses every devpts mount: its one instance would be shared), an empty read-only folder in its place.
PTS = "/dev/pts"
PTS_DATA = b"newinstance,ptmxmode=0666,mode=0620"
PTS_REFUSED = (
    "no pseudo-terminals in this job: the kernel gives it no devpts instance of its own (gVisor refuses every"
    " devpts mount), and the sandbox's would be shared with other jobs (docs/sandboxes.md, Pseudo-terminals)"
)

# Per architecture: the audit arch of seccomp_data, clone, clone3, and the calls a job is refused.
_ARCH = {
    "x86_64": {
        "audit": 0xC000003E,
        "clone": 56,
        "clone3": 435,
        "mknod": (133, 1),  # (number, the argument holding the mode)
        "mknodat": (259, 2),
        "deny": {
            "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
            "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
            "mount_setattr": 442, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
            "process_madvise": 440, "pidfd_getfd": 438, "kcmp": 312, "bpf": 321, "perf_event_open": 298,
            "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
            "keyctl": 250, "add_key": 248, "request_key": 249, "fanotify_init": 300, "open_by_handle_at": 304,
            "name_to_handle_at": 303, "personality": 135, "capset": 126,
        },
    },
    "aarch64": {
        "audit": 0xC00000B7,
        "clone": 220,
        "clone3": 435,
        "mknodat": (33, 2),
        "deny": {
            "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
            "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428,
            "mount_setattr": 442, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
            "process_madvise": 440, "pidfd_getfd": 438, "kcmp": 272, "bpf": 280, "perf_event_open": 241,
            "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
            "keyctl": 219, "add_key": 217, "request_key": 218, "fanotify_init": 262, "open_by_handle_at": 265,
            "name_to_handle_at": 264, "personality": 92, "capset": 91,
        },
    },
}.get(platform.machine())

# What the namespaces of the last job process gave (reported in the worker's ready message): None until
# a job process was made; then a list of the walls in place ("pid", "ipc", "proc", "tmp", ...).
WALLS = []
_STATE = {"clone": None}  # False once the kernel refused clone with namespace flags: plain forks from then on


def _api():
    # PyDLL: the GIL stays held across the call, so the clone below copies a consistent interpreter.
    lib = ctypes.PyDLL(None, use_errno=True)
    lib.syscall.restype = ctypes.c_long
    lib.syscall.argtypes = [ctypes.c_long] * 6
    lib.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    lib.capset.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    py = ctypes.pythonapi
    # Looked up here, once: a look-up in the new process would make and cache a function object there.
    lib.fork_hooks = (py.PyOS_BeforeFork, py.PyOS_AfterFork_Child, py.PyOS_AfterFork_Parent)
    return lib


_LIB = []


def _lib():
    if not _LIB:
        _LIB.append(_api())
    return _LIB[0]


def fork_hooks():
    """PyOS_BeforeFork, PyOS_AfterFork_Child, PyOS_AfterFork_Parent (ctypes function pointers)."""
    return _lib().fork_hooks


def wanted():
    return "nojobns" not in OFF and _ARCH is not None and _STATE["clone"] is not False


def rooted():
    """Whether job processes are rooted (gVisor: a tree of their own and chroot; see above)."""
    return _STATE.get("rooted") is True


def clone_job(uid=None):
    """Makes a job process in namespaces of its own (like os.fork: 0 in the new process, its pid in the
    parent); None when the kernel refuses (the caller forks plainly, and so does every later call). With
    `uid` (job uids: the fork server holds CAP_SETUID/CAP_SETGID) the clone is made under that effective
    uid and gid, so the job's user namespace is that uid's and enter() can map it; the fork server's own
    ids come back right after."""
    if not wanted():
        return None
    lib = _lib()
    before, after_child, after_parent = lib.fork_hooks
    if rooted():
        uid = None  # no user namespace: the process takes its uid in enter_rooted, after its mounts
    if uid is not None:
        os.setresgid(-1, uid, -1)
        os.setresuid(-1, uid, -1)
    before()
    pid = lib.syscall(_ARCH["clone"], (ROOTED_FLAGS if rooted() else JOB_FLAGS) | signal.SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        after_child()
        return 0
    err = ctypes.get_errno()
    after_parent()
    if uid is not None:
        os.setresuid(-1, hygiene.USER, -1)
        os.setresgid(-1, hygiene.USER, -1)
    if pid < 0:
        if err == 11:  # EAGAIN: the pids limit, for a moment
            raise BlockingIOError(err, os.strerror(err))
        _STATE["clone"] = False
        return None
    _STATE["clone"] = True
    return pid


def _write(path, text):
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, text)
        finally:
            os.close(fd)
        return True
    except OSError:
        return False


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_PLAN = []


def _plan():
    """Everything a job process does before its job, made once in the fork server (every child inherits
    it): the id maps, the mounts with their options, the capability sets, the seccomp program. The child
    then only makes system calls (measured: building these in each child cost more than the namespaces)."""
    if _PLAN:
        return _PLAN[0]
    lib = _lib()
    mounts = []
    own = hygiene.OWN_DIR
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    for point, fstype in hygiene.writable_mounts():
        if point == own:
            continue
        # The worker's own folder may live in a writable mount (the process level: bubblewrap's /tmp,
        # the folder bound read-only into it): the job's fresh tmpfs gets that folder bound back.
        keep = own.encode() if own.startswith(point.rstrip("/") + "/") else None
        if fstype == "mqueue":
            mounts.append(("tmpfs:" + point, b"mqueue", point.encode(), b"mqueue", flags, None, None))
            continue
        try:
            st = os.statvfs(point)
            mode = os.stat(point).st_mode & 0o7777
        except OSError:
            continue
        size = max(st.f_blocks * st.f_frsize, 1 << 20)
        mounts.append(("tmpfs:" + point, b"tmpfs", point.encode(), b"tmpfs", flags, f"size={size},mode={mode:o}".encode(), keep))
    for point in HIDDEN:
        # The host's sockets (the protocol's, already unlinked once the worker connected; egress, which a
        # job reaches through the worker's relay): not even their folders are the job's.
        if os.path.isdir(point):
            mounts.append(("hidden:" + point, b"tmpfs", point.encode(), b"tmpfs", MS_RDONLY | flags, b"size=4096,mode=555", None))
    prog = None if "noseccomp" in OFF else hygiene.filter_program(_assemble(_ARCH))
    pts = any(point == PTS and fstype == "devpts" for point, fstype in _mount_points())
    plan = {
        "lib": lib,
        "mounts": mounts,
        "pts": pts,
        "tree": _tree(mounts),
        "caps": (_CapHeader(0x20080522, 0), (_CapData * 2)()),  # _LINUX_CAPABILITY_VERSION_3, all empty
        "prog": prog,
    }
    plan["native"] = _native(plan)
    _PLAN.append(plan)
    return plan


# The job's walls in C (native/forkloop.c, ts_enter; docs/scaling.md "A job's walls in C"): the library
# the fork server's C loop lives in. Its codes for the walls it made, in order (5: the job's /dev/pts is
# an empty folder: _refuse_ptys), and 32 + i for the plan's i-th mount.
LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_forkloop.so")
_C_WALLS = (None, "ids", "uid", "mnt", "pts", None, "proc", "nouserns", "proc-hidden", "nocaps", "seccomp")
_C_PTS_REFUSED = 5
_C_MOUNT0 = 32


class _CMount(ctypes.Structure):
    _fields_ = [
        ("source", ctypes.c_char_p),
        ("target", ctypes.c_char_p),
        ("fstype", ctypes.c_char_p),
        ("flags", ctypes.c_uint64),
        ("data", ctypes.c_char_p),
        ("keep", ctypes.c_char_p),
    ]


class _CPlan(ctypes.Structure):
    _fields_ = [("nmounts", ctypes.c_int32), ("pts", ctypes.c_int32), ("mounts", ctypes.POINTER(_CMount)), ("prog", ctypes.c_void_p)]


def _native(plan):
    """The plan as ts_enter takes it, with the function and its output array (all kept alive here and
    inherited by every job process), or None: gVisor's rooted jobs (enter_rooted: there the walls' cost
    is the sandbox kernel's system calls, not the Python around them; measured, docs/scaling.md), no
    library (no C compiler where the image was built), one without ts_enter, a layout that differs, or
    `nocenter` (tests and bench: the Python path alone)."""
    if rooted() or "nocenter" in OFF or not os.path.exists(LIBRARY):
        return None
    if ctypes.sizeof(ctypes.c_void_p) == 8 and (ctypes.sizeof(_CMount), ctypes.sizeof(_CPlan)) != (48, 24):
        return None  # (the C structs' sizes, asserted there)
    try:
        fn = ctypes.PyDLL(LIBRARY, use_errno=True).ts_enter  # (PyDLL: the GIL stays held; it calls no Python)
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    mounts = plan["mounts"]
    if len(mounts) > 64 - _C_MOUNT0:
        return None  # (more mounts than its codes hold: the Python path)
    cmounts = (_CMount * max(len(mounts), 1))(*[_CMount(src, target, fstype, flags, data, keep) for _, src, target, fstype, flags, data, keep in mounts])
    prog = plan["prog"]
    cplan = _CPlan(len(mounts), 1 if plan["pts"] else 0, cmounts, ctypes.addressof(prog[0]) if prog is not None else None)
    names = _C_WALLS + (None,) * (_C_MOUNT0 - len(_C_WALLS)) + tuple(m[0] for m in mounts)
    out = (ctypes.c_int32 * 64)()
    return (fn, (cplan, cmounts), ctypes.addressof(cplan), names, out, ctypes.addressof(out))


def _native_walls(walls, n, names, out):
    """The walls ts_enter wrote (`n` codes in `out`), after `walls`."""
    for i in range(n):
        code = out[i]
        if code == _C_PTS_REFUSED:
            _refuse_ptys()
        else:
            walls.append(names[code])
    WALLS[:] = walls
    return walls


def _mount_points():
    """The sandbox's mounts as (mount point, file system type), parents before what is mounted in them."""
    try:
        with open("/proc/self/mountinfo", "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split(" - ", 1)
        head = parts[0].split()
        if len(head) < 5 or len(parts) < 2:
            continue
        point = head[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
        out.append((point, parts[1].split()[0]))
    return sorted(out, key=lambda m: (m[0] != "/", m[0].rstrip("/").count("/")))


def _tree(mounts):
    """A rooted job's tree, as mounts relative to its folder (wall name or None, source, point, type,
    flags, data): the sandbox's root bound (its other mounts not carried: non-recursive), a /proc of the
    job's pid namespace, a fresh tmpfs (or mqueue) on each writable mount (`mounts`), every other mount of
    the sandbox bound as it is, but for JOBS_DIR and the host's sockets (HIDDEN: left as empty folders)."""
    fresh = {target.decode(): (wall, source, fstype, flags, data) for wall, source, target, fstype, flags, data, _ in mounts if wall.startswith("tmpfs:")}
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    tree = [("root", b"/", "/", None, MS_BIND, None)]
    for point, fstype in _mount_points():
        if point == "/" or point.startswith(("/proc/", JOBS_DIR + "/")) or point in (JOBS_DIR, *HIDDEN):
            continue
        if point == "/proc":
            tree.append(("proc", b"proc", point, b"proc", flags, None))
        elif point == PTS and fstype == "devpts":
            # gVisor: one devpts for the whole sandbox, no other mountable (EPERM): no terminals for the job
            tree.append(("pts", b"tmpfs", point, b"tmpfs", MS_RDONLY | flags, b"size=4096,mode=555"))
        elif point in fresh:
            wall, source, fstype, fl, data = fresh[point]
            tree.append((wall, source, point, fstype, fl, data))
        else:
            tree.append((None, point.encode(), point, None, MS_BIND, None))
    return tree


def _root_of(n):
    return f"{JOBS_DIR}/{n}"


def job_root(n):
    """The folder of the n-th rooted job's tree (made here, in the fork server); None if not rooted."""
    if not rooted():
        return None
    root = _root_of(n)
    try:
        if os.path.lexists(root):
            release(root)
        os.mkdir(root, 0o700)
    except OSError:
        return None  # (enter_rooted then makes no tree: the job is not alone, the worker waits for it)
    return root


def release(root):
    """Unmounts a rooted job's tree (once its process is gone: its pid namespace with it): one lazy
    unmount of its root takes every mount below with it (measured on gVisor: 0.3 ms, against 14 ms for
    one call per mount); where the folder is still a mount point after it, each mount, deepest first."""
    if root is None:
        return
    lib = _lib()
    lib.umount2(root.encode(), MNT_DETACH)
    try:
        os.rmdir(root)
        return
    except OSError:
        pass
    for point, _ in reversed(_mount_points()):
        if point == root or point.startswith(root + "/"):
            lib.umount2(point.encode(), MNT_DETACH)
    try:
        os.rmdir(root)
    except OSError:
        pass


def _prepare_rooted():
    """In a fork server holding CAP_SYS_ADMIN and CAP_SYS_CHROOT (gVisor): a tmpfs of its own at JOBS_DIR
    for the job trees (one a fork server before left is unmounted first). False where it cannot."""
    if not hygiene.JOB_ROOT[0] or "norooted" in OFF or not os.path.isdir(JOBS_DIR):
        return False
    lib = _lib()
    for point, _ in reversed(_mount_points()):
        if point == JOBS_DIR or point.startswith(JOBS_DIR + "/"):
            lib.umount2(point.encode(), MNT_DETACH)
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    return lib.mount(b"tmpfs", JOBS_DIR.encode(), b"tmpfs", flags, b"size=1m,mode=700") == 0


def prepare():
    """Called by the fork server before its first child: the plan is part of what every child copies."""
    if wanted():
        _STATE["rooted"] = _prepare_rooted()
        plan = _plan()
        if rooted() and plan["pts"] and "ptyinjob" not in OFF:
            # Every rooted job's _refuse_ptys (its /dev/pts an empty folder) then finds pty loaded: importing
            # it in each job's process (its files found and run in the job's tree) took ~8 ms there and
            # copied ~0.6 of a 2 MiB range more under gVisor (docs/scaling.md, "gVisor: what a job's
            # process writes").
            try:
                import pty  # noqa: F401
            except ImportError:
                pass  # (as in _refuse_ptys: os.openpty and os.forkpty are refused all the same)
    elif "noseccomp" not in OFF and _ARCH is not None:
        _ESCAPE.append(hygiene.filter_program(_assemble(_ARCH)))


def enter(uid, gid, own=False):
    """In the new process (pid 1 of its pid namespace), before its job: its own /proc and writable
    mounts, then no capability and the job's seccomp filter. Returns the walls in place. `own`: the
    process was cloned under the job's own uid (clone_job's `uid`), its real and saved ids still the fork
    server's: once its effective ids are mapped, every id becomes the job's ("uid"; else it must not run)."""
    plan = _plan()
    native = plan["native"]
    if native is not None:
        fn, _, at, names, out, out_at = native
        return _native_walls(["user", "pid", "ipc"], fn(at, uid, gid, 1 if own else 0, out_at, 64), names, out)
    lib = plan["lib"]
    walls = ["user", "pid", "ipc"]
    # Its /proc files belong to root while it is not dumpable (as the worker made every process it
    # forks): dumpable for its OOM score and the three writes, before anything of a job exists in it;
    # child_main makes it undumpable again before the job's code arrives.
    hygiene.set_dumpable(True)
    hygiene.oom_score_first()
    _write("/proc/self/setgroups", b"deny")
    if _write("/proc/self/uid_map", f"{uid} {uid} 1".encode()) and _write("/proc/self/gid_map", f"{gid} {gid} 1".encode()):
        walls.append("ids")
        if own:
            try:
                os.setresgid(gid, gid, gid)
                os.setresuid(uid, uid, uid)
                if os.getresuid() == (uid, uid, uid) and os.getresgid() == (gid, gid, gid):
                    walls.append("uid")
            except OSError:
                pass
    hygiene.set_dumpable(False)
    if lib.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0:
        walls.append("mnt")
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = "/"
        for wall, source, target, fstype, flags, data, keep in plan["mounts"]:
            if keep is None:
                if lib.mount(source, target, fstype, flags, data) == 0:
                    walls.append(wall)
            elif _mount_keeping(lib, source, target, fstype, flags, data, keep):
                walls.append(wall)
        if plan["pts"]:
            if lib.mount(b"devpts", PTS.encode(), b"devpts", MS_NOSUID | MS_NOEXEC, PTS_DATA) == 0:
                walls.append("pts")
            elif lib.mount(b"tmpfs", PTS.encode(), b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"size=4096,mode=555") == 0:
                walls.append("pts")  # (no new instance allowed: no terminals rather than the sandbox's)
                _refuse_ptys()
        flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
        if lib.mount(b"proc", b"/proc", b"proc", flags, None) == 0:
            walls.append("proc")
            if _no_userns():
                walls.append("nouserns")
        else:
            if _no_userns():  # (the sandbox's /proc/sys, where it is writable: the value is per user namespace)
                walls.append("nouserns")
            if lib.mount(b"tmpfs", b"/proc", b"tmpfs", MS_RDONLY | flags, b"size=4096,mode=555") == 0:
                walls.append("proc-hidden")  # no /proc of its own allowed here: none at all rather than the sandbox's
        try:
            os.chdir(cwd)  # the cwd's mount was replaced: enter the new one
        except OSError:
            pass
    # Every capability it holds in its own user namespace (it is the namespace's first process: all of
    # them) goes, so it cannot unmount its /proc to find the sandbox's beneath.
    return _last_walls(plan, walls)


def enter_rooted(uid, root):
    """In a rooted job's new process (pid 1 of its pid, IPC and network namespaces, still holding the fork server's
    capabilities), before its job: its tree at `root` (_tree), chroot into it, every id the job's uid,
    no capability, the job filter. Returns the walls in place."""
    plan = _plan()
    lib = plan["lib"]
    walls = ["pid", "ipc"] + (["net"] if ROOTED_FLAGS & CLONE_NEWNET else [])
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = "/"
    tree = plan["tree"]
    bound = root is not None and lib.mount(tree[0][1], root.encode(), None, tree[0][4], None) == 0
    if bound:
        for wall, source, point, fstype, flags, data in tree[1:]:
            if lib.mount(source, (root + point).encode(), fstype, flags, data) == 0 and wall:
                walls.append(wall)
        try:
            os.chdir(root)
            os.chroot(".")
            walls.append("root")
        except OSError:
            os._exit(70)  # a tree half made: never a job outside it
        for point in HIDDEN:
            # the host's sockets: their folders are empty here (the sandbox's mounts there not carried)
            if not os.path.isdir(point) or not os.listdir(point):
                walls.append("hidden:" + point)
        try:
            os.chdir(cwd)
        except OSError:
            os.chdir("/")
    try:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getresuid() == (uid, uid, uid) and os.getresgid() == (uid, uid, uid):
            walls.append("uid")
    except OSError:
        pass
    if "pts" in walls:
        _refuse_ptys()  # (its tree's /dev/pts is an empty folder: _tree)
    # From a uid other than 0 to another the kernel leaves the capabilities: every one goes here.
    return _last_walls(plan, walls)


def _refuse_ptys():
    """Where a job's /dev/pts is an empty folder: os.openpty and os.forkpty (pty.openpty, pty.fork, ...)
    say why there is no terminal, instead of the bare ENOENT of /dev/ptmx (a program that opens /dev/ptmx
    itself still gets that)."""

    def refused(*_args, **_kwargs):
        raise FileNotFoundError(2, PTS_REFUSED)

    os.openpty = refused
    os.forkpty = refused
    try:
        import pty  # (its fallback after os.openpty: the old BSD /dev/ptyXY names, "out of pty devices")

        pty._open_terminal = refused
    except (ImportError, AttributeError):
        pass


def _last_walls(plan, walls):
    """The last two walls of every job process, in this order: no capability, then the job's seccomp
    filter. Records and returns the walls in place."""
    head, data = plan["caps"]
    if plan["lib"].capset(ctypes.byref(head), data) == 0:
        walls.append("nocaps")
    if plan["prog"] is not None and hygiene.load_filter(plan["prog"]):
        walls.append("seccomp")
    WALLS[:] = walls
    return walls


def _mount_keeping(lib, source, target, fstype, flags, data, keep):
    """A fresh tmpfs at target with the folder `keep` (inside target) bound back, read-only as it was:
    opened before the tmpfs covers it, bound from that descriptor (through /proc/self/fd)."""
    try:
        fd = os.open(keep, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return lib.mount(source, target, fstype, flags, data) == 0
    try:
        if lib.mount(source, target, fstype, flags, data) != 0:
            return False
        try:
            os.makedirs(keep, 0o755, exist_ok=True)
        except OSError:
            return True  # the folder is gone for the job: its modules are already loaded
        lib.mount(f"/proc/self/fd/{fd}".encode(), keep, None, MS_BIND | MS_REC, None)
        return True
    finally:
        os.close(fd)


def _no_userns():
    """A second wall beside the job filter's clone/unshare rule: the job's user namespace may hold no
    user namespace below it (user.max_user_namespaces is per user namespace; its first process holds
    CAP_SYS_RESOURCE there until enter() gives up every capability), as bubblewrap's --disable-userns."""
    return _write("/proc/sys/user/max_user_namespaces", b"0")


def _assemble(arch):
    """The job's seccomp program: the calls of `deny` fail with EPERM, clone with any namespace flag too,
    clone3 with ENOSYS (its flags sit in memory a filter cannot read: glibc falls back to clone). A call
    of another architecture (x86_64's 32-bit `int 0x80`, whose numbers are other calls' and which no
    rule above would match) or of the x32 ABI fails with EPERM as a whole: before, another architecture
    was allowed, so where no filter around the job refuses it (the plain process level) a job made every
    call of this list that way (keyctl, io_uring_setup, personality, ...)."""
    deny = sorted(set(arch["deny"].values()))
    # Labels resolved below: instructions as (code, jt, jf, k) with jt/jf possibly label names.
    prog = [
        (0x20, 0, 0, 4),  # ld [arch]
        (0x15, 0, "deny", arch["audit"]),  # another architecture: refused as a whole
        (0x20, 0, 0, 0),  # ld [nr]
        (0x35, "deny", 0, 0x40000000),  # the x32 ABI: refused as a whole
    ]
    prog += [(0x15, "deny", 0, nr) for nr in deny]
    # A device node (character or block: S_IFCHR, S_IFBLK) made by mknod/mknodat: gVisor let a job without
    # a capability make one in the sandbox's /tmp; FIFOs and files stay allowed.
    for call in ("mknod", "mknodat"):
        if call in arch:
            nr, argi = arch[call]
            prog += [
                (0x15, 0, 4, nr),
                (0x20, 0, 0, 16 + 8 * argi),  # ld [args[argi]] (low 32 bits: the mode)
                (0x54, 0, 0, 0xF000),  # and S_IFMT
                (0x15, "deny", 0, 0x2000),  # S_IFCHR
                (0x15, "deny", "allow", 0x6000),  # S_IFBLK
            ]
    prog += [
        (0x15, "enosys", 0, arch["clone3"]),
        (0x15, 0, "allow", arch["clone"]),
        (0x20, 0, 0, 16),  # ld [args[0]] (low 32 bits: the flags)
        (0x45, "deny", "allow", NS_FLAGS),  # jset
    ]
    labels = {"allow": len(prog), "deny": len(prog) + 1, "enosys": len(prog) + 2}
    prog += [(0x06, 0, 0, 0x7FFF0000), (0x06, 0, 0, 0x00050000 | 1), (0x06, 0, 0, 0x00050000 | 38)]
    out = []
    for i, (code, jt, jf, k) in enumerate(prog):
        jt = labels[jt] - i - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - i - 1 if isinstance(jf, str) else jf
        out.append((code, jt, jf, k))
    return out


_ESCAPE = []


def deny_escape():
    """The job's seccomp filter alone (a plain fork, where the kernel refused the namespaces)."""
    if "noseccomp" in OFF or _ARCH is None:
        return False
    if not _ESCAPE:
        _ESCAPE.append(hygiene.filter_program(_assemble(_ARCH)))
    return hygiene.load_filter(_ESCAPE[0])

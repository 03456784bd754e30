"""The fork server's steady state in C (native/forkloop.c, built beside this package as _forkloop.so when
the image is built; docs/scaling.md, "The fork server's loop in C"). After each clone every page the fork
server writes is copied again while the job's process shares it: the Python loop wrote ~90 a job, this
one a handful. It takes "f", "p" and the children's exits; everything else comes back to forkserver.py,
which keeps the Python loop for every case the C one does not take. Without the library (no C compiler
where the image was built) the Python loop does it all, as before. On gVisor (no pidfd, rooted jobs) it
watches the children through the fork server's SIGCHLD pipe and makes and removes each job's tree
folder; there every 2 MiB range the fork server writes while a child shares it is copied whole, so the
Python loop's writes after each clone cost milliseconds (docs/scaling.md)."""

import ctypes
import os
import signal

from . import hygiene, jobns

LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_forkloop.so")
MAX_CHILDREN = 16
CHILD, REQUEST, CLONE_FAILED, GONE, FULL, RELEASE = 0, 1, 2, 3, 4, 5
_JOBS_DIR = "/mnt"  # (native/forkloop.c's TS_JOBS_DIR)

_HOOK = ctypes.c_void_p


class State(ctypes.Structure):
    _fields_ = [
        ("sock", ctypes.c_int32),
        ("uid_count", ctypes.c_int32),
        ("uid_base", ctypes.c_int32),
        ("user", ctypes.c_int32),
        ("flags", ctypes.c_int64),
        ("before", _HOOK),
        ("after_child", _HOOK),
        ("after_parent", _HOOK),
        ("made", ctypes.c_uint32),
        ("nchildren", ctypes.c_int32),
        ("pidfd", ctypes.c_int32 * MAX_CHILDREN),
        ("pid", ctypes.c_int32 * MAX_CHILDREN),
        ("request", ctypes.c_int32),
        ("err", ctypes.c_int32),
        ("job_r", ctypes.c_int32),
        ("msg_w", ctypes.c_int32),
        ("out_w", ctypes.c_int32),
        ("own", ctypes.c_int32),
        ("watch", ctypes.c_int32),
        ("rooted", ctypes.c_int32),
        ("root", ctypes.c_int32 * MAX_CHILDREN),
        ("released", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
    ]


class Loop:
    """One fork server's C loop: `serve(children, made)` runs it until it needs Python and returns its
    code; the children (pidfd -> pid) and the count of processes made go in and come back. Watched
    through SIGCHLD (`watch`, gVisor) the children are the watch's pids and their trees `roots` (pid ->
    folder), which come back the same way."""

    def __init__(self, lib, sock, watch=None):
        self.state = State()
        s = self.state
        s.sock = sock.fileno()
        s.uid_count = hygiene.JOB_UID_COUNT if hygiene.JOB_UIDS[0] else 0
        s.uid_base = hygiene.JOB_UID_BASE
        s.user = hygiene.USER
        self.rooted = jobns.rooted()
        s.flags = (jobns.ROOTED_FLAGS if self.rooted else jobns.JOB_FLAGS) | signal.SIGCHLD
        s.watch = watch.r if watch is not None else -1
        s.rooted = 1 if self.rooted else 0
        self.watch = watch
        before, after_child, after_parent = jobns.fork_hooks()
        s.before = ctypes.cast(before, ctypes.c_void_p).value
        s.after_child = ctypes.cast(after_child, ctypes.c_void_p).value
        s.after_parent = ctypes.cast(after_parent, ctypes.c_void_p).value
        self.serve_c = lib.ts_serve

    def serve(self, children, made, roots=None):
        s = self.state
        s.made = made
        if self.watch is None:
            s.nchildren = len(children)
            for i, (fd, pid) in enumerate(children.items()):
                s.pidfd[i], s.pid[i], s.root[i] = fd, pid, -1
        else:
            s.nchildren = len(self.watch.pids)
            for i, pid in enumerate(self.watch.pids):
                root = roots.get(pid)
                s.pidfd[i], s.pid[i], s.root[i] = -1, pid, int(root.rsplit("/", 1)[1]) if root else -1
        code = self.serve_c(ctypes.byref(s))
        if code == CHILD:
            return code  # (a new job's process: nothing more of the fork server's to touch)
        if self.watch is None:
            children.clear()
            for i in range(s.nchildren):
                children[s.pidfd[i]] = s.pid[i]
        else:
            self.watch.pids.clear()
            roots.clear()
            for i in range(s.nchildren):
                self.watch.pids.add(s.pid[i])
                if s.root[i] >= 0:
                    roots[s.pid[i]] = root_of(s.root[i])
        return code


def root_of(n):
    """The folder of the n-th job's tree (jobns.job_root's)."""
    return f"{_JOBS_DIR}/{n}"


def load(sock, watch=None):
    """The C loop for this fork server, or None: no library, a kernel or level it does not serve (it
    takes only job processes cloned into namespaces of their own, watched through pidfds or through
    SIGCHLD (`watch`); gVisor's rooted ones only with job uids, each in a tree of its own), or
    TOOLSMITH_TEST_WALLS=noforkloop (tests and bench: the Python loop alone)."""
    if "noforkloop" in jobns.OFF or not os.path.exists(LIBRARY):
        return None
    if not jobns.wanted():
        return None
    if jobns.rooted() and (watch is None or not hygiene.JOB_UIDS[0] or jobns.JOBS_DIR != _JOBS_DIR):
        return None
    if ctypes.sizeof(ctypes.c_void_p) == 8 and ctypes.sizeof(State) != 288:
        return None  # (the C struct's size, asserted there: a layout that differs is never used)
    try:
        lib = ctypes.PyDLL(LIBRARY, use_errno=True)  # (PyDLL: the GIL stays held, as for os.fork)
        lib.ts_serve.restype = ctypes.c_int
        lib.ts_serve.argtypes = [ctypes.POINTER(State)]
    except (OSError, AttributeError):
        return None  # (a library that does not load here, or not this one: the Python loop serves)
    return Loop(lib, sock, watch)

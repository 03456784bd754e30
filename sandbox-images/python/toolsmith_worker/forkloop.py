"""The fork server's steady state in C (native/forkloop.c, built beside this package as _forkloop.so when
the image is built; docs/scaling.md, "The fork server's loop in C"). After each clone every page the fork
server writes is copied again while the job's process shares it: the Python loop wrote ~90 a job, this
one a handful. It takes "f", "p" and the children's exits; everything else comes back to forkserver.py,
which keeps the Python loop for every case the C one does not take. Without the library (no C compiler
where the image was built) the Python loop does it all, as before."""

import ctypes
import os
import signal

from . import hygiene, jobns

LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_forkloop.so")
MAX_CHILDREN = 16
CHILD, REQUEST, CLONE_FAILED, GONE, FULL = 0, 1, 2, 3, 4

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
    ]


class Loop:
    """One fork server's C loop: `serve(children, made)` runs it until it needs Python and returns its
    code; the children (pidfd -> pid) and the count of processes made go in and come back."""

    def __init__(self, lib, sock):
        self.state = State()
        s = self.state
        s.sock = sock.fileno()
        s.uid_count = hygiene.JOB_UID_COUNT if hygiene.JOB_UIDS[0] else 0
        s.uid_base = hygiene.JOB_UID_BASE
        s.user = hygiene.USER
        s.flags = jobns.JOB_FLAGS | signal.SIGCHLD
        before, after_child, after_parent = jobns.fork_hooks()
        s.before = ctypes.cast(before, ctypes.c_void_p).value
        s.after_child = ctypes.cast(after_child, ctypes.c_void_p).value
        s.after_parent = ctypes.cast(after_parent, ctypes.c_void_p).value
        self.serve_c = lib.ts_serve

    def serve(self, children, made):
        s = self.state
        s.made = made
        s.nchildren = len(children)
        for i, (fd, pid) in enumerate(children.items()):
            s.pidfd[i], s.pid[i] = fd, pid
        code = self.serve_c(ctypes.byref(s))
        if code == CHILD:
            return code  # (a new job's process: nothing more of the fork server's to touch)
        children.clear()
        for i in range(s.nchildren):
            children[s.pidfd[i]] = s.pid[i]
        return code


def load(sock):
    """The C loop for this fork server, or None: no library, a kernel or level it does not serve (it
    takes only job processes cloned into namespaces of their own and watched through pidfds, not gVisor's
    rooted ones), or TOOLSMITH_TEST_WALLS=noforkloop (tests and bench: the Python loop alone)."""
    if "noforkloop" in jobns.OFF or not os.path.exists(LIBRARY):
        return None
    if not jobns.wanted() or jobns.rooted():
        return None
    if ctypes.sizeof(ctypes.c_void_p) == 8 and ctypes.sizeof(State) != 208:
        return None  # (the C struct's size, asserted there: a layout that differs is never used)
    try:
        lib = ctypes.PyDLL(LIBRARY, use_errno=True)  # (PyDLL: the GIL stays held, as for os.fork)
        lib.ts_serve.restype = ctypes.c_int
        lib.ts_serve.argtypes = [ctypes.POINTER(State)]
    except (OSError, AttributeError):
        return None  # (a library that does not load here, or not this one: the Python loop serves)
    return Loop(lib, sock)

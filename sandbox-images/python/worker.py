"""Toolsmith sandbox worker (Python): the entry. The worker itself is the package beside this file,
toolsmith_worker/: protocol (the JSON line codec and writer), tools (ToolResponse, @tool, the registry),
checks (the worker's own AST re-check, guarded builtins, module stand-ins), child (one job), forkserver,
hygiene (subreaper, strays, the private /tmp, the egress relay) and worker (the protocol loop, main).

A persistent process speaking newline-delimited JSON on stdin/stdout with the host (see docs/protocol.md).
Each job runs in a fresh forked child: no state leaks between jobs. The child's stdout/stderr go to a
pipe that the parent turns into capped `log` emits, so nothing a script prints can forge a protocol line;
only this parent process writes to the real stdout.

Three kinds of process (see "Processes" in docs/protocol.md): the worker (protocol, checks, relaying),
its fork server (a copy of the worker made when tools are loaded, which only forks), and one child per
job, forked by the fork server ahead of its job and used for exactly one.

Stdlib only. The container (no network, read-only root, limits, non-root) is the security boundary; the
checks and restricted builtins here make honest mistakes fail early and clearly.

Run as `python3 -I -S -u worker.py`: isolated mode puts neither this folder nor any environment path on
sys.path, so the package's folder is added here, for the one import below, and taken off again; `-S`:
no site-packages folder is processed here (a sandbox dependency's `.pth` file would run in the worker),
each job's process adds them itself before it runs tools.py (child.add_site_dirs). Scripts
cannot import at all (the host's validator and checks.py refuse imports; __import__ is not a builtin).
"""

import os
import sys


def _no_dac_override():
    """CAP_DAC_OVERRIDE (the gVisor Python container's, for its wipe: docker.ts PYTHON_WIPE_CAPS) is out
    of the effective set before anything is read: kept permitted, it is effective only while the wipe
    unlinks a message queue (hygiene), never while the worker loads its own files (a file it may not read
    stays unread, as without it)."""
    if os.getuid() != 0:
        return
    import ctypes

    class Head(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    libc = ctypes.CDLL(None, use_errno=True)
    head, data = Head(0x20080522, 0), (Data * 2)()
    if libc.capget(ctypes.byref(head), data) == 0 and data[0].effective & (1 << 1):
        data[0].effective &= ~(1 << 1)
        libc.capset(ctypes.byref(head), data)


_no_dac_override()
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
try:
    if sys.argv[1:2] == ["--seal-mounts"]:
        # bubblewrap: the writable mounts made noexec/nosuid/nodev, then every capability given up, before
        # anything else (toolsmith_worker/seal.py); the worker exits with the reason if that fails.
        from toolsmith_worker.seal import seal_or_exit

        seal_or_exit()
        del sys.argv[1]
    from toolsmith_worker.worker import main  # every module the jobs use is imported here, before any fork
finally:
    sys.path.remove(_HERE)

if __name__ == "__main__":
    main()

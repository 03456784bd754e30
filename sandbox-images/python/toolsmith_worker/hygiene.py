"""What keeps jobs apart and the sandbox clean: the subreaper, stray processes, the private /tmp, the OOM
counter, and the egress relay of a tool container."""

import os
import signal
import socket
import time

# After each job nothing it started may outlive it, and (where /tmp is the sandbox's own tmpfs) nothing it
# wrote may meet the next job. The worker is a child subreaper: a job's daemonized grandchildren (setsid,
# double fork) are re-parented to it instead of to init, so they can be found and killed. The next job's
# child is forked only after that.
PRIVATE_TMP = os.environ.get("TOOLSMITH_PRIVATE_TMP") == "1"
# The folder holding the worker (its entry and this package): under /tmp in the process backend.
_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBC = []


def _prctl(option, value):
    try:
        if not _LIBC:
            import ctypes

            _LIBC.append(ctypes.CDLL(None, use_errno=True))
        return _LIBC[0].prctl(option, value, 0, 0, 0) == 0
    except Exception:  # noqa: BLE001
        return False


def trim_heap():
    try:
        if _LIBC:
            _LIBC[0].malloc_trim(0)
    except Exception:  # noqa: BLE001 - not glibc: nothing to trim
        pass


def become_subreaper():
    return _prctl(36, 1)  # PR_SET_CHILD_SUBREAPER


def set_pdeathsig():
    return _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the process that forked us


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


# False where the kernel has no child subreapers (gVisor): a job's daemonized grandchildren are then
# re-parented to the container's init instead of to the worker.
SUBREAPER = True


def _strays():
    """The processes to end after a job: the worker's children; without a subreaper, inside the sandbox's
    own pid namespace (a private /tmp means a container or bubblewrap, never the host's processes), every
    process but init and the worker."""
    kids = _children()
    if SUBREAPER or not PRIVATE_TMP:
        return kids
    me = os.getpid()
    others = set(kids)
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) not in (1, me):
            others.add(int(p))
    return sorted(others)


def reap_strays(server=0):
    """Kills and reaps every process the worker still has as a child once a job is over (except its
    fork server, pid `server`); without a subreaper, every other process in the sandbox too."""
    for _ in range(50):
        kids = [pid for pid in _strays() if pid != server]
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
                if not SUBREAPER:
                    _gone(pid)


def _gone(pid, timeout=1.0):
    """Waits (briefly) until a process that is not our child is gone (init reaps it)."""
    end = time.monotonic() + timeout
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[-1].split()[0] == b"Z":
                    return
        except OSError:
            return
        time.sleep(0.002)


def wipe_tmp():
    """Empties /tmp (the sandbox's private tmpfs), except the worker's own folder and mount points."""
    try:
        entries = list(os.scandir("/tmp"))
    except OSError:
        return
    for e in entries:
        p = e.path
        if p == _OWN_DIR or _OWN_DIR.startswith(p + "/") or os.path.ismount(p):
            continue
        try:
            if e.is_dir(follow_symlinks=False):
                import shutil  # only when a job left a folder: never part of the fork server's memory

                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass


_OOM_FD = []  # the open counter file, found on first use (re-read with pread: no open per job)


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

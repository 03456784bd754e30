"""The process level (bubblewrap): every writable mount of the sandbox made noexec, nosuid and nodev, then
every capability given up, before the worker runs anything (docs/sandboxes.md, "The process level").

bubblewrap 0.8 (Debian 12) mounts its tmpfs (/tmp, /dev/shm) nosuid and nodev but has no option for
noexec, so with the job namespaces off (a plain fork: namespaces refused, or `nojobns` in the tests) a
job could write a program to /tmp and run it (the job's own fresh tmpfs is noexec; bwrap's was not).
The host starts bubblewrap with `--cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP`: capabilities in the
sandbox's own user namespace (made by bubblewrap, never the host's), needed here only: a bind remount
adds the flags to each read-write mount of that namespace, then the bounding set, ambient, inheritable,
permitted and effective sets are emptied, and both are checked (`/proc/self/mountinfo`,
`/proc/self/status`). Anything that does not hold ends the process with the reason on stderr, before any
job: the host reports it as the worker's start error (fail closed).

Used two ways, stdlib only:
- the Python worker: `worker.py --seal-mounts` calls seal() before it imports anything else;
- any other worker (node): `python3 -I -S seal.py PROGRAM ARGS...` seals, then execs the program.
"""

import ctypes
import os
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND = 0x20, 0x1000
MS_NOATIME, MS_NODIRATIME, MS_RELATIME, MS_STRICTATIME = 0x400, 0x800, 0x200000, 0x1000000
_PER_MOUNT = {
    "ro": MS_RDONLY,
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
    "strictatime": MS_STRICTATIME,
}
# File systems that hold no files a job could run (or are already noexec by the kernel's own rule).
_SKIP = ("proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue")
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class SealError(Exception):
    pass


def _unescape(s):
    return s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def _mounts():
    """(mount point, per-mount options, file system type) of every mount, from /proc/self/mountinfo."""
    with open("/proc/self/mountinfo", "rb") as f:
        lines = f.read().decode("utf-8", "replace").splitlines()
    for line in lines:
        parts = line.split(" - ", 1)
        head = parts[0].split()
        if len(head) >= 6 and len(parts) == 2:
            yield _unescape(head[4]), head[5].split(","), parts[1].split()[0]


def writable_mounts():
    """(mount point, per-mount options) of every read-write directory mount a program could be put in."""
    # (the /dev/null, /dev/zero, ... binds are files, left out: nodev there would break them)
    return [(point, opts) for point, opts, fstype in _mounts() if "rw" in opts and fstype not in _SKIP and os.path.isdir(point)]


# Pseudo-terminals (docs/sandboxes.md, "Pseudo-terminals"): a devpts instance of the sandbox's own, never
# the host's (bubblewrap binds none: the host puts an empty /dev/pts folder and a /dev/ptmx link to
# pts/ptmx in the sandbox's read-only /dev). Each job mounts one of its own over it (jobns.py).
PTS = "/dev/pts"
PTS_FLAGS = MS_NOSUID | MS_NOEXEC  # (not nodev: its terminals are device nodes)
PTS_DATA = b"newinstance,ptmxmode=0666,mode=0620"


def _devpts_mounts():
    return [(point, opts) for point, opts, fstype in _mounts() if fstype == "devpts"]


def mount_devpts(libc):
    """A fresh devpts instance on /dev/pts, nosuid and noexec, where the host made the folder for it and
    nothing is mounted there yet. Where the kernel refuses, the folder stays empty (no pseudo-terminals,
    nothing shared): not a wall, so the worker goes on; a job's openpty then fails on /dev/ptmx."""
    if not os.path.isdir(PTS) or any(p == PTS for p, _ in _devpts_mounts()):
        return False
    return libc.mount(b"devpts", PTS.encode(), b"devpts", PTS_FLAGS, PTS_DATA) == 0


def _err(what):
    e = ctypes.get_errno()
    return SealError(f"{what}: {os.strerror(e)} (errno {e})")


def seal():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    libc.capset.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    mount_devpts(libc)
    mounts = writable_mounts()
    for point, opts in mounts:
        flags = MS_REMOUNT | MS_BIND | MS_NOEXEC | MS_NOSUID | MS_NODEV
        for o in opts:
            flags |= _PER_MOUNT.get(o, 0)
        if libc.mount(None, point.encode(), None, flags, None) != 0:
            raise _err(f"remounting {point} noexec,nosuid,nodev")
    left = [p for p, opts in writable_mounts() if not {"noexec", "nosuid", "nodev"} <= set(opts)]
    left += [p for p, opts in _devpts_mounts() if not {"noexec", "nosuid"} <= set(opts)]
    if left:
        raise SealError(f"still without noexec, nosuid or nodev after the remount: {', '.join(left)}")
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for cap in range(last + 1):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:  # (EINVAL: unknown)
            raise _err(f"dropping capability {cap} from the bounding set")
    if libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0:
        raise _err("clearing the ambient capabilities")
    head = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(ctypes.byref(head), data) != 0:
        raise _err("giving up every capability (capset)")
    with open("/proc/self/status") as f:
        held = [ln.split()[0] for ln in f if ln.startswith("Cap") and int(ln.split()[1], 16) != 0]
    if held:
        raise SealError(f"capabilities still held after giving them up: {', '.join(held)}")
    return [p for p, _ in mounts]


def seal_or_exit():
    try:
        return seal()
    except (OSError, SealError, ValueError) as e:
        sys.stderr.write(f"toolsmith worker: could not seal the sandbox's writable mounts: {e}\n")
        sys.stderr.flush()
        os._exit(3)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write("usage: seal.py PROGRAM [ARGS...]\n")
        os._exit(2)
    seal_or_exit()
    try:
        os.execv(sys.argv[1], sys.argv[1:])
    except OSError as e:
        sys.stderr.write(f"toolsmith worker: could not start {sys.argv[1]} after sealing: {e}\n")
        os._exit(3)

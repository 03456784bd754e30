"""What a job's process inherits from the fork server besides memory (docs/security.md, "Every job alone").

Every job's process is a copy of the fork server, and a copy keeps the fork server's open files and its
shared memory mappings: the same kernel objects, not copies of them. A pipe, a socket, a file on a
writable mount or a shared mapping that tools.py opened when it loaded (a module-level log file, a
keep-alive connection, `mmap.mmap(-1, n)`, which is shared unless told otherwise) was so one channel
through every job of the worker: what one job wrote there the next one read, its fresh mounts and the
wipe notwithstanding (the wipe unlinks the file, the descriptor keeps it). Even a file opened read-only
carries its offset from job to job. And the worker's own files (the egress relay's listening socket) were
every job's too: a job could shut the relay down for every job after it.

Three walls, in order: a load that leaves such a thing is refused (`after_load`: only regular files on a
read-only mount, opened read-only, may stay open); the fork server keeps no descriptor but its own and those
(`keep_only`: every other one, whatever opened it, the worker or whoever started it, becomes /dev/null
there, so no number is reused under an object of tools.py); each job's process opens those files again
for itself (`reopen`), so no offset is shared."""

import fcntl
import os
import re
import stat

# The descriptors tools.py opened at its last load and may keep (read-only, on a read-only mount).
TOOL_FDS = []

_O_REOPEN = os.O_ACCMODE | os.O_APPEND | os.O_NONBLOCK | os.O_DIRECTORY | getattr(os, "O_NOATIME", 0) | getattr(os, "O_PATH", 0)
_MAP_HEAD = re.compile(rb"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+ *(.*)$")


def fds():
    """The open descriptors of this process."""
    out = set()
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            os.fstat(fd)
        except OSError:
            continue  # (the listing's own, already closed)
        out.add(fd)
    return out


def shared_maps():
    """{(start, end): what} of the mappings this process shares with its copies and may write (VM_SHARED:
    smaps' VmFlags `sh`, set only where the mapping can be written through: MAP_SHARED of anonymous memory
    or of a file opened for writing)."""
    out = {}
    try:
        with open("/proc/self/smaps", "rb") as f:
            text = f.read()
    except OSError:
        return out
    head = None
    for line in text.split(b"\n"):
        m = _MAP_HEAD.match(line)
        if m:
            head = (int(m.group(1), 16), int(m.group(2), 16)), m.group(3).decode("utf-8", "replace").strip()
        elif line.startswith(b"VmFlags:") and head is not None:
            if b"sh" in line.split()[1:]:
                out[head[0]] = head[1] or "anonymous memory"
            head = None
    return out


def snapshot():
    """What is open and shared before tools.py loads."""
    return fds(), set(shared_maps())


def _name(fd):
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "?"


def _kept(fd):
    """True when a descriptor may stay open for every job: a regular file, opened read-only, on a
    read-only mount (nothing can be written through it or reopened for writing by any job). Never a
    folder: a path looked up from it crosses the mounts of the worker's mount namespace, not the job's,
    so `openat(fd_of_root, "tmp/x")` would reach the sandbox's own /tmp from inside a job."""
    try:
        st = os.fstat(fd)
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        ro = os.fstatvfs(fd).f_flag & os.ST_RDONLY
    except OSError:
        return False
    return bool(ro) and stat.S_ISREG(st.st_mode) and flags & os.O_ACCMODE == os.O_RDONLY


def after_load(before, ours=lambda fd: False):
    """What tools.py left that every job would share, as one message (None: nothing); sets TOOL_FDS to
    what it may keep. `ours(fd)`: a descriptor of the worker's own opened meanwhile (the egress relay's
    connections, when tools.py made a request as it loaded): the fork server keeps none of them."""
    before_fds, before_maps = before
    keep, refused = [], []
    for fd in sorted(fds() - before_fds):
        if ours(fd):
            continue
        if _kept(fd):
            keep.append(fd)
        else:
            refused.append(f"descriptor {fd} ({_name(fd)})")
    for (start, end), what in sorted(shared_maps().items()):
        if (start, end) not in before_maps:
            refused.append(f"a shared writable mapping of {what} ({end - start} bytes at {start:#x})")
    TOOL_FDS[:] = [] if refused else keep
    if not refused:
        return None
    return (
        "tools.py left open, when it loaded, what every job of this sandbox would share: "
        + "; ".join(refused)
        + ". Each job runs in a copy of the loaded tools, and a copy shares open files, pipes, sockets and"
        " shared memory with the others: what one job wrote there, the next would read. Open them inside a"
        " tool (each call), read a file whole at load, or map memory privately (mmap.MAP_PRIVATE); only a"
        " regular file opened read-only on a read-only mount may stay open."
    )


def keep_only(keep):
    """In the fork server, before its first child: every descriptor but `keep` and TOOL_FDS points at
    /dev/null from now on (not closed: a number an object of tools.py holds is never handed out again)."""
    wanted = set(keep) | set(TOOL_FDS)
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in fds():
            if fd not in wanted and fd != null:
                os.dup2(null, fd, inheritable=os.get_inheritable(fd))
    finally:
        os.close(null)


def reopen():
    """In a job's process: each file tools.py kept open, opened again for this job alone at the same
    offset, so no job moves another's offset; one that cannot be reopened becomes /dev/null."""
    for fd in TOOL_FDS:
        try:
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            new = os.open(f"/proc/self/fd/{fd}", flags & _O_REOPEN)
        except OSError:
            new = os.open(os.devnull, os.O_RDONLY)
        try:
            try:
                os.lseek(new, os.lseek(fd, 0, os.SEEK_CUR), os.SEEK_SET)
            except OSError:
                pass
            os.dup2(new, fd, inheritable=os.get_inheritable(fd))
        finally:
            os.close(new)


# What of the worker's own process tools.py must leave as it found it: every job's process starts as a
# copy of it. As it loads, tools.py runs in the worker itself, which on gVisor holds CAP_SYS_ADMIN,
# CAP_SYS_CHROOT, CAP_SETUID and CAP_SETGID permitted (the fork server's, for the job trees and uids),
# and which on runc may still make a user namespace: a tmpfs it mounted there (on gVisor with those
# capabilities raised; on runc after unshare(CLONE_NEWUSER | CLONE_NEWNS) moved the worker into a mount
# namespace of its own) was bound into, or copied to, every job's mounts as it was, where no job's fresh
# mounts and no wipe reach: one job wrote its secret there and the next read it.
_NS = ("cgroup", "ipc", "mnt", "net", "pid", "pid_for_children", "time", "time_for_children", "user", "uts")
_STATUS = (b"Uid:", b"Gid:", b"Groups:", b"CapInh:", b"CapPrm:", b"CapEff:", b"CapBnd:", b"CapAmb:")


def process_state(jobs_dir=None):
    """The worker's mounts (but for `jobs_dir`, where gVisor's job trees come and go and which no tree
    holds), namespaces, root, ids and capabilities, as {what: value}."""
    state = {}
    try:
        with open("/proc/self/mountinfo", "rb") as f:
            mounts = []
            for line in f.read().split(b"\n"):
                cols = line.split(b" ")
                if len(cols) < 5:
                    continue
                point = cols[4]
                if jobs_dir and (point == jobs_dir.encode() or point.startswith(jobs_dir.encode() + b"/")):
                    continue
                mounts.append(b" ".join(cols[3:]))  # (not its id and parent's: the rest says what it is)
            state["its mounts"] = sorted(mounts)
    except OSError:
        state["its mounts"] = None
    for ns in _NS:
        try:
            state[f"its {ns} namespace"] = os.readlink(f"/proc/self/ns/{ns}")
        except OSError:
            state[f"its {ns} namespace"] = None
    try:
        state["its root"] = os.readlink("/proc/self/root")
        st = os.stat("/")
        state["its root folder"] = (st.st_dev, st.st_ino)
    except OSError:
        state["its root"] = None
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f.read().split(b"\n"):
                if line.startswith(_STATUS):
                    key = line.split(b":", 1)[0].decode()
                    state[{"Uid": "its uids", "Gid": "its gids", "Groups": "its groups"}.get(key, f"its capabilities ({key})")] = line
    except OSError:
        pass
    return state


def changed(before, jobs_dir=None):
    """What of process_state differs now from `before` (a list of names; empty: nothing)."""
    now = process_state(jobs_dir)
    return [what for what in before if now.get(what) != before[what]] + [what for what in now if what not in before]

"""What a job's process inherits from the fork server besides memory (docs/security.md, "Every job alone").

Every job's process is a copy of the fork server, and a copy keeps the fork server's open files and its
shared memory mappings: the same kernel objects, not copies of them. A pipe, a socket, a file on a
writable mount or a shared mapping that tools.py opened when it loaded (a module-level log file, a
keep-alive connection, `mmap.mmap(-1, n)`, which is shared unless told otherwise) was so one channel
through every job of the worker: what one job wrote there the next one read, its fresh mounts and the
wipe notwithstanding (the wipe unlinks the file, the descriptor keeps it). Even a file opened read-only
carries its offset from job to job. And the worker's own files (the egress relay's listening socket) were
every job's too: a job could shut the relay down for every job after it.

Three walls, in order: a load that leaves such a thing is refused (`after_load`: only regular files and
folders on a read-only mount may stay open); the fork server keeps no descriptor but its own and those
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
    """True when a descriptor may stay open for every job: a regular file or folder, opened read-only, on
    a read-only mount (nothing can be written through it or reopened for writing by any job)."""
    try:
        st = os.fstat(fd)
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        ro = os.fstatvfs(fd).f_flag & os.ST_RDONLY
    except OSError:
        return False
    return bool(ro) and (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)) and flags & os.O_ACCMODE == os.O_RDONLY


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
        " file or folder opened read-only on a read-only mount may stay open."
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

"""What a job's process inherits from the fork server besides memory (docs/security.md, "Every job alone").

Every job's process is a copy of the fork server, and a copy keeps the fork server's open files: the same
kernel objects, not copies of them. The worker's own descriptors (the egress relay's listening socket,
files whoever started the worker left open) were so every job's too: a job could shut the relay down for
every job after it. So the fork server keeps no descriptor but its own (`keep_only`): every other one
becomes /dev/null there before its first child. What tools.py opens is never in the fork server: tools.py
runs only in each job's own process (child.load_tools), so its files, pipes, sockets and shared memory
are that job's alone."""

import os


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


def keep_only(keep):
    """In the fork server, before its first child: every descriptor but `keep` points at /dev/null from
    now on (not closed: a number an object of the worker's holds is never handed out again)."""
    wanted = set(keep)
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in fds():
            if fd not in wanted and fd != null:
                os.dup2(null, fd, inheritable=os.get_inheritable(fd))
    finally:
        os.close(null)

"""The fork server: a copy of the worker that only forks children."""

import os
import select
import signal
import socket
import time

from . import hygiene, jobns
from .child import child_main
from .hygiene import deny_ipc, set_pdeathsig, stop_and_kill
from .protocol import OUT_FD


def _fork():
    """A job's process: made in namespaces of its own (jobns.clone_job) where the kernel allows, else by
    os.fork; retried for a moment while the pids limit is reached: processes a job left are killed just
    before, and the last of them may still be waiting for init to reap them (under gVisor on a busy
    machine that took over a second: a fork loop's hundreds of processes). Up to 15 s, backing off from
    5 to 50 ms, then the error ends the fork server. Returns (pid, whether the process has namespaces of
    its own)."""
    deadline = time.monotonic() + 15
    pause = 0.005
    while time.monotonic() < deadline:
        try:
            pid = jobns.clone_job()
            return (os.fork(), False) if pid is None else (pid, True)
        except BlockingIOError:
            time.sleep(pause)
            pause = min(pause * 1.5, 0.05)
    return os.fork(), False


def fork_server(sock, child):
    """Forks one child at a time when the worker asks ("f"), hands the worker the child's pipes ("c"),
    reports the child's exit ("x"), answers pings ("p" -> "P"), also while a child runs, and reaps every
    exited child of its own when asked between jobs ("r" -> "R": processes a job made its siblings with
    clone(CLONE_PARENT), killed by the worker), or stops and kills every other process of the namespace
    ("k" -> "K": hygiene.stop_and_kill, which needs no fork). Each child is pid 1 of namespaces of its
    own where the kernel allows (jobns): it sees and reaches no other process. It is a copy
    of the worker made right after the tools were loaded and does nothing else: the worker's own memory
    is never shared with a job, so relaying a job never pays for copy-on-write, and a child is ready
    before its job arrives."""
    set_pdeathsig()
    if "noipcfilter" not in jobns.OFF:  # (tests only: the job's IPC namespace alone)
        deny_ipc()  # for every child: no SysV IPC object or POSIX message queue outlives a job
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # for the children: a write to a pipe nobody reads ends them
    os.close(OUT_FD)  # the protocol stream is the worker's alone
    uid, gid = os.getuid(), os.getgid()  # (a job's process maps these ids onto themselves)
    jobns.prepare(uid, gid)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    def request():
        try:
            r = sock.recv(16)
        except OSError:
            r = b""
        if not r:
            os._exit(0)  # the worker is gone
        if r == b"p":
            sock.send(b"P")
        elif r == b"r":
            reap()
            sock.send(b"R")
        elif r == b"k":
            stop_and_kill({1, os.getppid()})  # everything but init, the worker and this process
            reap()
            sock.send(b"K")
        return r

    def reap():
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    return
            except ChildProcessError:
                return

    wanted = False  # a fork asked for while the previous child still ran (the worker does not do that)
    while True:
        if not wanted and request() != b"f":
            continue
        wanted = False
        job_r, job_w = os.pipe()  # worker -> child: the job, then tool results
        msg_r, msg_w = os.pipe()  # child -> worker: protocol lines
        out_r, out_w = os.pipe()  # the child's stdout/stderr
        pid, alone = _fork()
        if pid == 0:
            sock.close()
            hygiene.oom_first()
            if alone:
                jobns.enter(uid, gid)
            else:
                jobns.deny_escape()  # a plain fork (the kernel refused namespaces): the same filter
            os.close(job_w)
            os.close(msg_r)
            os.close(out_r)
            child_main(child, job_r, msg_w, out_w)
        os.close(job_r)
        os.close(msg_w)
        os.close(out_w)
        try:
            socket.send_fds(sock, [b"c" + pid.to_bytes(4, "little")], [job_w, msg_r, out_r])
        except OSError:
            os._exit(0)
        os.close(job_w)
        os.close(msg_r)
        os.close(out_r)
        try:
            exited = os.pidfd_open(pid)  # readable once the child is gone
        except (AttributeError, OSError):
            exited = -1  # (no pidfd: pings wait until the child is gone)
        if exited >= 0:
            while True:
                ready = select.select([sock.fileno(), exited], [], [])[0]
                if sock.fileno() in ready and request() == b"f":
                    wanted = True
                if exited in ready:
                    break
            os.close(exited)
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = 0
        try:
            sock.send(b"x" + pid.to_bytes(4, "little") + status.to_bytes(4, "little"))
        except OSError:
            os._exit(0)

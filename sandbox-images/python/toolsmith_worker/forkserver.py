"""The fork server: a copy of the worker that only forks children."""

import os
import select
import signal
import socket
import time

from . import forkloop, hygiene, inherited, jobns
from .child import child_main
from .hygiene import deny_ipc, set_pdeathsig, stop_and_kill
from .protocol import OUT_FD


def _fork(uid=None):
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
            pid = jobns.clone_job(uid)
            return (os.fork(), False) if pid is None else (pid, True)
        except BlockingIOError:
            time.sleep(pause)
            pause = min(pause * 1.5, 0.05)
    return os.fork(), False


def _alone_walls():
    """The walls a job process must have to be alone (made once, after jobns.prepare; None when job
    processes get no namespaces): user, pid, IPC and mount namespaces with its own ids, /proc and a fresh
    mount on each writable one, no capability and the job filter (gVisor: pid, IPC and network namespaces, a
    chroot into a tree with its own /proc and fresh mounts, its own uid, no capability and the filter;
    the host-socket folders empty in it). Only a job process that has them all is said to be alone: it
    sees and reaches no other process, and sends its result without asking the fork server first."""
    if not jobns._PLAN:
        return None
    if jobns.rooted():  # gVisor: no user namespace; a tree of its own (chroot) in place of a mount namespace
        want = {"pid", "ipc", "root", "proc", "uid", "nocaps", "seccomp"}
        if jobns.ROOTED_FLAGS & jobns.CLONE_NEWNET:
            want.add("net")  # a network stack of its own: no port or abstract socket of another's
    else:
        want = {"user", "pid", "ipc", "ids", "mnt", "proc", "nocaps", "seccomp"} | ({"uid"} if hygiene.JOB_UIDS[0] else set())
    want.update(m[0] for m in jobns._PLAN[0]["mounts"])
    if jobns._PLAN[0]["pts"]:
        want.add("pts")  # a devpts of its own (gVisor: an empty /dev/pts), never the sandbox's
    return frozenset(want)


# Not alone; alone; alone, but the next process is made only after the last job's cleaning (below).
_WALLS_MSG = (b'{"type":"walls","alone":false}\n', b'{"type":"walls","alone":true}\n', b'{"type":"walls","alone":true,"early":false}\n')
# (a plain fork, in no pid namespace of its own: the worker becomes a child subreaper where it is not pid 1)
_WALLS_PLAIN = b'{"type":"walls","alone":false,"pidns":false}\n'


def _pidfds():
    """Whether this kernel has pidfd_open (gVisor 20221219 has not: ENOSYS). Without it the fork server
    watches its children through SIGCHLD instead (_ChildWatch)."""
    try:
        os.close(os.pidfd_open(os.getpid()))
        return True
    except (AttributeError, OSError):
        return False


class _ChildWatch:
    """Where the kernel has no pidfd (gVisor 20221219): SIGCHLD writes a byte to a pipe the fork server's
    select() also watches (signal.set_wakeup_fd), and each child it made is then looked for with
    waitpid(WNOHANG). So it can hold two children (the running job's and the next one), answer pings and
    reap while a job runs, as with pidfds. Each child drops the handler, the wakeup fd and the pipe first
    thing: none of it is a job's. `nowatch` (TOOLSMITH_TEST_WALLS): the old way (each child waited for
    in waitpid right after it was made, the next one made only after it is gone)."""

    def __init__(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.r, False)
        os.set_blocking(self.w, False)
        self.pids = set()
        signal.signal(signal.SIGCHLD, lambda *_: None)  # (a handler of its own: only then is the byte written)
        signal.set_wakeup_fd(self.w, warn_on_full_buffer=False)

    def drop(self):
        """In a new child, before anything else."""
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.close(self.r)
        os.close(self.w)

    def exited(self):
        """The children that are gone, with their wait status, reaped."""
        try:
            while os.read(self.r, 512):
                pass
        except BlockingIOError:
            pass
        out = []
        for pid in list(self.pids):
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done, status = pid, 0
            if done == pid:
                self.pids.discard(pid)
                out.append((pid, status))
        return out


def fork_server(sock, job_factory, describe=False):
    """Forks a child when the worker asks ("f"), hands the worker the child's pipes ("c"), reports each
    child's exit ("x"), answers pings ("p" -> "P"), also while children run, and reaps every exited child
    of its own when asked between jobs ("r" -> "R": processes a job made its siblings with
    clone(CLONE_PARENT), killed by the worker), or stops and kills every other process of the namespace
    but its own waiting child ("k" -> "K": hygiene.stop_and_kill, which needs no fork). Each child is pid
    1 of namespaces of its own where the kernel allows (jobns): it sees and reaches no other process, and
    its first line to the worker says whether it is wholly alone (`{"type": "walls", "alone": ...}`): then
    the worker asks for the next job's process as soon as a job's result is out (docs/scaling.md, "The next
    job's process"). Children are watched through pidfds, or through SIGCHLD where the kernel has none
    (_ChildWatch). It is a copy of the worker made right after the tools were loaded and does
    nothing else: the worker's own memory is never shared with a job, so relaying a job never pays for
    copy-on-write, and a child is ready before its job arrives. It is made before tools.py ever runs
    and never runs it: each job's process loads the tools itself, behind its walls (child.load_tools);
    `describe`: the first one also sends the tools' descriptors (the manual), then its walls line."""
    set_pdeathsig()
    if "noipcfilter" not in jobns.OFF:  # (tests only: the job's IPC namespace alone)
        deny_ipc()  # for every child: no SysV IPC object or POSIX message queue outlives a job
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # for the children: a write to a pipe nobody reads ends them
    os.close(OUT_FD)  # the protocol stream is the worker's alone
    # No descriptor of the worker's (the egress relay's listener, files its starter left open) reaches a
    # job: each becomes /dev/null here.
    inherited.keep_only({0, 1, 2, sock.fileno()})
    hygiene.server_caps()
    uid, gid = os.getuid(), os.getgid()  # (without job uids a job's process maps these ids onto themselves)
    jobns.prepare()
    watch = None if _pidfds() or "nowatch" in jobns.OFF else _ChildWatch()
    early = watch is not None or _pidfds()  # (the next job's process is made early only where children are watched)
    want = _alone_walls() if early else None  # (made once: a job's process only compares)
    made = 0  # job processes made so far: with job uids, the n-th runs under hygiene.job_uid(n)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    children = {}  # pidfd -> pid: the children alive (the running job's and the next one)
    roots = {}  # pid -> the folder of its tree (rooted jobs: jobns.enter_rooted), unmounted once it is gone

    def request(r=None):
        if r is None:
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
            # everything but init, the worker, this process and its children not yet exited (the next
            # job's process, in namespaces of its own: the job swept here never saw it)
            stop_and_kill({1, os.getppid(), *children.values(), *(watch.pids if watch is not None else ())})
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

    def exited(pid, status=None):
        if status is None:
            try:
                _, status = os.waitpid(pid, 0)
            except ChildProcessError:
                status = 0
        try:
            sock.send(b"x" + pid.to_bytes(4, "little") + status.to_bytes(4, "little"))
        except OSError:
            os._exit(0)
        jobns.release(roots.pop(pid, None))

    def child(alone, own, root, job_r, msg_w, out_w, theirs, describe=False):
        """In a new job's process (its after-fork hooks run, the fork server's watch and pidfds closed):
        its walls, then child_main. Never returns."""
        sock.close()
        if not alone or jobns.rooted():
            hygiene.oom_first()  # (jobns.enter does it in its own dumpable moment)
        if alone and jobns.rooted():
            walls = jobns.enter_rooted(own, root)
        elif alone:
            walls = jobns.enter(own or uid, own or gid, own is not None)
        else:
            # a plain fork (the kernel refused namespaces): its uid, then the same filter
            walls = ["uid"] if own is not None and hygiene.become_job(own) else []
            walls += ["seccomp"] if jobns.deny_escape() else []
        if own is not None and "uid" not in walls:
            os._exit(70)  # never a job under the fork server's uid where job uids are on
        for fd in theirs:
            os.close(fd)
        hygiene.close_worker_fds()
        # (watched through SIGCHLD, i.e. gVisor: its fork copying the address space beside the last
        # job's exit and sweep made both slower than one after the other, so there the next process
        # is asked for after them; the result still needs no ping)
        wall = alone and want is not None and want.issubset(walls)
        # (written by child_main once the process is ready for its job: the worker tells the host then)
        told = _WALLS_MSG[2 if wall and watch is not None else wall] if "pid" in walls else _WALLS_PLAIN
        child_main(job_factory, job_r, msg_w, out_w, told, describe)

    loop = None  # the C loop (forkloop), from the first job process cloned into namespaces of its own on
    tried = not early  # (only where children are watched: through pidfds, or through SIGCHLD on gVisor)
    while True:
        if loop is not None and len(watch.pids if watch is not None else children) < forkloop.MAX_CHILDREN:
            code = loop.serve(children, made, roots)
            if code == forkloop.CHILD:
                s = loop.state
                if watch is not None:
                    watch.drop()
                root = forkloop.root_of(s.made) if loop.rooted else None
                child(True, s.own if s.own >= 0 else None, root, s.job_r, s.msg_w, s.out_w, ())
            made = loop.state.made
            if code == forkloop.GONE:
                os._exit(0)
            if code == forkloop.REQUEST:
                request(bytes((loop.state.request,)))
                continue
            if code == forkloop.RELEASE:
                jobns.release(forkloop.root_of(loop.state.released))  # (still a mount point: each mount)
                continue
            # CLONE_FAILED, FULL: this "f" is made by the Python path below (its retries, a plain fork)
        else:
            ready = select.select([sock.fileno(), *children, *((watch.r,) if watch is not None else ())], [], [])[0]
            for fd in ready:
                if watch is not None and fd == watch.r:
                    for pid, status in watch.exited():
                        exited(pid, status)
                elif fd != sock.fileno():
                    pid = children.pop(fd)
                    os.close(fd)
                    exited(pid)
            if sock.fileno() not in ready or request() != b"f":
                continue
        job_r, job_w = os.pipe()  # worker -> child: the job, then tool results
        msg_r, msg_w = os.pipe()  # child -> worker: protocol lines
        out_r, out_w = os.pipe()  # the child's stdout/stderr
        # Each job process under a uid of its own where the worker has job uids; else the worker's.
        own = hygiene.job_uid(made) if hygiene.JOB_UIDS[0] else None
        root = jobns.job_root(made) if own is not None else None
        made += 1
        pid, alone = _fork(own)
        if pid == 0:
            if watch is not None:
                watch.drop()
            for fd in children:
                os.close(fd)
            child(alone, own, root, job_r, msg_w, out_w, (job_w, msg_r, out_r), describe)
        describe = False  # (only the first: the C loop, loaded after it, never describes)
        if root is not None:
            roots[pid] = root
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
        if watch is not None:
            watch.pids.add(pid)  # (a SIGCHLD from now on finds it; one before is still a byte in the pipe)
        if not jobns.wanted():
            loop = None  # (the kernel refused a clone with namespaces: plain forks from now on)
        elif not tried and alone:
            tried = True
            loop = forkloop.load(sock, watch)
        if watch is not None:
            continue
        try:
            children[os.pidfd_open(pid)] = pid  # readable once the child is gone
        except (AttributeError, OSError):
            # No pidfd (`nowatch`): this child is waited for here; pings are answered once it is gone (the
            # worker asks for the next child only then: an "f" meanwhile waits in the socket).
            exited(pid)

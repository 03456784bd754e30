"""The worker: the protocol loop with the host, the fork server's client, and main."""

import gc
import marshal
import os
import resource
import select
import signal
import socket
import sys
import time
from dataclasses import dataclass, field

from . import hygiene, jobns
from .checks import SCRIPT_NAME, ValidationError, check_script
from .child import Child, record_skill_calls
from .forkserver import fork_server
from .hygiene import clean_namespace, find_writable, no_dump, oom_kills, reap_strays, start_egress_relay, trim_heap, wipe_writable
from .protocol import HOST_MAX_LINE, IN_FD, MAX_LINE, PROTOCOL, flush, loads, send, use_socket, write_all
from .tools import TOOLS_FILE, TOOLS_LINES, preimport

# A script's result is usually followed at once by its done; the worker holds the result line this long
# so that both reach the host in one write (one trip through the container's attached stream).
HOLD_S = 0.002

# A read of a job's output pipe takes all it can hold (a pipe holds at most 1 MiB unless raised): its
# process waits before a protocol line until the pipe is empty or holds less (child.settle_output).
OUT_READ = 1 << 20

# A line of a job's output longer than this is relayed in parts (a line is held until its end comes).
PART_MAX = 65536

_FDS_SPACE = socket.CMSG_SPACE(3 * 4)  # room for the three pipe ends of a child

# The lines a job's process may send during its job, the only ones relayed to the host (docs/protocol.md,
# "What a job's process may send"). Tool code runs in that process and can write anything on its protocol
# pipe: a line of any other type (`next_ready`, `ready`, `pong`, `load_error`, `hello`, a second `walls`...),
# an emit of another kind, a trace that says it ran on the host, or a done giving a reason only the worker
# gives (timeout, output_limit, crashed, cancelled; rejected when the worker's check passed the script) is
# dropped, and the job's logs say so.
JOB_LINES = frozenset(("emit", "trace", "tool_call", "skill", "done"))
EMIT_KINDS = frozenset(("result", "intermediate", "log"))
# How many dropped lines a job's logs name one by one; past them, their count comes before the job's done.
DROPS_SHOWN = 3


@dataclass(slots=True, eq=False)
class Spare:
    """A child forked ahead of its job: its pid and the worker's ends of its pipes."""

    pid: int
    job_w: int  # worker -> child: the job, then tool results
    msg_r: int  # child -> worker: protocol lines
    out_r: int  # the child's stdout/stderr
    buf: bytes = b""  # its protocol bytes read while it waited (its walls line)
    lines: int = 0  # its lines read while it waited (0 or 1)
    told: bool = False  # its first line was read (or its pipe closed): nothing more is read before its job


@dataclass(slots=True, eq=False)
class JobState:
    """The worker's side of the job that runs now (at most one)."""

    id: object
    max_output: int
    deadline: float  # time.monotonic() past which the job is killed
    oom_before: int | None  # the cgroup's OOM-kill count when the job started
    pid: int = 0  # the child's (0: no child could run it)
    msg_r: int = -1
    res_w: int = -1
    out_r: int = -1
    msg_buf: bytearray = field(default_factory=bytearray)  # the child's protocol bytes not yet split into lines
    out_part: bytes = b""  # the child's output after its last line's end (a line not yet whole)
    out_bytes: int = 0  # what counts against max_output so far
    done: dict | None = None  # the job's done, once known
    hold: float = 0  # set while a result line waits for the job's done (HOLD_S)
    status: int | None = None  # the child's wait status, once the fork server reports its exit
    open: set = field(default_factory=set)  # msg_r and out_r while they are open
    lines: int = 0  # protocol lines read from the child so far
    rejected: bool = False  # the worker's own check refused the script (its done may say `rejected`)
    dropped: int = 0  # lines of the child's that were not relayed (JOB_LINES)
    max_traces: int = 1000  # trace lines relayed at most (the host's limits.tool_calls); the rest are counted
    traces: int = 0  # trace lines relayed so far
    traces_over: int = 0  # trace lines past max_traces, not relayed: their count goes out on the job's done
    skill_calls: set = field(default_factory=set)  # the skill calls whose start was relayed (at most max_traces)
    skills_over: int = 0  # skill calls past max_traces, not relayed: their count goes out on the job's done


def _count(value, default):
    """A positive int from the host's job message, else `default`."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def _over(job, which):
    """An OutputLimit's message: the cap, and what went over it (prints: stdout, stderr and log lines;
    emits: results and intermediates), which the host turns into advice (core/sandbox/execution.ts,
    explainOutputLimit)."""
    return f"the script's output exceeded {job.max_output} bytes (its {which})"


def _traces_told(job, done):
    """The job's done says how many of its trace lines were past its bound (only the worker says it: a
    `traces_over` the job's process wrote on its own done is replaced)."""
    done.pop("traces_over", None)
    # Skill calls past the bound: those the job's process counted without sending (a count only, which
    # tool code could also write) and those whose lines the worker dropped.
    told = done.pop("skills_over", 0)
    over = (told if type(told) is int and 0 < told < 1 << 53 else 0) + job.skills_over
    if job.traces_over:
        done["traces_over"] = job.traces_over
    if over:
        done["skills_over"] = over


def _shown(value):
    """A value of a dropped line as its diagnostic names it (short: the line is the job's, not the worker's)."""
    r = repr(value)
    return r if len(r) <= 40 else r[:37] + "..."


class Worker:
    def __init__(self):
        self.host_tools = {}
        self.credentials = set()
        self.forward = False
        self.job = None  # the job that runs now (JobState)
        self.server = None  # (pid, socket) of the fork server
        self.child = None  # the job side every child inherits (Child), made with the fork server
        self.spare = None  # a child forked ahead of its job (Spare)
        self.asked = False  # a child asked of the fork server and not yet handed over
        self.early = False  # job processes are wholly alone: a result needs no ping, and the next one is made early
        self.ask_early = False  # ... as soon as a job's result is out (else after its cleaning: gVisor)
        self.pending_load = None  # a load that came during a job, applied when the job is over
        self.last_job = None  # the id of the last job handed over (the host's next_ready names it)
        self.last_done = None  # the id of the last job whose `done` went out (a `stopping` names it)
        self.lost = "the sandbox worker cannot fork"  # why jobs cannot run once the fork server is gone
        self.lost_why = "it cannot fork"  # the same, as the reason it stops
        # A job came through this worker: its memory (freed heap and stack) may hold what jobs passed
        # through it, so no new fork server is made from it again (a tools load or a lost fork server):
        # every later job's process would be a copy of that memory. The host replaces such a worker on
        # a reload (pool.ts `worn`); this is the wall behind it.
        self.worn = False
        self.pong = False  # the fork server answered the last ping
        self.reaped = False  # the fork server answered the last reap request
        self.swept = False  # the fork server answered the last sweep request

    # ------------------------------------------------------------ the fork server

    def start_server(self, describe=False):
        if self.child is None:
            self.child = Child(None, self.host_tools, self.credentials, self.forward)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                ours.close()
                fork_server(theirs, self.child, describe)
            finally:
                os._exit(0)
        theirs.close()
        self.server = (pid, ours)
        self.ask_child()

    def ask_child(self):
        if self.asked or self.spare is not None or self.server is None:
            return
        try:
            self.server[1].send(b"f")
            self.asked = True
        except OSError:
            self.server_lost()

    def wait_child(self):
        """Until the child asked for is handed over (or the fork server is gone)."""
        while self.asked and self.spare is None and self.server is not None:
            if not self.server_message():
                self.server_lost()

    def stop_server(self):
        """Ends the fork server and its waiting child (before tools are reloaded)."""
        if self.server is None:
            return
        pid, sock = self.server
        self.server = None
        self.asked = False
        self.drop_spare()
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        sock.close()
        self.reap()  # a waiting child whose fork server died is ours now

    def drop_spare(self):
        spare, self.spare = self.spare, None
        if spare is None:
            return
        for fd in (spare.job_w, spare.msg_r, spare.out_r):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(spare.pid, signal.SIGKILL)
        except OSError:
            pass

    def ping_server(self):
        """True when the fork server answers a ping; False (and the server marked lost) when it is gone."""
        try:
            self.server[1].send(b"p")
        except OSError:
            self.server_lost()
            return False
        self.pong = False
        while not self.pong and self.server is not None:
            if not self.server_message():
                self.server_lost()
        return self.server is not None

    def server_message(self, wait=True):
        """Reads one message from the fork server (without waiting: if there is one); False when the
        fork server is gone."""
        try:
            # (socket.recv_fds ignores its flags before Python 3.12)
            data, ancdata, _flags, _addr = self.server[1].recvmsg(16, _FDS_SPACE, 0 if wait else socket.MSG_DONTWAIT)
        except BlockingIOError:
            return True  # already taken by a wait earlier in this turn
        except OSError:
            data, ancdata = b"", []
        fds = []
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += [int.from_bytes(payload[i : i + 4], sys.byteorder, signed=True) for i in range(0, len(payload) - len(payload) % 4, 4)]
        if not data:
            for fd in fds:
                os.close(fd)
            return False
        kind, pid = data[:1], int.from_bytes(data[1:5], "little")
        if kind == b"P":
            self.pong = True
        elif kind == b"R":
            self.reaped = True
        elif kind == b"K":
            self.swept = True
        elif kind == b"c" and len(fds) == 3:
            self.asked = False
            self.spare = Spare(pid, fds[0], fds[1], fds[2])
        elif kind == b"x":
            status = int.from_bytes(data[5:9], "little")
            if self.job is not None and self.job.pid == pid:
                self.job.status = status
            elif self.spare is not None and self.spare.pid == pid:
                # The waiting child died before its job (killed from outside, or the OOM killer's first
                # choice while a job ran): fork another, after the job's cleaning if a job runs now.
                self.drop_spare()
                if self.job is None:
                    self.reap()
                    self.ask_child()
        else:
            for fd in fds:
                os.close(fd)
        return True

    def server_lost(self):
        """The fork server died (a job's tool killed it): this worker cannot run jobs any more."""
        if self.server is None:
            return
        pid = self.server[0]
        self.server[1].close()
        self.server = None
        self.asked = False
        self.drop_spare()
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = 0
        if os.WIFSIGNALED(status):
            self.lost_why = f"its fork server was killed (signal {os.WTERMSIG(status)})"
        else:
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 0
            self.lost_why = f"its fork server ended (exit status {code})"
        self.lost = f"the sandbox worker died: {self.lost_why}"

    # ------------------------------------------------------------ protocol

    def load(self, msg):
        if self.job is not None:
            self.pending_load = msg
            return
        if self.worn:
            # The fork server stays as it is (the old tools); the host ends this worker and starts another.
            message = "this worker has run jobs: new tools would fork a new fork server from its memory, which holds what those jobs passed through it, so it takes no load (a new worker does)"
            send({"type": "load_error", "error": {"type": "WornWorker", "message": message, "line": None}})
            return
        self.stop_server()
        self.child = None
        source = msg.get("source", "")
        TOOLS_LINES[0] = source.splitlines()
        # tools.py is compiled here, never run here: its top level (and every import it makes) is the
        # sandbox owner's code, and the worker and its fork server end, sweep and wipe after every job.
        # It runs in each job's own process, behind that job's walls (child.load_tools).
        try:
            code = compile(source, TOOLS_FILE, "exec")
        except (SyntaxError, ValueError) as e:
            send({"type": "load_error", "error": {"type": type(e).__name__, "message": str(e), "line": getattr(e, "lineno", None)}})
            return
        preimport(source)
        self.host_tools = {t["name"]: t for t in msg.get("host_tools") or [] if isinstance(t, dict) and isinstance(t.get("name"), str)}
        self.forward = bool(msg.get("forward_tools"))
        self.credentials = set(msg.get("credentials") or [])
        self.child = Child(code, self.host_tools, self.credentials, self.forward)
        gc.collect()
        gc.freeze()  # what exists now is shared with every forked job, untouched by their collectors
        trim_heap()  # freed memory goes back to the system: fewer pages for every fork to copy
        # The fork server is a copy of the worker as it is now; its first child loads tools.py and
        # describes the tools (the manual), then waits for the first job like any other.
        self.start_server(describe=True)
        self.wait_child()
        manual, rest = self.read_manual()
        if isinstance(manual, dict) and manual.get("type") == "tools" and isinstance(manual.get("tools"), list):
            send(
                {
                    "type": "ready",
                    "protocol": PROTOCOL,
                    "runtime": "python",
                    "version": sys.version.split()[0],
                    "pid": os.getpid(),
                    "subreaper": hygiene.SUBREAPER,
                    "tools": manual["tools"],
                }
            )
            self.spare_message(rest)  # its walls line, read with the manual
            return
        self.stop_server()
        self.child = None
        error = manual.get("error") if isinstance(manual, dict) and manual.get("type") == "load_error" else None
        if not isinstance(error, dict):
            error = {"type": "ToolsLoadFailed", "message": manual if isinstance(manual, str) else "the process that loaded tools.py sent no manual of its tools", "line": None}
        send({"type": "load_error", "error": error})

    def read_manual(self):
        """The second line of the process that loaded tools.py (its tools' descriptors or its load_error;
        its first is its walls line, written before tools.py ran), and its walls line with whatever came
        after the manual; (why, b"") when it sent none. What that process wrote to stderr as it loaded goes
        to the worker's own stderr (the sandbox's log), and its last lines into the why."""
        spare = self.spare
        if spare is None:
            return self.lost, b""
        buf, tail, fds = b"", b"", [spare.msg_r, spare.out_r]
        while buf.count(b"\n") < 2:
            ready = select.select(fds, [], [])[0]
            if spare.out_r in ready:
                tail = (tail + self.relay_stderr(spare.out_r, fds))[-4096:]
            if spare.msg_r not in ready:
                continue
            try:
                chunk = os.read(spare.msg_r, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                while spare.out_r in fds:
                    tail = (tail + self.relay_stderr(spare.out_r, fds))[-4096:]
                why = "the process that loaded tools.py ended before it described the tools (tools.py ended it, or it ran out of memory)"
                lines = [line.rstrip() for line in tail.decode("utf-8", "replace").splitlines() if line.strip()][-20:]
                if lines:
                    why += "; its stderr ended with:\n" + "\n".join(f"  {line}" for line in lines)
                return why, b""
            buf += chunk
            if len(buf) > HOST_MAX_LINE:
                return f"the tools' descriptors are larger than {HOST_MAX_LINE} bytes", b""
        # What it wrote to stderr came before its manual: in the pipe now, never the first job's output.
        while spare.out_r in fds and select.select([spare.out_r], [], [], 0)[0]:
            self.relay_stderr(spare.out_r, fds)
        walls, line, rest = buf.split(b"\n", 2)
        try:
            return loads(line), walls + b"\n" + rest
        except (ValueError, RecursionError):
            return "the process that loaded tools.py sent what is not a manual of its tools", b""

    @staticmethod
    def relay_stderr(fd, fds):
        """One read of the describing process's stderr, copied to the worker's; at its end `fd` leaves `fds`."""
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            fds.remove(fd)
            return b""
        try:
            os.write(2, chunk)
        except OSError:
            pass
        return chunk

    def reap_server(self):
        """Has the fork server reap its exited children (processes a job made its siblings)."""
        if self.server is None:
            return
        try:
            self.server[1].send(b"r")
        except OSError:
            self.server_lost()
            return
        self.reaped = False
        while not self.reaped and self.server is not None:
            if not self.server_message():
                self.server_lost()

    def sweep_by_server(self):
        """Has the fork server stop and kill every other process of the namespace; False when there is
        no fork server to ask."""
        if self.server is None:
            return False
        try:
            self.server[1].send(b"k")
        except OSError:
            self.server_lost()
            return False
        self.swept = False
        while not self.swept and self.server is not None:
            if not self.server_message():
                self.server_lost()
        return self.swept

    def reap(self):
        """Kills and reaps what a job left behind (every process but init, the worker and the fork
        server). In the sandbox's own pid namespace a namespace that cannot be proven clean ends the
        worker: the host replaces it (docs/sandboxes.md, "Between jobs")."""
        server = self.server[0] if self.server is not None else 0
        if "nosweep" in jobns.OFF:
            return  # (tests only: the walls after it alone)
        if not hygiene.PRIVATE_TMP:
            reap_strays(server)
            return
        spare = self.spare.pid if self.spare is not None else 0
        # (`sweepfails`, tests only: after a job, a namespace the sweep could not prove clean, as a fork
        # loop that outran it under load would leave; what matters is what the worker and the host do next.
        # It fails after trying for a while, as a real sweep does, so the host has sent the next job by then)
        if "sweepfails" in jobns.OFF and self.last_done is not None:
            time.sleep(0.2)
            self.stop("a job left processes that could not be ended")
        if not clean_namespace(server, self.reap_server, self.sweep_by_server, spare):
            self.stop("a job left processes that could not be ended")

    def stop(self, why):
        """The worker stops between jobs (its last job could not be cleaned up, or killed its fork server).
        It tells the host first (`stopping`, after that job's `done`): it starts no job from here on, so a
        job the host sent meanwhile, read or not, never ran and goes to another worker (docs/protocol.md,
        "worker -> host `stopping`"). The reason goes to stderr too."""
        os.write(2, f"toolsmith worker: {why}; the worker stops\n".encode())
        send({"type": "stopping", "after": self.last_done, "reason": why})
        flush()
        os._exit(1)

    def start_job(self, msg):
        job_id = msg.get("id")
        if self.job is not None:
            send({"type": "done", "id": job_id, "ok": False, "error": {"type": "Busy", "message": "a job is already running", "frames": []}})
            return
        was_worn, self.worn = self.worn, True
        # Checked and compiled here, on the exact text; the child gets exactly this code object.
        code = msg.get("code", "")
        try:
            compiled = compile(record_skill_calls(check_script(code), frozenset(s for s in msg.get("skills") or () if isinstance(s, str))), SCRIPT_NAME, "exec")
        except ValidationError as e:
            compiled = str(e)
        except (SyntaxError, ValueError) as e:
            compiled = str(e)
        if self.server is None and not was_worn:  # (a fork server lost after a job is not made again)
            self.start_server()
        self.ask_child()
        self.wait_child()
        timeout = min(float(msg.get("timeout_ms") or 300000), 600000) / 1000.0
        job = self.job = JobState(job_id, int(msg.get("max_output_bytes") or 51200), time.monotonic() + timeout, oom_kills())
        job.rejected = isinstance(compiled, str)
        job.max_traces = _count(msg.get("max_tool_calls"), job.max_traces)
        if self.spare is None:
            self.finish({"type": "done", "ok": False, "reason": "crashed", "error": {"type": "Crashed", "message": self.lost, "frames": []}})
            return
        child, self.spare = self.spare, None
        job.pid, job.msg_r, job.res_w, job.out_r, job.open = child.pid, child.msg_r, child.job_w, child.out_r, {child.msg_r, child.out_r}
        job.msg_buf, job.lines = bytearray(child.buf), child.lines
        self.last_job = job_id
        blob = marshal.dumps(
            (
                compiled,
                {
                    "code": code,
                    "tools": msg.get("tools") or {},
                    "inputs": msg.get("inputs") or {},
                    "skills": msg.get("skills") or [],
                    "approve": msg.get("approve") or [],
                    "max_skill_calls": job.max_traces,
                },
            )
        )
        try:
            write_all(child.job_w, len(blob).to_bytes(4, "little") + blob)
        except OSError:
            pass  # the child is gone: its pipes close and the job ends as crashed
        if self.early and "duringjob" in jobns.OFF:
            self.ask_child()  # (tests and bench only: the next job's process made while this job runs)
        if b"\n" in job.msg_buf:  # a line read while it waited that was not its walls
            self.take_lines(job)

    def finish(self, done):
        job = self.job
        if job is None:
            return
        if job.done is None:
            job.done = done
        if job.done is not None and job.out_r in job.open:
            self.drain_output(job)  # what the script printed before it finished
        self.flush_part(job)
        for fd in job.open:
            try:
                os.close(fd)
            except OSError:
                pass
        job.open = set()
        if job.res_w >= 0:
            try:
                os.close(job.res_w)
            except OSError:
                pass
        sent = False
        if job.pid:
            try:
                os.killpg(job.pid, signal.SIGKILL)  # the child and whatever stayed in its session
            except OSError:
                pass
            # A job that ended with a done (its own, or the worker's: timeout, output limit) has its
            # result now, unless it killed the fork server on its way: a ping settles that (a killed
            # process never answers again) without waiting for the child's exit. A job wholly alone
            # (its own pid namespace: `early`) cannot see the fork server to kill it, so its result
            # needs no round trip.
            if job.done is not None and (self.early or self.ping_server()):
                d = job.done
                d["id"] = job.id
                self.drops_told(job)
                _traces_told(job, d)
                send(d)
                flush()
                sent = True
                if self.ask_early:
                    # The next job's process, made now that this job's result is out: the running job
                    # never shares the CPU with its making, and a job that comes after a pause finds
                    # it ready (docs/scaling.md, "The next job's process").
                    self.ask_child()
            # Wait until the child is gone (the fork server reports it): its orphans are ours by then.
            while job.status is None and self.server is not None:
                if not self.server_message():
                    self.server_lost()
        if not sent:
            d = job.done
            oom_before, oom_after = job.oom_before, oom_kills()
            if d is None and oom_before is not None and oom_after is not None and oom_after > oom_before:
                d = {"type": "done", "ok": False, "reason": "oom", "error": {"type": "OutOfMemory", "message": "the script ran out of memory and was killed", "frames": []}}
            if self.server is None and job.pid:
                d = {"type": "done", "ok": False, "reason": "crashed", "error": {"type": "Crashed", "message": self.lost, "frames": []}}
            if d is None:
                status = job.status or 0
                sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
                d = {"type": "done", "ok": False, "error": {"type": "Crashed", "message": f"the script process died (signal {sig})" if sig else "the script process exited without finishing", "frames": []}, "reason": "crashed"}
            d["id"] = job.id
            self.drops_told(job)
            _traces_told(job, d)
            send(d)
            flush()  # the result goes out now; the cleaning below happens before the next job is read
        self.job = None
        self.last_done = job.id  # (its `done` is out, on either path)
        self.wait_child()  # (a child asked for during the job: the sweep below knows its pid)
        self.reap()
        left = wipe_writable() if hygiene.PRIVATE_TMP and "nowipe" not in jobns.OFF else None
        if left:
            self.stop(left)  # (SysV objects it could not remove: the next job would find them)
        changed = hygiene.marks_changed((os.getpid(), self.server[0] if self.server is not None else 0))
        if changed:
            self.stop(changed)  # (limits, nice, CPU set, scheduling: every later job would inherit them)
        if self.server is None:
            if job.pid:
                self.stop(self.lost_why)  # a job killed part of the worker: the host replaces it
            return
        self.ask_child()  # unless made during the job: the next child is forked only now, after the leftovers are gone
        if self.pending_load is not None:
            pending, self.pending_load = self.pending_load, None
            self.load(pending)

    def drain_output(self, job):
        fd = job.out_r
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            if not self.take_output(chunk):
                job.done = self.limit_done(job)
                return

    @staticmethod
    def limit_done(job):
        return {"type": "done", "ok": False, "reason": "output_limit", "error": {"type": "OutputLimit", "message": _over(job, "prints"), "frames": []}}

    def kill_job(self, reason, message):
        job = self.job
        if job is None:
            return
        job.done = {"type": "done", "ok": False, "reason": reason, "error": {"type": {"timeout": "Timeout", "output_limit": "OutputLimit"}.get(reason, "Error"), "message": message, "frames": []}}
        self.finish(job.done)

    def on_child_message(self, line):
        job = self.job
        self.flush_part(job)  # (all the job printed before this line has been read: child.settle_output)
        first, job.lines = job.lines == 0, job.lines + 1
        try:
            msg = loads(line)
        except (ValueError, RecursionError):
            msg = None
        if not isinstance(msg, dict):
            self.drop(job, "a line that is not a JSON object")
            return
        t = msg.get("type")
        if t not in JOB_LINES:
            if t == "walls" and first:  # (written by the worker's own code before the job could run)
                self.on_walls(msg)
                if self.early and "duringjob" in jobns.OFF:
                    self.ask_child()
                return
            self.drop(job, f"a {_shown(t)} line")
            return
        if t == "emit":
            if msg.get("kind") not in EMIT_KINDS:
                self.drop(job, f"an emit of kind {_shown(msg.get('kind'))}")
                return
        elif t == "trace":
            if msg.get("location") != "sandbox":
                self.drop(job, f"a trace with location {_shown(msg.get('location'))} (a job's process traces its own sandbox tool calls only)")
                return
            # A script calling a tool in a long loop (or tool code writing trace lines) would make the host
            # keep a trace per call: past the job's bound only their count goes on, on its done.
            if job.traces >= job.max_traces:
                job.traces_over += 1
                return
            job.traces += 1
        elif t == "skill":
            # Skill calls are bounded as tool calls are: past the bound a call's start and end are dropped
            # and counted (a skill called in a long loop, or recursing to the limit).
            call, phase = msg.get("call"), msg.get("phase")
            if type(call) is not int or phase not in ("start", "end"):
                self.drop(job, "a skill line without its call number and phase")
                return
            if phase == "start":
                if len(job.skill_calls) >= job.max_traces:
                    job.skills_over += 1
                    return
                job.skill_calls.add(call)
            elif call not in job.skill_calls:
                return
        elif t == "done":
            reason = msg.get("reason")
            if reason is not None and reason != "oom" and not (reason == "rejected" and job.rejected):
                self.drop(job, f"a done with reason {_shown(reason)} (only the worker gives it)")
                return
        msg["id"] = job.id
        if t == "done":
            # The script is over. What it printed is already in the output pipe; a process it left
            # behind may hold the pipes open, but it is killed now and the result does not wait for it.
            self.finish(msg)
            return
        if t == "emit":
            job.out_bytes += len(line)
            if job.out_bytes > job.max_output:
                self.kill_job("output_limit", _over(job, "prints" if msg.get("kind") == "log" else "emits"))
                return
            if msg.get("kind") == "result" and not job.hold:
                job.hold = time.monotonic() + HOLD_S
        send(msg)

    def take_messages(self, job):
        """Reads what the job's protocol pipe holds (it is ready) and handles each whole line."""
        fd = job.msg_r
        chunk = os.read(fd, 65536)
        if not chunk:
            job.open.discard(fd)
            os.close(fd)
            return
        job.msg_buf += chunk  # (a bytearray: a long line read in many small reads is not copied at each)
        if b"\n" in chunk:
            self.take_lines(job)
        # A line still coming that is already past what the host takes (the output cap for an emit, the
        # line limit for any line) is stopped now, not read to its end: a 10 MB result arrives in many
        # small reads where pipes are slow (gVisor).
        if self.job is job and len(job.msg_buf) > max(job.max_output, HOST_MAX_LINE):
            self.kill_job("output_limit", _over(job, "emits"))

    def take_lines(self, job):
        """Handles each whole line of the job's protocol bytes, in order, until one of them ends the job;
        what follows the last line's end stays for the next read. One split of the buffer: a line split off
        at a time copied the rest at each (many short lines in one read, quadratic)."""
        *lines, rest = job.msg_buf.split(b"\n")
        job.msg_buf = rest
        for line in lines:
            if self.job is not job:
                return
            self.on_child_message(bytes(line))

    def drop(self, job, what):
        """A line of the job's process that is not relayed: the job's logs name the first few (the host
        never sees the line itself)."""
        job.dropped += 1
        if job.dropped <= DROPS_SHOWN:
            send(
                {
                    "type": "emit",
                    "id": job.id,
                    "kind": "log",
                    "data": f"toolsmith worker: dropped {what}, written on the job's protocol pipe by code in the job's process (a tool or the script); a job sends only emit, trace, tool_call and done lines",
                }
            )

    @staticmethod
    def drops_told(job):
        """Before the job's done: how many of its lines were dropped in all, when more than were named."""
        if job.dropped > DROPS_SHOWN:
            send({"type": "emit", "id": job.id, "kind": "log", "data": f"toolsmith worker: {job.dropped} lines of the job's protocol pipe were dropped in all (the first {DROPS_SHOWN} named above)"})

    def on_walls(self, msg):
        """A child's first line (written before its job can arrive, once it is ready for it) says whether
        it is wholly alone; no later line counts."""
        # A plain fork (the kernel refused the namespaces): its orphans must become the worker's, before
        # its job can run (hygiene.needs_subreaper).
        if msg.get("pidns") is False and not hygiene.SUBREAPER:
            hygiene.SUBREAPER = hygiene.become_subreaper(False)
        # (`noearly` in TOOLSMITH_TEST_WALLS: the old order, for bench:sandbox's side-by-side run)
        self.early = msg.get("alone") is True and "noearly" not in jobns.OFF
        self.ask_early = self.early and msg.get("early") is not False

    def spare_message(self, data=None):
        """The waiting child's first line, read while no job runs: the next job's process is ready, and
        the host hears it (`next_ready`), so that a job sent right after another can go to a worker whose
        process is ready instead of waiting here for this one's (docs/scaling.md)."""
        spare = self.spare
        try:
            chunk = os.read(spare.msg_r, 4096) if data is None else data
        except OSError:
            chunk = b""
        if not chunk:
            spare.told = True  # gone before its job: the fork server reports its exit
            return
        spare.buf += chunk
        if b"\n" not in spare.buf and len(spare.buf) < 4096:
            return
        spare.told = True
        line = spare.buf.split(b"\n", 1)[0]
        try:
            msg = loads(line)
        except (ValueError, RecursionError):
            msg = None
        if isinstance(msg, dict) and msg.get("type") == "walls":
            spare.buf = spare.buf[len(line) + 1 :]
            spare.lines = 1
            self.on_walls(msg)
        send({"type": "next_ready", "after": self.last_job})

    def take_output(self, data):
        """Relays what the script printed as log emits, a line once it is whole (a line written in two
        writes, as print's text and its end under -u, is one line); False when the output cap is passed."""
        job = self.job
        job.out_bytes += len(data)
        if job.out_bytes > job.max_output:
            return False
        data = job.out_part + data
        cut = data.rfind(b"\n") + 1
        job.out_part = data[cut:]
        for line in data[:cut].decode("utf-8", "replace").splitlines():
            send({"type": "emit", "id": job.id, "kind": "log", "data": line})
        if len(job.out_part) > PART_MAX:
            self.flush_part(job)
        return True

    @staticmethod
    def flush_part(job):
        """What the script printed without a line's end, as a line of its own: before one of its protocol
        lines (written after it) or its done."""
        if job.out_part:
            part, job.out_part = job.out_part, b""
            for line in part.decode("utf-8", "replace").splitlines():
                send({"type": "emit", "id": job.id, "kind": "log", "data": line})

    def loop(self):
        in_fd = IN_FD
        in_buf = b""
        send({"type": "hello", "protocol": PROTOCOL, "runtime": "python", "version": sys.version.split()[0]})
        flush()
        while True:
            job = self.job
            fds = [in_fd]
            if self.server is not None:
                fds.append(self.server[1].fileno())
            timeout = None
            spare = self.spare if job is None and self.spare is not None and not self.spare.told else None
            if spare is not None:
                fds.append(spare.msg_r)
            if job is not None:
                fds += list(job.open)
                timeout = max(0.0, min(job.deadline, job.hold or job.deadline) - time.monotonic())
            ready, _, _ = select.select(fds, [], [], timeout)
            if job is not None and job.out_r in ready:
                ready.sort(key=job.out_r.__eq__)  # the protocol pipe first (it is read again before the output)
            if job is not None and not ready and time.monotonic() >= job.deadline:
                self.kill_job("timeout", "the script ran past its time limit")
                flush()
                continue
            for fd in ready:
                if fd == in_fd:
                    chunk = os.read(in_fd, 65536)
                    if not chunk:
                        if self.job is not None:
                            self.kill_job("crashed", "the host went away")
                        flush()
                        return
                    in_buf += chunk
                    while b"\n" in in_buf:
                        line, in_buf = in_buf.split(b"\n", 1)
                        if len(line) > MAX_LINE:
                            continue
                        self.on_host_message(line)
                    if len(in_buf) > MAX_LINE:
                        in_buf = b""
                elif self.server is not None and fd == self.server[1].fileno():
                    if not self.server_message(wait=False):
                        self.server_lost()
                        if self.job is not None:
                            self.finish(None)
                        else:
                            flush()
                            self.stop(self.lost_why)
                elif spare is not None and fd == spare.msg_r:
                    if self.job is None and self.spare is spare:
                        self.spare_message()
                elif job is None or self.job is not job or fd not in job.open:
                    continue  # a file of a job that ended during this turn
                elif fd == job.msg_r:
                    self.take_messages(job)
                elif fd == job.out_r:
                    # Protocol lines the job wrote before this output go first: its process waits, before
                    # each line, until this pipe is empty (child.settle_output), so every line now in the
                    # protocol pipe came before what this read takes (docs/protocol.md, "Order of a job's
                    # output").
                    if job.msg_r in job.open and select.select([job.msg_r], [], [], 0)[0]:
                        self.take_messages(job)
                        if self.job is not job or fd not in job.open:
                            continue
                    chunk = os.read(fd, OUT_READ)
                    if not chunk:
                        job.open.discard(fd)
                        os.close(fd)
                    elif not self.take_output(chunk):
                        self.kill_job("output_limit", _over(job, "prints"))
            if self.job is not None and self.job is job and not job.open:
                self.finish(None)
            if self.job is not None and self.job.hold:
                if time.monotonic() < self.job.hold:
                    continue  # a result waits a moment for its done: both go out in one write
                self.job.hold = 0
            flush()

    def on_host_message(self, line):
        try:
            msg = loads(line)
        except (ValueError, RecursionError):
            return
        if not isinstance(msg, dict):
            return
        t = msg.get("type")
        if t == "load":
            self.load(msg)
        elif t == "job":
            self.start_job(msg)
        elif t == "tool_result" and self.job is not None and msg.get("id") == self.job.id:
            try:
                # The host's own line as it came (already checked to be this job's): no second encode.
                write_all(self.job.res_w, line + b"\n")
            except OSError:
                pass
        elif t == "cancel" and self.job is not None and msg.get("id") == self.job.id:
            self.kill_job("cancelled", "cancelled by the host")
        elif t == "ping":
            send({"type": "pong", "busy": self.job is not None})


def main():
    # Before anything else: a worker started as root becomes the image's user (job uids: hygiene.drop_root).
    hygiene.drop_root()
    # First: the host waits for this connection. The variable goes: no script sees where the socket was.
    hygiene.scrub_environ()  # the bytes too, not only the variable: nothing left in /proc/1/environ
    path = os.environ.pop("TOOLSMITH_PROTOCOL_SOCKET", None)
    if path:
        use_socket(path)
    # (a subreaper only where jobs are planned as plain forks; on_walls makes it one if the kernel then
    # refuses the namespaces)
    hygiene.SUBREAPER = hygiene.become_subreaper(jobns.wanted())
    no_dump()  # before the fork server and every child are made: they inherit it
    # SIGINT ignored: nothing sends it to the worker (the host stops it with SIGTERM or SIGKILL), and a job
    # in the worker's pid namespace (the job namespaces off) ended it with kill(1, SIGINT) (Python's
    # default handler raises KeyboardInterrupt). The fork server and job processes inherit it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hygiene.PRIVATE_TMP:
        find_writable()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    hygiene.note_marks()  # (after the last limit it sets itself; checked between jobs: marks_changed)
    # SIGPIPE stays ignored (Python's default): a child that is gone makes a write fail, never kills the
    # worker; the protocol stream going away ends the worker (flush).
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # stray writes never reach the protocol stream
    oom_kills()
    start_egress_relay()
    Worker().loop()

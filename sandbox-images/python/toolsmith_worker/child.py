"""The child: one job, in a process forked (by the fork server) before its job arrives."""

import ast
import builtins
import dis
import fcntl
import gc
import marshal
import os
import re
import site
import sys
import termios
import time
import traceback
from dataclasses import dataclass

from .checks import MODULES, SCRIPT_NAME, ValidationError, install_runtime_wall, make_runtime_wall, safe_builtins
from .hygiene import no_dump
from .protocol import encode, loads, read_exact, write_all
from .tools import TOOLS_FILE, TOOLS_LINES, ToolRegistry, ToolResponse, json_safe, response_dict

# Where the innermost frame of a MemoryError stood when code, not the allocator, raised it: a raise
# statement (RAISE_VARARGS, RERAISE), a generator or coroutine thrown into (YIELD_VALUE, RETURN_GENERATOR,
# SEND, CLEANUP_THROW, RESUME). Read from the bytecode, never from the exception's name or arguments.
_RAISED_BY_CODE = frozenset(
    op for op in (dis.opmap.get(n) for n in ("RAISE_VARARGS", "RERAISE", "YIELD_VALUE", "RETURN_GENERATOR", "SEND", "CLEANUP_THROW", "RESUME")) if op is not None
)


def interpreter_out_of_memory(e):
    """Whether `e` is the interpreter's own MemoryError: an allocation that failed (a C function or an
    operation of the innermost frame: `bytearray(10**15)`, `'a' * 2**62`), not one that script or tool code
    raised itself (`raise MemoryError`, a generator's throw(), an awaited future holding one), which is
    an ordinary error: the run is not reported out of memory and the worker is not replaced for it.
    A subclass is always code's. Known limit: a C function that raises an exception object code handed it
    (asyncio's C Future.result()) looks like an allocation failure in the frame that called it."""
    if type(e) is not MemoryError:
        return False
    tb = e.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    raw = tb.tb_frame.f_code.co_code
    return not (0 <= tb.tb_lasti < len(raw) and raw[tb.tb_lasti] in _RAISED_BY_CODE)

_getframe = sys._getframe

# Frames a sandbox tool call may use past the recursion limit: enough for its own recording.
RECORD_HEADROOM = 100


def _bind_error(alias, sig, kwargs, e):
    """What a call with arguments its tool does not take says: an unknown keyword named first, with the
    tool's parameters (Python's own bind names only the first missing one: `get_user(wrong=1)` said
    "missing a required argument: 'user_id'" and never that `wrong` is no parameter of it)."""
    if not sig.varkw:
        unknown = [k for k in kwargs if k not in sig.names or k in sig.posonly]
        if unknown:
            names = ", ".join(sig.names) or "none"
            return f"{alias}() got an unexpected keyword argument {unknown[0]!r} (its parameters: {names})"
    return f"{alias}() {e}"


def _given(sig, args, kwargs):
    """The arguments of a call that did not bind, as the script gave them, for its record: named by the
    parameters they would fill when a partial bind can tell (`add(1)` is {"a": 1}), else the positional
    ones as a list under "*args" (no keyword can be named so) beside the keyword ones. Values stay JSON
    (their repr only when they are not JSON data): the record used to hold every value's repr, so the
    number 1 showed as the string "1"."""
    if sig is not None:
        try:
            return _snapshot(sig.bind(args, kwargs, partial=True))
        except TypeError:
            pass
    return _snapshot({"*args": list(args), **kwargs} if args else kwargs)


def _snapshot(arguments):
    """A tool call's arguments as a JSON copy taken when they cross into the tool (their repr when they
    are not JSON data): what the trace records, whatever the tool or the script does with them later."""
    try:
        return loads(encode(dict(arguments)))
    except (TypeError, ValueError, RecursionError):
        return {k: repr(v) for k, v in arguments.items()}


def _skill_recursion(frames, skills):
    """What a recursion error says when a skill recursed: the skill with the most frames on the error's
    stack (the script's frames, innermost last) and how many, e.g. "skill 'f' called itself 996 deep:
    recursion limit reached" (Python's own "maximum recursion depth exceeded" named neither); None when no
    skill is on the stack twice."""
    depth = {}
    for f in frames:
        name = f["name"]
        if name in skills:
            depth[name] = depth.get(name, 0) + 1
    if not depth:
        return None
    name = max(depth, key=depth.get)
    if depth[name] < 2:
        return None
    return f"skill {name!r} called itself {depth[name]} deep: recursion limit reached"


# Skill calls (docs/skills.md, "How a skill runs"): the worker rewrites each skill the job defines so that
# its body records its own call, with names no script can write (they are not identifiers):
#
#     def order_total(user_id):
#         <skill-call> = <skill-start>('order_total', {'user_id': user_id})
#         try:
#             <the skill's body>
#         except <skill-exception> as <skill-error>:
#             <skill-call>.append(<skill-error>)
#             raise
#         finally:
#             if <skill-call>[0]:  # (0: a call past the job's bound, only counted)
#                 <skill-ended>((<skill-clock>(), <skill-call>))
#                 try:
#                     <skill-flush>()
#                 except <skill-recursion>:
#                     pass
#
# The start is a line to the host at once (its time is the call's start). The end is first noted in a list
# (C calls, no Python frame: a call ending at the recursion limit still ends, and never replaces the
# exception it ends with), then sent; where the stack is too deep to send it, it goes before the job's next
# line. A tool call names the innermost skill call on its stack by that frame's own <skill-call>.
SKILL_CALL, SKILL_START, SKILL_ENDED, SKILL_CLOCK, SKILL_EXC, SKILL_ERROR, SKILL_FLUSH, SKILL_RECURSION = (
    "<skill-call>",
    "<skill-start>",
    "<skill-ended>",
    "<skill-clock>",
    "<skill-exception>",
    "<skill-error>",
    "<skill-flush>",
    "<skill-recursion>",
)
# The most characters of a skill call's arguments sent as they are; past it each long value is cut.
SKILL_ARGS_MAX = 16384


def record_skill_calls(tree, skills):
    """Rewrites, in the checked tree of a job's script, each top-level function named as one of the job's
    skills so that it records its calls (above). Line numbers stay the skill's own."""
    if not skills:
        return tree
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name in skills and node.body):
            continue
        a = node.args
        params = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)] + [p.arg for p in (a.vararg, a.kwarg) if p is not None]
        # A docstring stays the function's first statement (its __doc__).
        doc = node.body[:1] if isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str) else []
        rest = node.body[len(doc) :] or [ast.copy_location(ast.Pass(), node.body[0])]
        first = rest[0]

        def name(n, ctx=None):
            return ast.Name(id=n, ctx=ctx or ast.Load())

        start = ast.Assign(
            targets=[name(SKILL_CALL, ast.Store())],
            value=ast.Call(
                func=name(SKILL_START),
                args=[ast.Constant(node.name), ast.Dict(keys=[ast.Constant(p) for p in params], values=[name(p) for p in params])],
                keywords=[],
            ),
        )
        failed = ast.ExceptHandler(
            type=name(SKILL_EXC),
            name=SKILL_ERROR,
            body=[
                ast.Expr(ast.Call(func=ast.Attribute(value=name(SKILL_CALL), attr="append", ctx=ast.Load()), args=[name(SKILL_ERROR)], keywords=[])),
                ast.Raise(exc=None, cause=None),
            ],
        )
        ended = ast.Expr(ast.Call(func=name(SKILL_ENDED), args=[ast.Tuple(elts=[ast.Call(func=name(SKILL_CLOCK), args=[], keywords=[]), name(SKILL_CALL)], ctx=ast.Load())], keywords=[]))
        flush = ast.Try(
            body=[ast.Expr(ast.Call(func=name(SKILL_FLUSH), args=[], keywords=[]))],
            handlers=[ast.ExceptHandler(type=name(SKILL_RECURSION), name=None, body=[ast.Pass()])],
            orelse=[],
            finalbody=[],
        )
        recorded = ast.Subscript(value=name(SKILL_CALL), slice=ast.Constant(0), ctx=ast.Load())
        body = [start, ast.Try(body=rest, handlers=[failed], orelse=[], finalbody=[ast.If(test=recorded, body=[ended, flush], orelse=[])])]
        for added in body:
            ast.copy_location(added, first)
        node.body = doc + body
    return ast.fix_missing_locations(tree)


def _skill_args(values):
    """A skill call's arguments for its start line: JSON as they are when short, else each long value cut
    (its JSON's start and length), a value that is not JSON data as its repr."""
    try:
        text = encode(values)
        if len(text) <= SKILL_ARGS_MAX:
            return loads(text)
    except (TypeError, ValueError, RecursionError):
        pass
    out = {}
    share = max(256, SKILL_ARGS_MAX // max(1, len(values)))
    for k, v in values.items():
        try:
            t = encode(v)
            if len(t) <= share:
                out[k] = loads(t)
                continue
        except (TypeError, ValueError, RecursionError):
            try:
                t = repr(v)
            except Exception:  # noqa: BLE001 - a script's own __repr__
                t = "<unrepresentable>"
            if len(t) <= share:
                out[k] = t
                continue
        out[k] = f"{t[:share]}… ({len(t)} characters, truncated in the trace)"
    return out


def _exception_text(e):
    """An exception's type and message as the job's error gives them (KeyError's key as its repr)."""
    try:
        message = repr(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
    except Exception:  # noqa: BLE001 - a script's own __str__
        message = ""
    return {"type": type(e).__name__, "message": message}


# The job's output pipe, a copy of its write end kept by the job's process (child_main): what the script
# printed goes there, its protocol lines to another pipe, and the worker reads both. Before each protocol
# line the process waits until the worker has taken what the output pipe holds, so a line printed before an
# emit, a tool call or a trace reaches the host before it (docs/protocol.md, "Order of a job's output").
_OUT = [-1]
# How long a protocol line waits at most for the worker to take the output before it (a tool's process
# writing output without end would otherwise hold every line back).
SETTLE_S = 2.0
_QUEUED = bytearray(4)  # settle_output's answer buffer


def settle_output(_ioctl=fcntl.ioctl, _req=termios.FIONREAD, _buf=_QUEUED, _sleep=time.sleep, _now=time.monotonic):
    """Until the job's output pipe is empty (the worker read, and relayed, all printed so far), or it holds
    less than when this began (the worker read it; what is there now came since), or SETTLE_S has passed."""
    fd = _OUT[0]
    if fd < 0:
        return
    try:
        _ioctl(fd, _req, _buf)
    except OSError:
        return
    first = int.from_bytes(_buf, sys.byteorder)
    if not first:
        return
    end, pause = _now() + SETTLE_S, 0.00005
    while True:
        _sleep(pause)
        try:
            _ioctl(fd, _req, _buf)
        except OSError:
            return
        n = int.from_bytes(_buf, sys.byteorder)
        if n == 0 or n < first or _now() >= end:
            return
        pause = min(pause * 2, 0.002)


@dataclass(slots=True, eq=False)
class ChildJob:
    """What one child knows of its job: the script and its tools and inputs, and its pipes to the worker."""

    code: str
    tools: dict
    inputs: dict
    msg_w: int  # child -> worker: protocol lines
    res_r: int  # worker -> child: the job (read already), then tool results
    res_buf: bytes = b""  # tool-result bytes read past the line being waited for
    calls: int = 0  # tool calls to the host so far (their call ids)
    skills: frozenset = frozenset()  # the skills defined in the script (functions of its own file)
    skill_calls: int = 0  # skill calls recorded so far (their numbers)
    max_skill_calls: int = 1000  # skill calls recorded at most (the host's limits.tool_calls)
    skills_over: int = 0  # skill calls past max_skill_calls: not sent, counted on the job's done
    t0: float = 0.0  # time.perf_counter() when the job arrived (a skill call's `at` counts from it)
    approve: frozenset = frozenset()  # tools whose calls wait for a person's approval (asked through the host)


class ToolRefused(PermissionError):
    """A tool call a person (or a surface with no one to ask) did not approve."""


def site_plan():
    """The site-packages folders each job's process puts on sys.path, each with whether it holds .pth
    files: listed by the worker (names only: nothing in them is read or run here), so that a job's process
    that has none to process appends the folders itself without site's machinery (~80 page faults of a
    fresh process, each a copy of the fork server's page). The image's root is read-only: the folders do
    not change under a worker."""
    if not sys.flags.no_site:
        return ()  # (site did it as the interpreter started)
    plan = []
    for path in site.getsitepackages():
        if not os.path.isdir(path):
            continue
        try:
            pth = any(name.endswith(".pth") and not name.startswith(".") for name in os.listdir(path))
        except OSError:
            pth = False
        plan.append((path, pth))
    return tuple(plan)


def add_site_dirs(plan):
    """The site-packages folders (a sandbox's dependencies among them) on sys.path, their .pth files
    processed: here, in a job's own process, as tools.py runs. The worker starts with -S, so that none of
    it runs there (a wheel may carry a .pth file whose import lines run as the folder is added)."""
    for path, pth in plan:
        if pth:
            site.addsitedir(path)
        elif path not in sys.path:
            sys.path.append(path)


class Child:
    """A job's side of the protocol. Made in the worker once per tools load, with everything a job's
    namespace holds that depends neither on the job nor on tools.py, so each child inherits it ready-made.
    tools.py itself runs only in each job's own process, behind its walls (load_tools): never in the
    worker or the fork server, which end and clean up after every job. A child changes only its own
    copy (copy-on-write): the next child starts again from the fork server's untouched one."""

    def __init__(self, code, host_tools, credentials, forward=False):
        self.job = None  # this child's job (ChildJob): set once, in the child process
        self.owed_limit = None  # the script's recursion limit when a tool call could not set it back
        self.code = code  # tools.py, compiled by the worker (compiling runs none of it); None: no tools
        self.site = site_plan()
        self.registry = ToolRegistry(False)
        # Forwarded: the sandbox's tools run in another container (egress, docs/sandboxes.md); here they
        # are tool_calls to the host like host tools, with the same signature checks.
        self.forward = forward
        self.local = {}
        self.host_tools = dict(host_tools)
        self.credentials = credentials
        self.base = {"__builtins__": safe_builtins(self._print)}
        self.base.update(MODULES)
        self.ended = []  # skill calls that ended, not yet told: (perf_counter at the end, their call list)
        self.base.update(
            {
                SKILL_START: self.skill_start,
                SKILL_ENDED: self.ended.append,
                SKILL_CLOCK: time.perf_counter,
                SKILL_EXC: BaseException,
                SKILL_FLUSH: self.flush_ended,
                SKILL_RECURSION: RecursionError,
            }
        )
        self.base.update(
            emit_result=self.emit_result,
            emit_intermediate=self.emit_intermediate,
            emit_log=self.emit_log,
            credential=self.credential,
            ToolResponse=ToolResponse,
            search_tools=self.search_tools,
            describe_tool=self.describe_tool,
        )
        self.own, self.own_host, self.refused, self.hook = {}, {}, {}, None

    def load_tools(self, describe=False):
        """Runs tools.py in this job's own process, after its walls and before its job (its top level
        and every import it makes are the sandbox owner's code: nothing of it may run where later jobs
        start from or are cleaned up by). `describe`: each tool's descriptor too (the first process after
        a load describes the tools for the manual). Raises what tools.py raised."""
        add_site_dirs(self.site)
        registry = ToolRegistry(describe)
        if self.code is not None:
            ns = {"__builtins__": builtins, "tool": registry.decorator, "ToolResponse": ToolResponse, "__name__": "tools"}
            exec(self.code, ns)  # noqa: S102 - the sandbox's own tools, in this job's process
        self.registry = registry
        self.local = {} if self.forward else registry.tools
        if self.forward:
            for name in registry.tools:
                self.host_tools.setdefault(name, {"name": name})
        # Each tool under its own name; a kit alias gets its own wrapper when a job uses it.
        self.own = {name: self.sandbox_tool(name, name, fn, registry.signatures[name]) for name, (fn, _) in self.local.items()}
        self.own_host = {name: self.host_tool(name, name) for name in self.host_tools}
        self.refused = {name: self.refused_tool(name) for name in list(registry.tools) + list(self.host_tools)}
        self.hook = make_runtime_wall(self.base, {id(fn.__globals__): fn.__globals__ for fn, _ in registry.tools.values()}.values(), globals())

    def send(self, msg):
        if self.ended:
            self.tell_ended()
        settle_output()
        write_all(self.job.msg_w, encode(msg).encode() + b"\n")

    def tell_ended(self):
        """The `skill` end lines of the calls that ended since the last line, in the order they ended (made
        whole before any is taken off the list: a stack too deep to make them leaves them for the next)."""
        ended = list(self.ended)
        lines = b""
        for at, call in ended:
            if not call[0]:
                continue  # a call past the bound: never told
            msg = {"type": "skill", "phase": "end", "call": call[0], "ms": round(max(0.0, at - call[1]) * 1000, 3)}
            if len(call) > 2:
                msg["error"] = _exception_text(call[2])
            lines += encode(msg).encode() + b"\n"
        del self.ended[: len(ended)]
        if lines:
            write_all(self.job.msg_w, lines)

    def flush_ended(self):
        """Sends the ends noted so far (a skill call's `finally`, record_skill_calls)."""
        if self.ended:
            self.tell_ended()

    def skill_start(self, name, args):
        """A skill call starts (called first thing in the skill's body, record_skill_calls): its `skill` start
        line, with the skill call it was made from; returns the call's own list, [number, start time]."""
        job = self.job
        if job.skill_calls >= job.max_skill_calls:
            # Past the bound (a skill called in a long loop): counted, nothing sent, nothing encoded.
            job.skills_over += 1
            return [0, 0.0]
        n = job.skill_calls + 1
        at = time.perf_counter()
        msg = {"type": "skill", "phase": "start", "call": n, "name": name, "args": _skill_args(args), "at": round((at - job.t0) * 1000, 3)}
        parent = self.skill_call(2)
        if parent is not None:
            msg["parent"] = parent[1]
        self.send(msg)
        job.skill_calls = n
        return [n, at]

    def _data(self, value, what):
        bad = json_safe(value)
        if bad:
            raise TypeError(f"{what} takes JSON-safe data (dict, list, str, int, float, bool, None); {bad} is not")
        return value

    def emit_result(self, value):
        self.send({"type": "emit", "kind": "result", "data": self._data(value, "emit_result")})

    def emit_intermediate(self, value):
        self.send({"type": "emit", "kind": "intermediate", "data": self._data(value, "emit_intermediate")})

    def emit_log(self, text):
        self.send({"type": "emit", "kind": "log", "data": str(text)})

    def credential(self, name):
        if name not in self.credentials:
            raise KeyError(f"credential {name!r} is not declared for this sandbox; declared: {sorted(self.credentials)}")
        value = os.environ.get("TOOLSMITH_CRED_" + re.sub(r"\W", "_", name).upper())
        if value is None:
            raise KeyError(f"credential {name!r} is declared but has no value on the host")
        return value

    def _lookup(self, name, args):
        """A run-time tool lookup: a tool_call the host answers from this job's tools (app/mcp.ts)."""
        job = self.job
        job.calls += 1
        call_id = f"c{job.calls}"
        self.send({"type": "tool_call", "call_id": call_id, "name": name, "alias": name, "args": args})
        reply = self._read_result(call_id)
        if reply.get("error"):
            raise RuntimeError(f"{name}: {reply['error']}")
        r = reply.get("response") or {}
        if not r.get("success"):
            raise LookupError(f"{name}: {r.get('message') or 'failed'}")
        return r.get("data")

    def search_tools(self, query, limit=20):
        """The tools whose name or description holds every word of query: a list of {name, summary}."""
        if not isinstance(query, str):
            raise TypeError("search_tools(query) takes a string of words")
        if type(limit) is not int:
            raise TypeError("search_tools(query, limit) takes an int limit")
        return self._lookup("search_tools", {"query": query, "limit": limit})

    def describe_tool(self, name):
        """One tool's full manual entry (its parameters, types, defaults and examples), as a string."""
        if not isinstance(name, str):
            raise TypeError("describe_tool(name) takes a tool name (a string)")
        return self._lookup("describe_tool", {"name": name})

    def skill(self):
        """The skill making the current tool call: the innermost frame of the script's own file that runs
        a function named as one of the job's skills (trusted code reading its own stack; None without)."""
        skills = self.job.skills
        if not skills:
            return None
        frame = _getframe(2)
        while frame is not None:
            code = frame.f_code
            if code.co_filename == SCRIPT_NAME and code.co_name in skills:
                return code.co_name
            frame = frame.f_back
        return None

    def skill_call(self, depth=2):
        """The innermost skill call on the stack from `depth` frames up: (its skill's name, its number), or
        None. A skill's frame holds its own call's list (record_skill_calls); one that has none yet (the
        call starting now) is passed over."""
        skills = self.job.skills
        if not skills:
            return None
        frame = _getframe(depth)
        while frame is not None:
            code = frame.f_code
            if code.co_filename == SCRIPT_NAME and code.co_name in skills:
                call = frame.f_locals.get(SKILL_CALL)
                if type(call) is list and call and type(call[0]) is int:
                    return code.co_name, call[0]
            frame = frame.f_back
        return None

    def name_skill(self, msg):
        """Adds to a tool call's line the skill (and the skill call) whose code makes it."""
        skill = self.skill()
        if skill is None:
            return
        msg["skill"] = skill
        call = self.skill_call(3)
        if call is not None and call[0] == skill:
            msg["skill_call"] = call[1]

    def line(self):
        """The script line making the current tool call (innermost frame of the script's own file), or None."""
        frame = _getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == SCRIPT_NAME:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def gate(self, alias, name, args):
        """Asks the host whether a call of a tool that needs approval may run; raises ToolRefused if not."""
        job = self.job
        job.calls += 1
        call_id = f"c{job.calls}"
        msg = {"type": "tool_call", "call_id": call_id, "name": name, "alias": alias, "args": args, "gate": True}
        line = self.line()
        if line is not None:
            msg["line"] = line
        self.name_skill(msg)
        self.send(msg)
        reply = self._read_result(call_id)
        if reply.get("error") or not (reply.get("response") or {}).get("success"):
            raise ToolRefused(str(reply.get("error") or f"ToolRefused: {name} was not approved"))

    def trace(self, name, args, started, result=None, error=None, location="sandbox", refused=False):
        msg = {"type": "trace", "name": name, "args": args, "ms": round((time.perf_counter() - started) * 1000, 3), "location": location}
        self.name_skill(msg)
        if result is not None:
            msg["result"] = result
        if error is not None:
            msg["error"] = error
        if refused:
            msg["refused"] = True
        try:
            self.send(msg)
        except (TypeError, ValueError, RecursionError):
            msg["args"] = {k: repr(v) for k, v in args.items()}
            self.send(msg)

    def sandbox_tool(self, alias, name, fn, sig):
        def call(*args, **kwargs):
            # The call's record must be made whenever the tool ran: a script that recursed to just short of
            # the limit would otherwise have the tool run and the recording hit RecursionError. Frames are
            # added for this call only (trusted code; the script's own depth stays bounded by the limit).
            # (A limit left raised by a call at the edge, below, goes back here, where the stack is lower.)
            owed = self.owed_limit
            limit = sys.getrecursionlimit() if owed is None else owed
            sys.setrecursionlimit(limit + RECORD_HEADROOM)
            try:
                return traced_call(args, kwargs)
            finally:
                try:
                    sys.setrecursionlimit(limit)
                    self.owed_limit = None
                except RecursionError:
                    # Called at the edge: the stack is deeper than the script's own limit, which cannot be
                    # set back from here ("cannot set the recursion limit to 1000 at the recursion depth
                    # 1000: the limit is too low" reached the script). The script's error is Python's own,
                    # and the next call puts the limit back.
                    self.owed_limit = limit
                    raise RecursionError("maximum recursion depth exceeded") from None

        def traced_call(args, kwargs):
            started = time.perf_counter()
            try:
                arguments = sig.bind(args, kwargs)
            except TypeError as e:
                why = _bind_error(alias, sig, kwargs, e)
                self.trace(alias, _given(sig, args, kwargs), started, error=why)
                raise TypeError(why) from None
            traced = _snapshot(arguments)  # as they crossed, before the tool can change them
            if name in self.job.approve:
                self.gate(alias, name, traced)  # the host records a refusal; an approved call is traced below
            try:
                call_args, call_kwargs = sig.call_args(arguments)
                r = fn(*call_args, **call_kwargs)
                if not isinstance(r, ToolResponse):
                    raise TypeError(f"tool {name} returned {type(r).__name__}, not a ToolResponse")
                # The record of the result is made here, by trusted code, before the script holds r:
                # read through the slots' own descriptors, encoded at once by the send.
                result = response_dict(r)
            except Exception as e:  # noqa: BLE001 - traced, then re-raised to the script
                self.trace(alias, traced, started, error=f"{type(e).__name__}: {e}")
                raise
            self.trace(alias, traced, started, result=result)
            return r

        call.__name__ = alias
        return call

    def host_tool(self, alias, name):
        sig = self.registry.signatures.get(name)

        def call(*args, **kwargs):
            if sig is not None:  # a forwarded sandbox tool: bound like a local one
                try:
                    kwargs = sig.bind(args, kwargs)
                except TypeError as e:
                    raise TypeError(_bind_error(alias, sig, kwargs, e)) from None
            elif args:
                raise TypeError(f"{alias}() takes keyword arguments only")
            job = self.job
            job.calls += 1
            call_id = f"c{job.calls}"
            self._data(kwargs, alias)
            msg = {"type": "tool_call", "call_id": call_id, "name": name, "alias": alias, "args": kwargs}
            self.name_skill(msg)
            if name in job.approve:
                line = self.line()
                if line is not None:
                    msg["line"] = line
            self.send(msg)
            reply = self._read_result(call_id)
            r = reply.get("response") or {}
            if reply.get("refused") and reply.get("error"):
                raise ToolRefused(str(reply["error"]))
            if reply.get("error"):
                raise RuntimeError(f"{alias}: {reply['error']}")
            return ToolResponse(bool(r.get("success")), r.get("message") or (None if r.get("success") else "failed"), r.get("data"))

        call.__name__ = alias
        return call

    def _read_result(self, call_id):
        job = self.job
        while True:
            nl = job.res_buf.find(b"\n")
            if nl >= 0:
                line, job.res_buf = job.res_buf[:nl], job.res_buf[nl + 1 :]
                msg = loads(line)
                if msg.get("call_id") == call_id:
                    return msg
                continue
            chunk = os.read(job.res_r, 65536)
            if not chunk:
                raise RuntimeError("the host closed the tool channel")
            job.res_buf += chunk

    def refused_tool(self, alias):
        def call(*args, **kwargs):
            started = time.perf_counter()
            self.trace(alias, _given(None, args, kwargs), started, error="refused: not in this run's tools", refused=True)
            raise PermissionError(f"{alias} is not one of the tools of this run")

        return call

    def wall(self):
        """The runtime wall, in this job's own process only (the worker and the fork server pay nothing
        for the hook's calls), put in place before its job arrives: the script's namespace is this
        process's `base`, filled in when the job comes. Pages it writes are copied while the process
        waits, not while its job runs."""
        install_runtime_wall(hook=self.hook)

    def namespace(self):
        ns = self.base  # this process's own copy, used by exactly one job
        tools = self.job.tools
        for alias, name in tools.items():
            if name in self.local:
                if alias == name:
                    ns[alias] = self.own[name]
                else:
                    fn, _ = self.registry.tools[name]
                    ns[alias] = self.sandbox_tool(alias, name, fn, self.registry.signatures[name])
            elif name in self.host_tools:
                ns[alias] = self.own_host[name] if alias == name else self.host_tool(alias, name)
        for name, stub in self.refused.items():
            if name not in ns and name not in tools:
                ns[name] = stub
        for k, v in self.job.inputs.items():
            ns[k] = v
        return ns

    def _print(self, *args, sep=" ", end="\n", **_kw):
        sys.stdout.write(sep.join(str(a) for a in args) + end)
        sys.stdout.flush()

    def done(self, msg):
        """The job's done, with how many skill calls were past the bound (the worker adds its own count)."""
        if self.job.skills_over:
            msg["skills_over"] = self.job.skills_over
        self.send(msg)

    def run(self, compiled):
        code = self.job.code
        if isinstance(compiled, ValidationError):
            self.send({"type": "done", "ok": False, "reason": "rejected", "error": {"type": "ValidationError", "message": str(compiled), "frames": []}})
            return
        ns = self.namespace()
        self.wall()  # (already in place: a no-op unless the process was made without child_main)
        try:
            exec(compiled, ns)  # noqa: S102 - the sandboxed script itself
        except BaseException as e:  # noqa: BLE001 - every failure becomes a structured error
            frames = []
            lines = code.splitlines()
            for fs in traceback.extract_tb(e.__traceback__):
                if fs.filename == SCRIPT_NAME:
                    text = lines[fs.lineno - 1].strip() if fs.lineno and 0 < fs.lineno <= len(lines) else ""
                    frames.append({"line": fs.lineno, "name": "<script>" if fs.name == "<module>" else fs.name, "text": text})
                elif fs.filename == TOOLS_FILE:
                    # A tool that raised: its own lines, so a person can jump into tools.py.
                    src = TOOLS_LINES[0]
                    text = src[fs.lineno - 1].strip() if fs.lineno and 0 < fs.lineno <= len(src) else ""
                    frames.append({"line": fs.lineno, "name": fs.name, "text": text, "file": TOOLS_FILE})
            if isinstance(e, SyntaxError):
                frames.append({"line": e.lineno or 0, "name": "<script>", "text": (e.text or "").strip()})
            # The exit reason comes from what the runtime saw (the interpreter's own MemoryError, told from
            # one code raised by where it was raised), never from a name: an exception of the worker's own
            # ValidationError class raised at run time is an error.
            oom = interpreter_out_of_memory(e)
            kind = "MemoryError" if isinstance(e, MemoryError) else type(e).__name__
            message = str(e)
            if isinstance(e, KeyError) and e.args:
                message = repr(e.args[0])
            elif isinstance(e, RecursionError) and self.job.skills:
                message = _skill_recursion(frames, self.job.skills) or message
            done = {"type": "done", "ok": False, "error": {"type": kind, "message": message, "frames": frames}}
            if oom:
                done["reason"] = "oom"
            self.done(done)
            return
        self.done({"type": "done", "ok": True})


# ---------------------------------------------------------------- the child: set up ahead, one job


# A job of fixed, trusted text, gone through by each job's process while it waits for its job (_rehearse).
_REHEARSAL = marshal.dumps((compile("emit_result(1)\n", SCRIPT_NAME, "exec"), {"code": "emit_result(1)\n", "tools": {}, "inputs": {}, "skills": [], "approve": []}))


def _rehearse(child, msg_w, job_r):
    """The steps of a job that do not run its code (unpacking it, its ChildJob, encoding a result and a
    done line), once on _REHEARSAL with nothing kept or sent, while the process waits for its job: the
    pages those steps write are copied from the fork server's (copy-on-write, ~16 µs a page on a machine
    where a fault is dear) before the job arrives instead of while it runs. Measured: the faults between
    a job's arrival and its script's end went from ~93 to ~33."""
    compiled, job = marshal.loads(_REHEARSAL)
    ChildJob(job["code"], job["tools"], job["inputs"], msg_w, job_r, skills=frozenset(job.get("skills") or ()), approve=frozenset(job.get("approve") or ()))
    encode({"type": "emit", "kind": "result", "data": child._data(1, "emit_result")}).encode()
    encode({"type": "done", "ok": True}).encode()


def load_error(e):
    """What tools.py raised as it loaded, as the protocol's load_error names it (its line in tools.py)."""
    tb = traceback.extract_tb(e.__traceback__)
    line = next((f.lineno for f in reversed(tb) if f.filename == TOOLS_FILE), getattr(e, "lineno", None))
    return {"type": type(e).__name__, "message": str(e), "line": line if isinstance(line, int) else None}


class ToolsFailed(Exception):
    """tools.py raised in this job's process as it loaded, though it loaded when the tools were described."""


def _load(child, msg_w, out_w, describe):
    """tools.py in this process, before its output is the job's: a print of its top level goes nowhere
    (as the worker's own stray writes), what it writes to stderr goes to the worker's log, once, from the
    process that describes the tools (through its output pipe: the worker relays it, and names its last
    lines if that process ends before it describes the tools), nowhere from the others. The describing
    process sends the manual (or the load_error) as its first line and ends on an error; a job's process
    keeps its error for its job (ToolsFailed)."""
    if describe:
        os.dup2(out_w, 2)
    else:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
    try:
        child.load_tools(describe)
        if describe:
            line = encode({"type": "tools", "tools": [d for _, d in child.registry.tools.values()]})
    except BaseException as e:  # noqa: BLE001
        if describe:
            write_all(msg_w, encode({"type": "load_error", "error": load_error(e)}).encode() + b"\n")
            os._exit(0)
        err = load_error(e)
        at = f" (tools.py line {err['line']})" if err["line"] else ""
        return ToolsFailed(f"tools.py raised {err['type']}: {err['message']}{at} as this job's process loaded it; it loaded when the tools were described, so it does not do the same each time it runs")
    if describe:
        write_all(msg_w, line.encode() + b"\n")
    return None


def child_main(child, job_r, msg_w, out_w, walls_line, describe=False):
    """A fresh process, forked by the fork server before its job arrives. It says which walls it is in
    with its first line (`walls_line`), then gets ready (tools.py loaded; the process describing the tools
    sends them as its second line; output to the worker's pipe, nothing of the protocol stream), waits
    for exactly one job, runs it and exits. Nothing of the job's code runs before the job arrives."""
    try:
        os.setsid()
        no_dump()  # inherited from the fork server; set again before any job code: no later job reads this one
        gc.disable()  # a short-lived process: no collector passes touching (copying) shared pages
        # Its walls are told before any of tools.py runs: the worker takes the first line for them, and
        # a line tools.py wrote first (it can find this pipe) would be taken for them otherwise (a forged
        # `alone` where the process is not: the next job's process asked for before the last job's sweep).
        write_all(msg_w, walls_line)  # ready: the worker reads this while idle and tells the host
        failed = _load(child, msg_w, out_w, describe)
        no_dump()  # (whatever tools.py did with it)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        _OUT[0] = os.dup(out_w)  # (not inherited: settle_output's own view of the output pipe)
        os.close(out_w)
        if not getattr(sys.stdout, "write_through", False):  # not run with -u: line-buffer the output
            sys.stdout = os.fdopen(1, "w", buffering=1)
            sys.stderr = sys.stdout
        if failed is None:
            child.wall()
            _rehearse(child, msg_w, job_r)  # (nothing of it is kept: the pages it wrote are this process's now)
        head = read_exact(job_r, 4)
        if len(head) < 4:
            return  # withdrawn without a job (tools reloaded, worker shutting down)
        if failed is not None:
            raise failed
        compiled, job = marshal.loads(read_exact(job_r, int.from_bytes(head, "little")))
        if isinstance(compiled, str):
            compiled = ValidationError(compiled)
        child.job = ChildJob(
            job["code"],
            job["tools"],
            job["inputs"],
            msg_w,
            job_r,
            skills=frozenset(job.get("skills") or ()),
            approve=frozenset(job.get("approve") or ()),
            max_skill_calls=job.get("max_skill_calls") or 1000,
            t0=time.perf_counter(),
        )
        child.run(compiled)
    except BaseException as e:  # noqa: BLE001
        try:
            write_all(msg_w, encode({"type": "done", "ok": False, "error": {"type": type(e).__name__, "message": str(e), "frames": []}}).encode() + b"\n")
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(0)

"""Toolsmith sandbox worker (Python).

A persistent process speaking newline-delimited JSON on stdin/stdout with the host (see docs/protocol.md).
Each job runs in a fresh forked child: no state leaks between jobs. The child's stdout/stderr go to a
pipe that the parent turns into capped `log` emits, so nothing a script prints can forge a protocol line;
only this parent process writes to the real stdout.

Three kinds of process (see "Processes" in docs/protocol.md): the worker (protocol, checks, relaying),
its fork server (a copy of the worker made when tools are loaded, which only forks), and one child per
job, forked by the fork server ahead of its job and used for exactly one.

Stdlib only. The container (no network, read-only root, limits, non-root) is the security boundary; the
checks and restricted builtins here make honest mistakes fail early and clearly.
"""

import ast
import builtins
import collections
import collections.abc
import gc
import datetime
import functools
import inspect
import itertools
import json
import marshal
import math
import os
import random
import re
import resource
import select
import signal
import socket
import statistics
import sys
import time
import traceback

# The harness keeps its own references: a script may reassign module attributes (json.loads = None) in
# its own process, and that must only break the script, never the protocol.
_loads = json.loads


def _not_serializable(o):
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _compact_encoder(default):
    """json.dumps(o, separators=(",", ":")) without building an encoder per call: the C encoder is made
    once (no circular-reference markers: a circular value ends in RecursionError instead of ValueError)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder(separators=(",", ":"), default=default).encode
    encoder = make(None, default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True)
    join = "".join
    return lambda o: join(encoder(o, 0))


_encode = _compact_encoder(_not_serializable)
_encode_out = _compact_encoder(str)
_isfinite = math.isfinite

PROTOCOL = 1
MAX_LINE = 1 << 20  # a host line larger than this is refused
HOST_MAX_LINE = 4 << 20  # the host refuses a worker line larger than this (MAX_WORKER_LINE)
SCRIPT_NAME = "<script>"
TOOLS_FILE = "tools.py"
# The loaded tools.py, by line (one slot: set on load, read in forked jobs' tracebacks).
TOOLS_LINES = [[]]

FORBIDDEN_NAMES = {
    "exec", "eval", "compile", "open", "__import__", "__builtins__", "__loader__", "__spec__", "exit", "quit",
    "input", "breakpoint", "help", "globals", "locals", "vars", "dir", "setattr", "delattr", "memoryview",
    "bytearray", "object", "super", "classmethod", "staticmethod", "property", "callable", "id", "aiter", "anext",
    "copyright", "credits", "license",
}
FORBIDDEN_ATTRS = {
    "gi_frame", "gi_code", "gi_yieldframe", "gi_running", "cr_frame", "cr_code", "cr_await", "ag_frame", "ag_code",
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next", "tb_lasti",
    "co_code", "co_consts", "co_names", "co_varnames", "co_filename", "func_globals", "func_code", "mro",
}
SAFE_BUILTIN_NAMES = [
    "abs", "all", "any", "ascii", "bin", "bool", "chr", "dict", "divmod", "enumerate", "filter", "float",
    "format", "frozenset", "hash", "hex", "int", "isinstance", "issubclass", "iter", "len", "list", "map",
    "max", "min", "next", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice", "sorted",
    "str", "sum", "tuple", "zip", "bytes", "Exception", "ArithmeticError", "AssertionError", "AttributeError",
    "IndexError", "KeyError", "LookupError", "NameError", "NotImplementedError", "OverflowError", "RuntimeError",
    "StopIteration", "TypeError", "ValueError", "ZeroDivisionError",
]
# The only attributes scripts get from each pre-imported module (PYTHON_MODULE_ATTRIBUTES in
# src-main/core/lang/builtins.ts; a parity test keeps them equal). Real modules carry their own imports
# (statistics.sys, json.codecs, re.enum.bltns): scripts get read-only stand-ins holding just these.
MODULE_ATTRS = {
    "json": ["dumps", "loads", "JSONDecodeError"],
    "time": ["time", "time_ns", "monotonic", "perf_counter", "sleep", "strftime", "strptime", "gmtime", "localtime", "mktime"],
    "math": [
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "comb", "copysign", "cos", "cosh",
        "degrees", "dist", "e", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "factorial", "floor", "fmod", "frexp",
        "fsum", "gamma", "gcd", "hypot", "inf", "isclose", "isfinite", "isinf", "isnan", "isqrt", "lcm", "ldexp",
        "lgamma", "log", "log10", "log1p", "log2", "modf", "nan", "nextafter", "perm", "pi", "pow", "prod", "radians",
        "remainder", "sin", "sinh", "sqrt", "tan", "tanh", "tau", "trunc", "ulp",
    ],
    "re": [
        "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split", "compile", "escape", "error",
        "IGNORECASE", "I", "MULTILINE", "M", "DOTALL", "S", "VERBOSE", "X", "ASCII", "A",
    ],
    "datetime": ["date", "datetime", "time", "timedelta", "timezone", "UTC", "MINYEAR", "MAXYEAR"],
    "random": ["random", "randint", "randrange", "choice", "choices", "sample", "shuffle", "uniform", "gauss", "seed"],
    "statistics": [
        "mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low", "median_high", "median_grouped",
        "mode", "multimode", "quantiles", "stdev", "pstdev", "variance", "pvariance", "covariance", "correlation",
        "linear_regression", "NormalDist", "StatisticsError",
    ],
    "itertools": [
        "accumulate", "chain", "combinations", "combinations_with_replacement", "compress", "count", "cycle",
        "dropwhile", "filterfalse", "groupby", "islice", "pairwise", "permutations", "product", "repeat", "starmap",
        "takewhile", "tee", "zip_longest",
    ],
    "functools": ["reduce", "partial", "cmp_to_key", "lru_cache", "cache"],
    "collections": ["Counter", "defaultdict", "OrderedDict", "deque", "namedtuple", "ChainMap"],
}
FORMAT_METHODS = ("format", "format_map")
FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}!:]*)")


class ModuleView:
    """A pre-imported module as scripts see it: only its MODULE_ATTRS, read-only, nothing else (not even dunders)."""

    __slots__ = ("_view",)

    def __init__(self, name, module):
        object.__setattr__(self, "_view", (name, {a: getattr(module, a) for a in MODULE_ATTRS[name] if hasattr(module, a)}))

    def __getattribute__(self, attr):
        name, attrs = object.__getattribute__(self, "_view")
        try:
            return attrs[attr]
        except KeyError:
            raise AttributeError(f"{name}.{attr} is not available: {name} offers only {', '.join(attrs)}") from None

    def __setattr__(self, attr, value):
        raise AttributeError(f"{object.__getattribute__(self, '_view')[0]} is read-only")

    def __delattr__(self, attr):
        raise AttributeError(f"{object.__getattribute__(self, '_view')[0]} is read-only")

    def __repr__(self):
        return f"<module {object.__getattribute__(self, '_view')[0]!r}>"

    def __dir__(self):
        return list(object.__getattribute__(self, "_view")[1])


MODULES = {
    name: ModuleView(name, module)
    for name, module in (
        ("json", json), ("time", time), ("math", math), ("re", re), ("datetime", datetime), ("random", random),
        ("statistics", statistics), ("itertools", itertools), ("functools", functools), ("collections", collections),
    )
}
DUNDER_STR = re.compile(r"__[A-Za-z_]\w*")


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


class ValidationError(Exception):
    """The worker's own AST check refused the script."""


# ---------------------------------------------------------------- protocol out (the worker only)

_OUT_FD = os.dup(1)
_pending = []


def send(msg):
    """Queues a protocol line; the loop writes what one turn produced with a single write (flush)."""
    _pending.append(_encode_out(msg).encode() + b"\n")


def flush():
    if _pending:
        data = b"".join(_pending)
        _pending.clear()
        try:
            _write_all(_OUT_FD, data)
        except OSError:  # the host went away
            os._exit(0)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd, n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


# ---------------------------------------------------------------- ToolResponse and @tool


def _json_safe(value, path="$"):
    if value is None or isinstance(value, (bool, str)):
        return None
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not _isfinite(value):
            return f"{path} ({value})"
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            bad = _json_safe(v, f"{path}[{i}]")
            if bad:
                return bad
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"{path} (key {k!r} is not a string)"
            bad = _json_safe(v, f"{path}.{k}")
            if bad:
                return bad
        return None
    return f"{path} ({type(value).__name__})"


class ToolResponse:
    """The uniform result of every tool: success, message (mandatory on failure), data (JSON-safe)."""

    __slots__ = ("success", "message", "data")

    def __init__(self, success, message=None, data=None):
        if not isinstance(success, bool):
            raise TypeError("ToolResponse.success must be True or False")
        if not success and not (isinstance(message, str) and message.strip()):
            raise ValueError("a failed ToolResponse needs a message saying what went wrong")
        bad = _json_safe(data)
        if bad:
            raise TypeError(f"ToolResponse data must be JSON-safe; {bad} is not")
        self.success = success
        self.message = message
        self.data = data

    def to_dict(self):
        d = {"success": self.success}
        if self.message is not None:
            d["message"] = self.message
        if self.data is not None:
            d["data"] = self.data
        return d

    def __repr__(self):
        return f"ToolResponse(success={self.success!r}, message={self.message!r}, data={self.data!r})"


_TYPES = {str: "str", int: "int", float: "float", bool: "bool", list: "list", dict: "dict"}


def _type_name(ann):
    """(type, options, optional, items): as the host's extractor reads the annotation (tools/extract.ts)."""
    if ann is inspect.Parameter.empty:
        return "any", None, False, None
    if isinstance(ann, str):
        ann = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}.get(ann, ann)
    if ann in _TYPES:
        return _TYPES[ann], None, False, None
    origin = getattr(ann, "__origin__", None)
    args = getattr(ann, "__args__", ()) or ()
    name = getattr(origin, "_name", None) or getattr(ann, "_name", None) or ""
    if origin is tuple:
        return "list", None, False, None
    if origin is list or origin is collections.abc.Sequence:
        item = _type_name(args[0])[0] if len(args) == 1 else "any"
        return "list", None, False, (item if item != "any" else None)
    if origin is dict:
        return "dict", None, False, None
    if name == "Literal" or str(origin) == "typing.Literal":
        opts = list(args)
        first = opts[0] if opts else ""
        t = "bool" if isinstance(first, bool) else "int" if isinstance(first, int) else "float" if isinstance(first, float) else "str"
        return t, opts, False, None
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            t, opts, _, items = _type_name(rest[0])
            return t, opts, True, items
    return "any", None, False, None


def _parse_doc(doc):
    desc, params, returns = [], {}, []
    section, current = "desc", None
    for raw in (doc or "").replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        m = re.match(r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?)\s*:\s*$", line)
        if m:
            h = m.group(1)
            section = "args" if h in ("Args", "Arguments", "Parameters", "Params") else "returns" if h in ("Returns", "Return") else "other"
            current = None
            continue
        if section == "desc":
            desc.append(line.strip())
        elif section == "returns":
            returns.append(line.strip())
        elif section == "args":
            pm = re.match(r"^\s*\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:\s*(.*)$", line)
            indent = len(line) - len(line.lstrip())
            if pm and (current is None or indent <= 8):
                current = pm.group(1)
                params[current] = pm.group(2).strip()
            elif current and line.strip():
                params[current] = (params[current] + " " + line.strip()).strip()
    paragraphs = re.split(r"\n\s*\n", "\n".join(desc).strip())
    description = re.sub(r"\s*\n\s*", " ", paragraphs[0] if paragraphs else "").strip()
    ret = " ".join(r for r in returns if r)
    return description, params, ret or None


class ToolRegistry:
    def __init__(self):
        self.tools = {}  # name -> (function, descriptor)
        self.signatures = {}  # name -> inspect.Signature, computed once at load

    def decorator(self, fn=None, **kw):
        allowed = {"name", "description", "options", "examples", "source", "display_name", "grade"}
        unknown = set(kw) - allowed
        if unknown:
            raise TypeError(f"@tool got unknown arguments {sorted(unknown)}")

        def register(f):
            self.tools[kw.get("name") or f.__name__] = (f, self._describe(f, kw))
            self.signatures[kw.get("name") or f.__name__] = inspect.signature(f)
            return f

        return register(fn) if fn is not None else register

    @staticmethod
    def _describe(f, kw):
        description, docs, returns = _parse_doc(inspect.getdoc(f))
        sig = inspect.signature(f)
        params = []
        for p in sig.parameters.values():
            if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                continue
            t, opts, optional, items = _type_name(p.annotation)
            d = {
                "name": p.name,
                "type": t,
                "description": docs.get(p.name, ""),
                "required": p.default is inspect.Parameter.empty,
                "source": "all",
            }
            if items is not None:
                d["items"] = items
            if optional:
                d["nullable"] = True
            if p.default is not inspect.Parameter.empty:
                d["default"] = list(p.default) if isinstance(p.default, tuple) else p.default
            o = (kw.get("options") or {}).get(p.name, opts)
            if o is not None:
                d["options"] = list(o)
            ex = (kw.get("examples") or {}).get(p.name)
            if ex is not None:
                d["examples"] = list(ex) if isinstance(ex, (list, tuple)) else [ex]
            src = (kw.get("source") or {}).get(p.name)
            if src in ("context", "history", "all"):
                d["source"] = src
            dn = (kw.get("display_name") or {}).get(p.name)
            if isinstance(dn, str):
                d["displayName"] = dn
            params.append(d)
        g = kw.get("grade")
        grade = {"w": g[0], "d": g[1]} if isinstance(g, (list, tuple)) and len(g) == 2 else {"w": 2, "d": 2}
        desc = {
            "name": kw.get("name") or f.__name__,
            "description": kw.get("description") or description,
            "parameters": params,
            "location": "sandbox",
            "grade": grade,
        }
        if returns:
            desc["returns"] = returns
        return desc


# ---------------------------------------------------------------- the worker's own AST re-check


def check_script(code):
    """The core rules on the exact text that will run. Raises ValidationError listing every problem."""
    try:
        tree = ast.parse(code, filename=SCRIPT_NAME)
    except SyntaxError as e:
        raise ValidationError(f"line {e.lineno}: syntax error: {e.msg}") from None
    problems = []
    for line in code.splitlines()[:2]:
        if re.match(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", line):
            problems.append("source-encoding declarations are not allowed")
    receivers, callees = set(), {}  # ast.walk is breadth-first: a parent is seen before its children
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute):
            receivers.add(id(node.value))
        elif isinstance(node, ast.Call):
            callees[id(node.func)] = node
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            problems.append(f"{where}: imports are not available")
        elif isinstance(node, ast.Name) and (node.id in FORBIDDEN_NAMES or (node.id.startswith("__") and node.id.endswith("__"))):
            problems.append(f"{where}: {node.id} is not available")
        elif isinstance(node, ast.Name) and node.id in MODULE_ATTRS:
            if not isinstance(node.ctx, ast.Load):
                problems.append(f"{where}: do not rebind the pre-imported module {node.id}")
            elif id(node) not in receivers:
                problems.append(f"{where}: {node.id} can only be used as {node.id}.<attribute>, never as a value")
        elif isinstance(node, ast.Attribute) and (node.attr.startswith("_") or node.attr in FORBIDDEN_ATTRS):
            problems.append(f"{where}: attribute {node.attr} is not available")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in MODULE_ATTRS:
            if node.attr not in MODULE_ATTRS[node.value.id]:
                problems.append(f"{where}: {node.value.id}.{node.attr} is not available")
            elif not isinstance(node.ctx, ast.Load):
                problems.append(f"{where}: {node.value.id}.{node.attr} is read-only")
        elif isinstance(node, ast.Attribute) and node.attr in FORMAT_METHODS:
            template, call = node.value, callees.get(id(node))
            if isinstance(template, ast.Name) and template.id == "str" and call is not None and call.args:
                template = call.args[0]
            if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
                problems.append(f"{where}: .{node.attr} needs a string literal template; use an f-string")
            elif any(m.group(1) is not None and ("." in m.group(1) or "[" in m.group(1)) for m in FORMAT_FIELD.finditer(template.value)):
                problems.append(f"{where}: format fields may not walk attributes or keys")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and DUNDER_STR.search(node.value):
            problems.append(f"{where}: strings may not contain double-underscore names")
        elif isinstance(node, ast.MatchClass):
            for kw in node.kwd_attrs:
                if kw.startswith("_"):
                    problems.append(f"{where}: match pattern attribute {kw} is not available")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
            a = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(a, ast.Constant) and isinstance(a.value, str) and not a.value.startswith("_")):
                problems.append(f"{where}: {node.func.id} needs a literal public attribute name")
            elif a.value in FORBIDDEN_ATTRS or a.value in FORMAT_METHODS:
                problems.append(f"{where}: {node.func.id} cannot fetch {a.value}")
    if problems:
        raise ValidationError("; ".join(problems))
    return tree


def _guarded_getattr(obj, name, *default):
    if not isinstance(name, str) or name.startswith("_") or name in FORBIDDEN_ATTRS or name in FORMAT_METHODS:
        raise AttributeError(f"attribute {name!r} is not available")
    return getattr(obj, name, *default)


def _guarded_hasattr(obj, name):
    if not isinstance(name, str) or name.startswith("_") or name in FORBIDDEN_ATTRS:
        raise AttributeError(f"attribute {name!r} is not available")
    return hasattr(obj, name)


def _guarded_type(obj):
    return type(obj)


def safe_builtins(print_fn):
    b = {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES}
    b.update(getattr=_guarded_getattr, hasattr=_guarded_hasattr, type=_guarded_type, print=print_fn)
    b.update(True_=True)
    del b["True_"]
    return b


# ---------------------------------------------------------------- the child: one job


class Child:
    """A job's side of the protocol. Made in the worker once per tools load, with everything a job's
    namespace holds that does not depend on the job, so each child inherits it ready-made and only fills
    in its job and pipes. A child changes only its own copy (copy-on-write): the next child starts again
    from the fork server's untouched one."""

    def __init__(self, registry, host_tools, credentials, forward=False):
        self.job = None
        self.registry = registry
        # Forwarded: the sandbox's tools run in another container (egress, docs/sandboxes.md); here they
        # are tool_calls to the host like host tools, with the same signature checks.
        self.local = {} if forward else registry.tools
        self.host_tools = host_tools
        self.credentials = credentials
        self.msg_w = -1
        self.res_r = -1
        self.res_buf = b""
        self.calls = 0
        self.base = {"__builtins__": safe_builtins(self._print)}
        self.base.update(MODULES)
        self.base.update(
            emit_result=self.emit_result,
            emit_intermediate=self.emit_intermediate,
            emit_log=self.emit_log,
            credential=self.credential,
            ToolResponse=ToolResponse,
        )
        # Each tool under its own name; a kit alias gets its own wrapper when a job uses it.
        self.own = {name: self.sandbox_tool(name, name, fn, registry.signatures[name]) for name, (fn, _) in self.local.items()}
        self.own_host = {name: self.host_tool(name, name) for name in host_tools}
        self.refused = {name: self.refused_tool(name) for name in list(registry.tools) + list(host_tools)}

    def send(self, msg):
        _write_all(self.msg_w, _encode(msg).encode() + b"\n")

    def _data(self, value, what):
        bad = _json_safe(value)
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

    def trace(self, name, args, started, result=None, error=None, location="sandbox", refused=False):
        msg = {"type": "trace", "name": name, "args": args, "ms": round((time.perf_counter() - started) * 1000, 3), "location": location}
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
            started = time.perf_counter()
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as e:
                self.trace(alias, {"args": [repr(a) for a in args], **{k: repr(v) for k, v in kwargs.items()}}, started, error=str(e))
                raise TypeError(f"{alias}() {e}") from None
            traced = dict(bound.arguments)
            try:
                r = fn(*bound.args, **bound.kwargs)
                if not isinstance(r, ToolResponse):
                    raise TypeError(f"tool {name} returned {type(r).__name__}, not a ToolResponse")
            except Exception as e:  # noqa: BLE001 - traced, then re-raised to the script
                self.trace(alias, traced, started, error=f"{type(e).__name__}: {e}")
                raise
            self.trace(alias, traced, started, result=r.to_dict())
            return r

        call.__name__ = alias
        return call

    def host_tool(self, alias, name):
        sig = self.registry.signatures.get(name)

        def call(*args, **kwargs):
            if sig is not None:  # a forwarded sandbox tool: bound like a local one
                try:
                    kwargs = dict(sig.bind(*args, **kwargs).arguments)
                except TypeError as e:
                    raise TypeError(f"{alias}() {e}") from None
            elif args:
                raise TypeError(f"{alias}() takes keyword arguments only")
            self.calls += 1
            call_id = f"c{self.calls}"
            self._data(kwargs, alias)
            self.send({"type": "tool_call", "call_id": call_id, "name": name, "alias": alias, "args": kwargs})
            reply = self._read_result(call_id)
            r = reply.get("response") or {}
            if reply.get("error"):
                raise RuntimeError(f"{alias}: {reply['error']}")
            return ToolResponse(bool(r.get("success")), r.get("message") or (None if r.get("success") else "failed"), r.get("data"))

        call.__name__ = alias
        return call

    def _read_result(self, call_id):
        while True:
            nl = self.res_buf.find(b"\n")
            if nl >= 0:
                line, self.res_buf = self.res_buf[:nl], self.res_buf[nl + 1:]
                msg = _loads(line)
                if msg.get("call_id") == call_id:
                    return msg
                continue
            chunk = os.read(self.res_r, 65536)
            if not chunk:
                raise RuntimeError("the host closed the tool channel")
            self.res_buf += chunk

    def refused_tool(self, alias):
        def call(*args, **kwargs):
            started = time.perf_counter()
            self.trace(alias, {k: repr(v) for k, v in kwargs.items()}, started, error="refused: not in this run's tools", refused=True)
            raise PermissionError(f"{alias} is not one of the tools of this run")

        return call

    def namespace(self):
        ns = self.base  # this process's own copy, used by exactly one job
        tools = self.job.get("tools") or {}
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
        for k, v in (self.job.get("inputs") or {}).items():
            ns[k] = v
        return ns

    def _print(self, *args, sep=" ", end="\n", **_kw):
        sys.stdout.write(sep.join(str(a) for a in args) + end)
        sys.stdout.flush()

    def run(self, compiled):
        code = self.job.get("code", "")
        if isinstance(compiled, ValidationError):
            self.send({"type": "done", "ok": False, "error": {"type": "ValidationError", "message": str(compiled), "frames": []}})
            return
        ns = self.namespace()
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
            if isinstance(e, MemoryError):
                kind = "MemoryError"
            else:
                kind = type(e).__name__
            message = str(e)
            if isinstance(e, KeyError) and e.args:
                message = repr(e.args[0])
            self.send({"type": "done", "ok": False, "error": {"type": kind, "message": message, "frames": frames}})
            return
        self.send({"type": "done", "ok": True})


# ---------------------------------------------------------------- the child: set up ahead, one job


def child_main(job_r, msg_w, out_w):
    """A fresh process, forked by the fork server before its job arrives. It gets ready (own session,
    output to the worker's pipe, nothing of the protocol stream), waits for exactly one job, runs it and
    exits. Nothing of the job's code runs before the job arrives."""
    try:
        os.setsid()
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        os.close(out_w)
        if not getattr(sys.stdout, "write_through", False):  # not run with -u: line-buffer the output
            sys.stdout = os.fdopen(1, "w", buffering=1)
            sys.stderr = sys.stdout
        gc.disable()  # a short-lived process: no collector passes touching (copying) shared pages
        head = _read_exact(job_r, 4)
        if len(head) < 4:
            return  # withdrawn without a job (tools reloaded, worker shutting down)
        compiled, job = marshal.loads(_read_exact(job_r, int.from_bytes(head, "little")))
        if isinstance(compiled, str):
            compiled = ValidationError(compiled)
        child = WORKER.child
        child.job, child.msg_w, child.res_r = job, msg_w, job_r
        child.run(compiled)
    except BaseException as e:  # noqa: BLE001
        try:
            _write_all(msg_w, _encode({"type": "done", "ok": False, "error": {"type": type(e).__name__, "message": str(e), "frames": []}}).encode() + b"\n")
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(0)


# ---------------------------------------------------------------- the fork server


def fork_server(sock):
    """Forks one child at a time when the worker asks ("f"), hands the worker the child's pipes ("c"),
    reports the child's exit ("x") and answers pings ("p" -> "P"), also while a child runs. It is a copy
    of the worker made right after the tools were loaded and does nothing else: the worker's own memory
    is never shared with a job, so relaying a job never pays for copy-on-write, and a child is ready
    before its job arrives."""
    set_pdeathsig()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # for the children: a write to a pipe nobody reads ends them
    os.close(_OUT_FD)  # the protocol stream is the worker's alone
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
        return r

    wanted = False  # a fork asked for while the previous child still ran (the worker does not do that)
    while True:
        if not wanted and request() != b"f":
            continue
        wanted = False
        job_r, job_w = os.pipe()  # worker -> child: the job, then tool results
        msg_r, msg_w = os.pipe()  # child -> worker: protocol lines
        out_r, out_w = os.pipe()  # the child's stdout/stderr
        pid = os.fork()
        if pid == 0:
            sock.close()
            os.close(job_w)
            os.close(msg_r)
            os.close(out_r)
            child_main(job_r, msg_w, out_w)
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


# ---------------------------------------------------------------- the worker: protocol loop

_FDS_SPACE = socket.CMSG_SPACE(3 * 4)  # room for the three pipe ends of a child


class Worker:
    def __init__(self):
        self.registry = ToolRegistry()
        self.host_tools = {}
        self.credentials = set()
        self.forward = False
        self.job = None  # current job state
        self.server = None  # (pid, socket) of the fork server
        self.child = None  # the job side every child inherits (Child), made with the fork server
        self.spare = None  # a child forked ahead of its job: pid and the worker's ends of its pipes
        self.pending_load = None  # a load that came during a job, applied when the job is over
        self.lost = "the sandbox worker cannot fork"  # why jobs cannot run once the fork server is gone
        self.pong = False  # the fork server answered the last ping

    # ------------------------------------------------------------ the fork server

    def start_server(self):
        if self.child is None:
            self.child = Child(self.registry, self.host_tools, self.credentials, self.forward)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                ours.close()
                fork_server(theirs)
            finally:
                os._exit(0)
        theirs.close()
        self.server = (pid, ours)
        self.ask_child()

    def ask_child(self):
        try:
            self.server[1].send(b"f")
        except OSError:
            self.server_lost()

    def stop_server(self):
        """Ends the fork server and its waiting child (before tools are reloaded)."""
        if self.server is None:
            return
        pid, sock = self.server
        self.server = None
        self.drop_spare()
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        sock.close()
        reap_strays()  # a waiting child whose fork server died is ours now

    def drop_spare(self):
        spare, self.spare = self.spare, None
        if spare is None:
            return
        for fd in (spare["job_w"], spare["msg_r"], spare["out_r"]):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(spare["pid"], signal.SIGKILL)
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
        elif kind == b"c" and len(fds) == 3:
            self.spare = {"pid": pid, "job_w": fds[0], "msg_r": fds[1], "out_r": fds[2]}
        elif kind == b"x":
            status = int.from_bytes(data[5:9], "little")
            if self.job is not None and self.job["pid"] == pid:
                self.job["status"] = status
            elif self.spare is not None and self.spare["pid"] == pid:
                # The waiting child died before its job (killed from outside): fork another.
                self.drop_spare()
                reap_strays()
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
        self.drop_spare()
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = 0
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        self.lost = f"the sandbox worker died: its fork server was killed{f' (signal {sig})' if sig else ''}"

    # ------------------------------------------------------------ protocol

    def load(self, msg):
        if self.job is not None:
            self.pending_load = msg
            return
        self.stop_server()
        self.child = None
        self.registry = ToolRegistry()
        ns = {"__builtins__": builtins, "tool": self.registry.decorator, "ToolResponse": ToolResponse, "__name__": "tools"}
        try:
            TOOLS_LINES[0] = msg.get("source", "").splitlines()
            exec(compile(msg.get("source", ""), TOOLS_FILE, "exec"), ns)  # noqa: S102 - the sandbox's own tools
        except BaseException as e:  # noqa: BLE001
            tb = traceback.extract_tb(e.__traceback__)
            line = next((f.lineno for f in reversed(tb) if f.filename == TOOLS_FILE), getattr(e, "lineno", None))
            send({"type": "load_error", "error": {"type": type(e).__name__, "message": str(e), "line": line}})
            return
        self.host_tools = {t["name"]: t for t in msg.get("host_tools") or []}
        self.forward = bool(msg.get("forward_tools"))
        if self.forward:
            for name in self.registry.tools:
                self.host_tools.setdefault(name, {"name": name})
        self.credentials = set(msg.get("credentials") or [])
        self.child = Child(self.registry, self.host_tools, self.credentials, self.forward)
        gc.collect()
        gc.freeze()  # what exists now is shared with every forked job, untouched by their collectors
        trim_heap()  # freed memory goes back to the system: fewer pages for every fork to copy
        # The fork server is a copy of the worker as it is now, tools loaded: every child comes from it.
        self.start_server()
        send(
            {
                "type": "ready",
                "protocol": PROTOCOL,
                "runtime": "python",
                "version": sys.version.split()[0],
                "pid": os.getpid(),
                "tools": [d for _, d in self.registry.tools.values()],
            }
        )

    def start_job(self, msg):
        job_id = msg.get("id")
        if self.job is not None:
            send({"type": "done", "id": job_id, "ok": False, "error": {"type": "Busy", "message": "a job is already running", "frames": []}})
            return
        # Checked and compiled here, on the exact text; the child gets exactly this code object.
        code = msg.get("code", "")
        try:
            compiled = compile(check_script(code), SCRIPT_NAME, "exec")
        except ValidationError as e:
            compiled = str(e)
        except (SyntaxError, ValueError) as e:
            compiled = str(e)
        if self.server is None:
            self.start_server()
        while self.spare is None and self.server is not None:
            if not self.server_message():
                self.server_lost()
        timeout = min(float(msg.get("timeout_ms") or 300000), 600000) / 1000.0
        self.job = {
            "id": job_id,
            "pid": 0,
            "msg_r": -1,
            "res_w": -1,
            "out_r": -1,
            "msg_buf": b"",
            "out_bytes": 0,
            "max_output": int(msg.get("max_output_bytes") or 51200),
            "deadline": time.monotonic() + timeout,
            "done": None,
            "hold": 0,  # set while a result line waits for the job's done (HOLD_S)
            "status": None,
            "open": set(),
            "oom_before": oom_kills(),
        }
        if self.spare is None:
            self.finish({"type": "done", "ok": False, "reason": "crashed", "error": {"type": "Crashed", "message": self.lost, "frames": []}})
            return
        child, self.spare = self.spare, None
        self.job.update(pid=child["pid"], msg_r=child["msg_r"], res_w=child["job_w"], out_r=child["out_r"], open={child["msg_r"], child["out_r"]})
        blob = marshal.dumps((compiled, {"code": code, "tools": msg.get("tools") or {}, "inputs": msg.get("inputs") or {}}))
        try:
            _write_all(child["job_w"], len(blob).to_bytes(4, "little") + blob)
        except OSError:
            pass  # the child is gone: its pipes close and the job ends as crashed

    def finish(self, done):
        job = self.job
        if job is None:
            return
        if job["done"] is None:
            job["done"] = done
        if job["done"] is not None and job["out_r"] in job["open"]:
            self.drain_output(job)  # what the script printed before it finished
        for fd in job["open"]:
            try:
                os.close(fd)
            except OSError:
                pass
        job["open"] = set()
        if job["res_w"] >= 0:
            try:
                os.close(job["res_w"])
            except OSError:
                pass
        sent = False
        if job["pid"]:
            try:
                os.killpg(job["pid"], signal.SIGKILL)  # the child and whatever stayed in its session
            except OSError:
                pass
            # A job that ended with a done (its own, or the worker's: timeout, output limit) has its
            # result now, unless it killed the fork server on its way: a ping settles that (a killed
            # process never answers again) without waiting for the child's exit.
            if job["done"] is not None and self.ping_server():
                d = job["done"]
                d["id"] = job["id"]
                send(d)
                flush()
                sent = True
            # Wait until the child is gone (the fork server reports it): its orphans are ours by then.
            while job["status"] is None and self.server is not None:
                if not self.server_message():
                    self.server_lost()
        if not sent:
            d = job["done"]
            oom_before, oom_after = job["oom_before"], oom_kills()
            if d is None and oom_before is not None and oom_after is not None and oom_after > oom_before:
                d = {"type": "done", "ok": False, "reason": "oom", "error": {"type": "OutOfMemory", "message": "the script ran out of memory and was killed", "frames": []}}
            if self.server is None and job["pid"]:
                d = {"type": "done", "ok": False, "reason": "crashed", "error": {"type": "Crashed", "message": self.lost, "frames": []}}
            if d is None:
                status = job["status"] or 0
                sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
                d = {"type": "done", "ok": False, "error": {"type": "Crashed", "message": f"the script process died (signal {sig})" if sig else "the script process exited without finishing", "frames": []}, "reason": "crashed"}
            d["id"] = job["id"]
            send(d)
            flush()  # the result goes out now; the cleaning below happens before the next job is read
        self.job = None
        reap_strays()
        if PRIVATE_TMP:
            wipe_tmp()
        if self.server is None:
            if job["pid"]:
                os._exit(1)  # a job killed part of the worker: the host replaces it
            return
        self.ask_child()  # the next child is forked only now, after the leftovers are gone
        if self.pending_load is not None:
            pending, self.pending_load = self.pending_load, None
            self.load(pending)

    def drain_output(self, job):
        fd = job["out_r"]
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            if not self.take_output(chunk):
                job["done"] = self.limit_done(job)
                return

    @staticmethod
    def limit_done(job):
        return {"type": "done", "ok": False, "reason": "output_limit", "error": {"type": "OutputLimit", "message": f"the script's output exceeded {job['max_output']} bytes", "frames": []}}

    def kill_job(self, reason, message):
        job = self.job
        if job is None:
            return
        job["done"] = {"type": "done", "ok": False, "reason": reason, "error": {"type": {"timeout": "Timeout", "output_limit": "OutputLimit"}.get(reason, "Error"), "message": message, "frames": []}}
        self.finish(job["done"])

    def on_child_message(self, line):
        job = self.job
        try:
            msg = _loads(line)
        except (ValueError, RecursionError):
            return
        if not isinstance(msg, dict):
            return
        t = msg.get("type")
        msg["id"] = job["id"]
        if t == "done":
            # The script is over. What it printed is already in the output pipe; a process it left
            # behind may hold the pipes open, but it is killed now and the result does not wait for it.
            self.finish(msg)
            return
        if t == "emit":
            job["out_bytes"] += len(line)
            if job["out_bytes"] > job["max_output"]:
                self.kill_job("output_limit", f"the script's output exceeded {job['max_output']} bytes")
                return
            if msg.get("kind") == "result" and not job["hold"]:
                job["hold"] = time.monotonic() + HOLD_S
        send(msg)

    def take_output(self, data):
        """Relays what the script printed as log emits; False when the output cap is passed."""
        job = self.job
        job["out_bytes"] += len(data)
        if job["out_bytes"] > job["max_output"]:
            return False
        text = data.decode("utf-8", "replace")
        for line in text.splitlines():
            send({"type": "emit", "id": job["id"], "kind": "log", "data": line})
        return True

    def loop(self):
        in_fd = 0
        in_buf = b""
        send({"type": "hello", "protocol": PROTOCOL, "runtime": "python", "version": sys.version.split()[0]})
        flush()
        while True:
            job = self.job
            fds = [in_fd]
            if self.server is not None:
                fds.append(self.server[1].fileno())
            timeout = None
            if job is not None:
                fds += list(job["open"])
                timeout = max(0.0, min(job["deadline"], job["hold"] or job["deadline"]) - time.monotonic())
            ready, _, _ = select.select(fds, [], [], timeout)
            if job is not None and not ready and time.monotonic() >= job["deadline"]:
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
                            os._exit(1)
                elif job is None or self.job is not job or fd not in job["open"]:
                    continue  # a file of a job that ended during this turn
                elif fd == job["msg_r"]:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        job["open"].discard(fd)
                        os.close(fd)
                    else:
                        job["msg_buf"] += chunk
                        while self.job is job and b"\n" in chunk and b"\n" in job["msg_buf"]:
                            line, job["msg_buf"] = job["msg_buf"].split(b"\n", 1)
                            self.on_child_message(line)
                        # A line still coming that is already past what the host takes (the output cap for
                        # an emit, the line limit for any line) is stopped now, not read to its end: a 10 MB
                        # result arrives in many small reads where pipes are slow (gVisor).
                        if self.job is job and len(job["msg_buf"]) > max(job["max_output"], HOST_MAX_LINE):
                            self.kill_job("output_limit", f"the script's output exceeded {job['max_output']} bytes")
                elif fd == job["out_r"]:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        job["open"].discard(fd)
                        os.close(fd)
                    elif not self.take_output(chunk):
                        self.kill_job("output_limit", f"the script's output exceeded {job['max_output']} bytes")
            if self.job is not None and self.job is job and not job["open"]:
                self.finish(None)
            if self.job is not None and self.job["hold"]:
                if time.monotonic() < self.job["hold"]:
                    continue  # a result waits a moment for its done: both go out in one write
                self.job["hold"] = 0
            flush()

    def on_host_message(self, line):
        try:
            msg = _loads(line)
        except (ValueError, RecursionError):
            return
        if not isinstance(msg, dict):
            return
        t = msg.get("type")
        if t == "load":
            self.load(msg)
        elif t == "job":
            self.start_job(msg)
        elif t == "tool_result" and self.job is not None and msg.get("id") == self.job["id"]:
            try:
                _write_all(self.job["res_w"], _encode(msg).encode() + b"\n")
            except OSError:
                pass
        elif t == "cancel" and self.job is not None and msg.get("id") == self.job["id"]:
            self.kill_job("cancelled", "cancelled by the host")
        elif t == "ping":
            send({"type": "pong", "busy": self.job is not None})


# After each job nothing it started may outlive it, and (where /tmp is the sandbox's own tmpfs) nothing it
# wrote may meet the next job. The worker is a child subreaper: a job's daemonized grandchildren (setsid,
# double fork) are re-parented to it instead of to init, so they can be found and killed. The next job's
# child is forked only after that.
PRIVATE_TMP = os.environ.get("TOOLSMITH_PRIVATE_TMP") == "1"
# A script's result is usually followed at once by its done; the worker holds the result line this long
# so that both reach the host in one write (one trip through the container's attached stream).
HOLD_S = 0.002
_OWN_DIR = os.path.dirname(os.path.abspath(__file__))
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


def reap_strays():
    """Kills and reaps every process the worker still has as a child once a job is over (except its
    fork server); without a subreaper, every other process in the sandbox too."""
    server = WORKER.server[0] if WORKER.server is not None else 0
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


WORKER = Worker()


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


def main():
    global SUBREAPER
    SUBREAPER = become_subreaper()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # SIGPIPE stays ignored (Python's default): a child that is gone makes a write fail, never kills the
    # worker; the protocol stream going away ends the worker (flush).
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # stray writes never reach the protocol stream
    oom_kills()
    start_egress_relay()
    WORKER.loop()


if __name__ == "__main__":
    main()

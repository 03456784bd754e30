"""Toolsmith sandbox worker (Python).

A persistent process speaking newline-delimited JSON on stdin/stdout with the host (see docs/protocol.md).
Each job runs in a fresh forked child: no state leaks between jobs. The child's stdout/stderr go to a
pipe that the parent turns into capped `log` emits, so nothing a script prints can forge a protocol line;
only this parent process writes to the real stdout.

Stdlib only. The container (no network, read-only root, limits, non-root) is the security boundary; the
checks and restricted builtins here make honest mistakes fail early and clearly.
"""

import ast
import builtins
import collections
import gc
import datetime
import functools
import inspect
import itertools
import json
import math
import os
import random
import re
import resource
import select
import shutil
import signal
import statistics
import sys
import time
import traceback

# The harness keeps its own references: a script may reassign module attributes (json.dumps = None) in
# its own process, and that must only break the script, never the protocol.
_dumps = json.dumps
_loads = json.loads
_isfinite = math.isfinite

PROTOCOL = 1
MAX_LINE = 1 << 20  # a host line larger than this is refused
SCRIPT_NAME = "<script>"

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


def oom_kills():
    """The container cgroup's OOM-kill counter (cgroup v2 or v1), or None where it cannot be read."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
        except (OSError, ValueError):
            continue
    return None


class ValidationError(Exception):
    """The worker's own AST check refused the script."""


# ---------------------------------------------------------------- protocol out (parent only)

_out = os.fdopen(os.dup(1), "wb", buffering=0)


def send(msg):
    _out.write(_dumps(msg, separators=(",", ":"), default=str).encode() + b"\n")


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
    if ann is inspect.Parameter.empty:
        return "any", None, False
    if isinstance(ann, str):
        ann = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}.get(ann, ann)
    if ann in _TYPES:
        return _TYPES[ann], None, False
    origin = getattr(ann, "__origin__", None)
    args = getattr(ann, "__args__", ()) or ()
    name = getattr(origin, "_name", None) or getattr(ann, "_name", None) or ""
    if origin in (list, tuple):
        return "list", None, False
    if origin is dict:
        return "dict", None, False
    if name == "Literal" or str(origin) == "typing.Literal":
        opts = list(args)
        first = opts[0] if opts else ""
        t = "bool" if isinstance(first, bool) else "int" if isinstance(first, int) else "float" if isinstance(first, float) else "str"
        return t, opts, False
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            t, opts, _ = _type_name(rest[0])
            return t, opts, True
    return "any", None, False


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
            t, opts, _optional = _type_name(p.annotation)
            d = {
                "name": p.name,
                "type": t,
                "description": docs.get(p.name, ""),
                "required": p.default is inspect.Parameter.empty,
                "source": "all",
            }
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
    def __init__(self, job, registry, host_tools, credentials, msg_w, res_r):
        self.job = job
        self.registry = registry
        self.host_tools = host_tools
        self.credentials = credentials
        self.msg = os.fdopen(msg_w, "wb", buffering=0)
        self.res = os.fdopen(res_r, "rb", buffering=0)
        self.res_buf = b""
        self.calls = 0

    def send(self, msg):
        self.msg.write(_dumps(msg, separators=(",", ":")).encode() + b"\n")

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
        except (TypeError, ValueError):
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
        def call(**kwargs):
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
            chunk = self.res.read(65536)
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
        ns = {"__builtins__": safe_builtins(self._print)}
        ns.update(MODULES)
        ns.update(
            emit_result=self.emit_result,
            emit_intermediate=self.emit_intermediate,
            emit_log=self.emit_log,
            credential=self.credential,
            ToolResponse=ToolResponse,
        )
        tools = self.job.get("tools") or {}
        for alias, name in tools.items():
            if name in self.registry.tools:
                fn, _ = self.registry.tools[name]
                ns[alias] = self.sandbox_tool(alias, name, fn, self.registry.signatures[name])
            elif name in self.host_tools:
                ns[alias] = self.host_tool(alias, name)
        for name in list(self.registry.tools) + list(self.host_tools):
            if name not in ns and name not in tools:
                ns[name] = self.refused_tool(name)
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


# ---------------------------------------------------------------- the parent: protocol loop


class Worker:
    def __init__(self):
        self.registry = ToolRegistry()
        self.host_tools = {}
        self.credentials = set()
        self.job = None  # current job state

    def load(self, msg):
        self.registry = ToolRegistry()
        ns = {"__builtins__": builtins, "tool": self.registry.decorator, "ToolResponse": ToolResponse, "__name__": "tools"}
        try:
            exec(compile(msg.get("source", ""), "tools.py", "exec"), ns)  # noqa: S102 - the sandbox's own tools
        except BaseException as e:  # noqa: BLE001
            tb = traceback.extract_tb(e.__traceback__)
            line = next((f.lineno for f in reversed(tb) if f.filename == "tools.py"), getattr(e, "lineno", None))
            send({"type": "load_error", "error": {"type": type(e).__name__, "message": str(e), "line": line}})
            return
        self.host_tools = {t["name"]: t for t in msg.get("host_tools") or []}
        self.credentials = set(msg.get("credentials") or [])
        gc.collect()
        gc.freeze()  # what exists now is shared with every forked job, untouched by their collectors
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
        # Checked and compiled here, on the exact text, before the fork: the child inherits the code object.
        try:
            compiled = compile(check_script(msg.get("code", "")), SCRIPT_NAME, "exec")
        except ValidationError as e:
            compiled = e
        except (SyntaxError, ValueError) as e:
            compiled = ValidationError(str(e))
        msg_r, msg_w = os.pipe()
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                os.close(_out.fileno())
                os.close(msg_r)
                os.close(res_w)
                os.close(out_r)
                os.dup2(out_w, 1)
                os.dup2(out_w, 2)
                os.close(out_w)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                sys.stdout = os.fdopen(1, "w", buffering=1)
                sys.stderr = sys.stdout
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                gc.disable()  # a short-lived process: no collector passes touching (copying) shared pages
                Child(msg, self.registry, self.host_tools, self.credentials, msg_w, res_r).run(compiled)
            except BaseException as e:  # noqa: BLE001
                try:
                    os.write(msg_w, json.dumps({"type": "done", "ok": False, "error": {"type": type(e).__name__, "message": str(e), "frames": []}}).encode() + b"\n")
                except OSError:
                    pass
            finally:
                os._exit(0)
        os.close(msg_w)
        os.close(res_r)
        os.close(out_w)
        timeout = min(float(msg.get("timeout_ms") or 300000), 600000) / 1000.0
        self.job = {
            "id": job_id,
            "pid": pid,
            "msg_r": msg_r,
            "res_w": res_w,
            "out_r": out_r,
            "msg_buf": b"",
            "out_bytes": 0,
            "max_output": int(msg.get("max_output_bytes") or 51200),
            "deadline": time.monotonic() + timeout,
            "done": None,
            "open": {msg_r, out_r},
            "oom_before": oom_kills(),
        }

    def finish(self, done):
        job = self.job
        if job is None:
            return
        if job["done"] is None:
            job["done"] = done
        for fd in list(job["open"]):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.close(job["res_w"])
        except OSError:
            pass
        try:
            os.killpg(job["pid"], signal.SIGKILL)
        except OSError:
            pass
        try:
            _, status = os.waitpid(job["pid"], 0)
        except ChildProcessError:
            status = 0
        reap_strays()
        if PRIVATE_TMP:
            wipe_tmp()
        d = job["done"]
        oom_before, oom_after = job["oom_before"], oom_kills()
        if d is None and oom_before is not None and oom_after is not None and oom_after > oom_before:
            d = {"type": "done", "ok": False, "reason": "oom", "error": {"type": "OutOfMemory", "message": "the script ran out of memory and was killed", "frames": []}}
        if d is None:
            sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
            d = {"type": "done", "ok": False, "error": {"type": "Crashed", "message": f"the script process died (signal {sig})" if sig else "the script process exited without finishing", "frames": []}, "reason": "crashed"}
        d["id"] = job["id"]
        self.job = None
        send(d)

    def kill_job(self, reason, message):
        job = self.job
        if job is None:
            return
        job["done"] = {"type": "done", "ok": False, "reason": reason, "error": {"type": {"timeout": "Timeout", "output_limit": "OutputLimit"}.get(reason, "Error"), "message": message, "frames": []}}
        self.finish(job["done"])

    def on_child_message(self, line):
        job = self.job
        try:
            msg = json.loads(line)
        except ValueError:
            return
        t = msg.get("type")
        msg["id"] = job["id"]
        if t == "done":
            job["done"] = msg
            # The script is over: its output pipes should close now. A process it left behind may hold
            # them open; after a short drain the job finishes anyway (and the leftovers are killed).
            job["deadline"] = min(job["deadline"], time.monotonic() + DRAIN_S)
            return
        if t == "emit":
            size = len(line)
            job["out_bytes"] += size
            if job["out_bytes"] > job["max_output"]:
                self.kill_job("output_limit", f"the script's output exceeded {job['max_output']} bytes")
                return
        send(msg)

    def on_child_output(self, data):
        job = self.job
        job["out_bytes"] += len(data)
        if job["out_bytes"] > job["max_output"]:
            self.kill_job("output_limit", f"the script's output exceeded {job['max_output']} bytes")
            return
        text = data.decode("utf-8", "replace")
        for line in text.splitlines():
            send({"type": "emit", "id": job["id"], "kind": "log", "data": line})

    def loop(self):
        stdin = sys.stdin.buffer.raw if hasattr(sys.stdin.buffer, "raw") else sys.stdin.buffer
        in_fd = stdin.fileno()
        in_buf = b""
        send({"type": "hello", "protocol": PROTOCOL, "runtime": "python", "version": sys.version.split()[0]})
        while True:
            fds = [in_fd]
            if self.job is not None:
                fds += list(self.job["open"])
            timeout = None
            if self.job is not None:
                timeout = max(0.0, self.job["deadline"] - time.monotonic())
            ready, _, _ = select.select(fds, [], [], timeout)
            if self.job is not None and not ready and time.monotonic() >= self.job["deadline"]:
                if self.job["done"] is not None:
                    self.finish(self.job["done"])
                else:
                    self.kill_job("timeout", "the script ran past its time limit")
                continue
            for fd in ready:
                if fd == in_fd:
                    chunk = os.read(in_fd, 65536)
                    if not chunk:
                        if self.job is not None:
                            self.kill_job("crashed", "the host went away")
                        return
                    in_buf += chunk
                    while b"\n" in in_buf:
                        line, in_buf = in_buf.split(b"\n", 1)
                        if len(line) > MAX_LINE:
                            continue
                        self.on_host_message(line)
                    if len(in_buf) > MAX_LINE:
                        in_buf = b""
                elif self.job is not None and fd == self.job["msg_r"]:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        self.job["open"].discard(fd)
                        os.close(fd)
                    else:
                        self.job["msg_buf"] += chunk
                        while self.job is not None and b"\n" in self.job["msg_buf"]:
                            line, self.job["msg_buf"] = self.job["msg_buf"].split(b"\n", 1)
                            self.on_child_message(line)
                elif self.job is not None and fd == self.job["out_r"]:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        self.job["open"].discard(fd)
                        os.close(fd)
                    else:
                        self.on_child_output(chunk)
            if self.job is not None and not self.job["open"]:
                self.finish(self.job["done"])

    def on_host_message(self, line):
        try:
            msg = json.loads(line)
        except ValueError:
            return
        t = msg.get("type")
        if t == "load":
            self.load(msg)
        elif t == "job":
            self.start_job(msg)
        elif t == "tool_result" and self.job is not None and msg.get("id") == self.job["id"]:
            try:
                os.write(self.job["res_w"], json.dumps(msg).encode() + b"\n")
            except OSError:
                pass
        elif t == "cancel" and self.job is not None and msg.get("id") == self.job["id"]:
            self.kill_job("cancelled", "cancelled by the host")
        elif t == "ping":
            send({"type": "pong", "busy": self.job is not None})


# After each job nothing it started may outlive it, and (where /tmp is the sandbox's own tmpfs) nothing it
# wrote may meet the next job. The worker is a child subreaper: a job's daemonized grandchildren (setsid,
# double fork) are re-parented to it instead of to init, so they can be found and killed.
PRIVATE_TMP = os.environ.get("TOOLSMITH_PRIVATE_TMP") == "1"
DRAIN_S = 0.25
_OWN_DIR = os.path.dirname(os.path.abspath(__file__))


def become_subreaper():
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except Exception:  # noqa: BLE001
        return False


def _children():
    try:
        with open(f"/proc/self/task/{os.getpid()}/children") as f:
            return [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return []


def reap_strays():
    """Kills and reaps every process the worker still has as a child once a job is over."""
    for _ in range(50):
        kids = _children()
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
                pass


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
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass


def main():
    become_subreaper()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # stray writes never reach the protocol stream
    Worker().loop()


if __name__ == "__main__":
    main()

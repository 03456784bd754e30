"""ToolResponse, @tool and the registry of a sandbox's tools.py (its descriptors as the host's extractor
reads them: src-main/core/tools/extract.ts)."""

import ast
import collections.abc
import importlib
import importlib.util
import inspect
import math
import os
import re
import sys
import sysconfig

TOOLS_FILE = "tools.py"
# The loaded tools.py, by line (one slot: set on load, read in forked jobs' tracebacks).
TOOLS_LINES = [[]]
_isfinite = math.isfinite

def json_safe(value, path="$"):
    if value is None or isinstance(value, (bool, str)):
        return None
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not _isfinite(value):
            return f"{path} ({value})"
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            bad = json_safe(v, f"{path}[{i}]")
            if bad:
                return bad
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"{path} (key {k!r} is not a string)"
            bad = json_safe(v, f"{path}.{k}")
            if bad:
                return bad
        return None
    return f"{path} ({type(value).__name__})"


class _Sealed(type):
    """ToolResponse's metaclass: the class's attributes (its methods included) cannot be set or deleted, so
    no script (nor tool) can replace ToolResponse.to_dict or __repr__ for every response."""

    def __setattr__(cls, name, value):
        raise AttributeError(f"{cls.__name__} is read-only: its attributes cannot be set")

    def __delattr__(cls, name):
        raise AttributeError(f"{cls.__name__} is read-only: its attributes cannot be deleted")


class ToolResponse(metaclass=_Sealed):
    """The uniform result of every tool: success, message (mandatory on failure), data (JSON-safe).
    Immutable: its fields are set once by the constructor; the data itself is the caller's to copy."""

    __slots__ = ("success", "message", "data")
    __match_args__ = ("success", "message", "data")

    def __init__(self, success, message=None, data=None):
        if not isinstance(success, bool):
            raise TypeError("ToolResponse.success must be True or False")
        if not success and not (isinstance(message, str) and message.strip()):
            raise ValueError("a failed ToolResponse needs a message saying what went wrong")
        bad = json_safe(data)
        if bad:
            raise TypeError(f"ToolResponse data must be JSON-safe; {bad} is not")
        try:
            _SUCCESS.__get__(self)
        except AttributeError:
            pass
        else:
            raise AttributeError("a ToolResponse is read-only: it cannot be initialised twice")
        _SUCCESS.__set__(self, success)
        _MESSAGE.__set__(self, message)
        _DATA.__set__(self, data)

    def __setattr__(self, name, value):
        raise AttributeError(f"a ToolResponse is read-only: .{name} cannot be set; build a dict of your own")

    def __delattr__(self, name):
        raise AttributeError(f"a ToolResponse is read-only: .{name} cannot be deleted")

    def to_dict(self):
        return response_dict(self)

    def __repr__(self):
        success, message, data = _SUCCESS.__get__(self), _MESSAGE.__get__(self), _DATA.__get__(self)
        return f"ToolResponse(success={success!r}, message={message!r}, data={data!r})"


# The slots' own descriptors, taken when the class is made: trusted code reads a response through these,
# never through a method or attribute look-up a script could have reached.
_SUCCESS = ToolResponse.__dict__["success"]
_MESSAGE = ToolResponse.__dict__["message"]
_DATA = ToolResponse.__dict__["data"]


def response_dict(r):
    """The record of a ToolResponse (what the trace and the host see), read through the slot descriptors."""
    d = {"success": _SUCCESS.__get__(r)}
    message = _MESSAGE.__get__(r)
    if message is not None:
        d["message"] = message
    data = _DATA.__get__(r)
    if data is not None:
        d["data"] = data
    return d


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


# Parameter kinds, numbered as inspect numbers them.
_POSITIONAL_ONLY, _POSITIONAL_OR_KEYWORD, _VAR_POSITIONAL, _KEYWORD_ONLY, _VAR_KEYWORD = range(5)
_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08
_FunctionType = type(_type_name)
# A function carrying one of these is read by inspect (functools.wraps' __wrapped__, an explicit signature).
_NOT_PLAIN = frozenset(("__wrapped__", "__signature__", "_partialmethod"))


class Binder:
    """How a tool's parameters take a call's arguments: inspect.Signature's `bind` and `bind_partial`, the
    same algorithm and the same errors, over a tuple of (name, kind, has a default). A plain function's
    is read from its code object, at the tool's first call: a job's process that calls 2 of 26 tools reads
    2 (inspect's `signature` of every tool at load cost a fresh process ~100 page faults and ~4 ms here,
    each fault a copy of the fork server's page). The code object and defaults are taken at load, where
    reading `__code__` is allowed (under a script the runtime wall refuses it, for trusted code too).
    Anything else (a wrapped function, a callable object, a partial) is read by inspect, at load."""

    __slots__ = ("_code", "_params")

    def __init__(self, params=None, code=None):
        self._params = None if params is None else tuple(params)
        self._code = code

    @classmethod
    def of(cls, f):
        if type(f) is _FunctionType and not (f.__dict__ and _NOT_PLAIN & f.__dict__.keys()):
            return cls(code=(f.__code__, f.__defaults__, f.__kwdefaults__))
        empty = inspect.Parameter.empty
        return cls((p.name, int(p.kind), p.default is not empty) for p in inspect.signature(f).parameters.values())

    @property
    def params(self):
        if self._params is None:
            co, defaults, kwdefaults = self._code
            names, n, k = co.co_varnames, co.co_argcount, co.co_kwonlyargcount
            first_default = n - len(defaults or ())
            kwdefaults = kwdefaults or {}
            params = [(names[i], _POSITIONAL_ONLY if i < co.co_posonlyargcount else _POSITIONAL_OR_KEYWORD, i >= first_default) for i in range(n)]
            at = n + k
            if co.co_flags & _CO_VARARGS:
                params.append((names[at], _VAR_POSITIONAL, False))
                at += 1
            params.extend((name, _KEYWORD_ONLY, name in kwdefaults) for name in names[n : n + k])
            if co.co_flags & _CO_VARKEYWORDS:
                params.append((names[at], _VAR_KEYWORD, False))
            self._params = tuple(params)
        return self._params

    @property
    def names(self):
        """Every parameter's name, in order (`*args` and `**kwargs` included)."""
        return tuple(name for name, _, _ in self.params)

    @property
    def varkw(self):
        return any(kind == _VAR_KEYWORD for _, kind, _ in self.params)

    @property
    def posonly(self):
        return frozenset(name for name, kind, _ in self.params if kind == _POSITIONAL_ONLY)

    def bind(self, args, kwargs, partial=False):
        """The call's arguments by parameter name, in inspect's order (what the trace records); raises
        TypeError with inspect's message. `kwargs` is the call's own dict: it is not changed."""
        kwargs = dict(kwargs)
        arguments = {}
        params = iter(self.params)
        rest = ()
        values = iter(args)
        while True:
            try:
                value = next(values)
            except StopIteration:
                try:
                    name, kind, default = next(params)
                except StopIteration:
                    break
                if kind == _VAR_POSITIONAL:
                    break
                if name in kwargs:
                    if kind == _POSITIONAL_ONLY:
                        raise TypeError(f"{name!r} parameter is positional only, but was passed as a keyword") from None
                    rest = ((name, kind, default),)
                    break
                if kind == _VAR_KEYWORD or default or partial:
                    rest = ((name, kind, default),)
                    break
                raise TypeError(f"missing a required argument: {name!r}") from None
            try:
                name, kind, default = next(params)
            except StopIteration:
                raise TypeError("too many positional arguments") from None
            if kind in (_VAR_KEYWORD, _KEYWORD_ONLY):
                raise TypeError("too many positional arguments") from None
            if kind == _VAR_POSITIONAL:
                arguments[name] = (value, *values)
                break
            if name in kwargs and kind != _POSITIONAL_ONLY:
                raise TypeError(f"multiple values for argument {name!r}") from None
            arguments[name] = value
        varkw = None
        for name, kind, default in (*rest, *params):
            if kind == _VAR_KEYWORD:
                varkw = name
                continue
            if kind == _VAR_POSITIONAL:
                continue
            if name in kwargs:
                if kind == _POSITIONAL_ONLY:
                    raise TypeError(f"{name!r} parameter is positional only, but was passed as a keyword")
                arguments[name] = kwargs.pop(name)
            elif not partial and not default:
                raise TypeError(f"missing a required argument: {name!r}") from None
        if kwargs:
            if varkw is None:
                raise TypeError(f"got an unexpected keyword argument {next(iter(kwargs))!r}")
            arguments[varkw] = kwargs
        return arguments

    def call_args(self, arguments):
        """(args, kwargs) to call the function with, from what `bind` returned (BoundArguments' args and
        kwargs)."""
        args = []
        for name, kind, _ in self.params:
            if kind in (_VAR_KEYWORD, _KEYWORD_ONLY) or name not in arguments:
                break
            if kind == _VAR_POSITIONAL:
                args.extend(arguments[name])
            else:
                args.append(arguments[name])
        kw = {}
        started = False
        for name, kind, _ in self.params:
            if not started:
                if kind not in (_VAR_KEYWORD, _KEYWORD_ONLY):
                    started = name not in arguments
                    continue
                started = True
            if name in arguments:
                if kind == _VAR_KEYWORD:
                    kw.update(arguments[name])
                else:
                    kw[name] = arguments[name]
        return tuple(args), kw


_TOOL_ARGUMENTS = frozenset(("name", "description", "options", "examples", "source", "display_name", "grade"))


class ToolRegistry:
    """The tools one run of tools.py defined. `describe`: each one's descriptor too (the manual, made once
    per load by the process that describes the tools); a job's process needs only functions and signatures."""

    def __init__(self, describe=True):
        self.tools = {}  # name -> (function, descriptor or None)
        self.signatures = {}  # name -> Binder, made once at load
        self.describe = describe

    def decorator(self, fn=None, **kw):
        unknown = kw.keys() - _TOOL_ARGUMENTS
        if unknown:
            raise TypeError(f"@tool got unknown arguments {sorted(unknown)}")

        def register(f):
            self.tools[kw.get("name") or f.__name__] = (f, self._describe(f, kw) if self.describe else None)
            self.signatures[kw.get("name") or f.__name__] = Binder.of(f)
            return f

        return register(fn) if fn is not None else register

    @staticmethod
    def _describe(f, kw):
        description, docs, returns = _parse_doc(inspect.getdoc(f))
        sig = inspect.signature(f)
        params = []
        kinds = {p.kind for p in sig.parameters.values()}
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
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
            if p.kind is p.POSITIONAL_ONLY:
                d["kind"] = "positional"
            elif p.kind is p.KEYWORD_ONLY:
                d["kind"] = "keyword"
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
        if inspect.Parameter.VAR_POSITIONAL in kinds:
            desc["varArgs"] = True
        if inspect.Parameter.VAR_KEYWORD in kinds:
            desc["varKwargs"] = True
        if returns:
            desc["returns"] = returns
        return desc


# Standard-library modules never imported ahead: their import does something (prints, opens a browser,
# starts a GUI) rather than define things. Nor is any package's __main__ (unittest.__main__ discovers and
# runs tests from the worker's folder, venv.__main__ makes a venv: each with the worker's own argv, each
# ending in sys.exit): that is a program, not a module (preimport).
_NOT_AHEAD = frozenset(("antigravity", "this", "__hello__", "__phello__", "idlelib", "tkinter", "turtle", "turtledemo"))


def _stdlib_dirs():
    paths = sysconfig.get_paths()
    return tuple({os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib") if paths.get(k)})


def preimport(source):
    """The standard-library modules tools.py names in its imports, imported by the worker (code of the
    standard library, found in its own folder, never the sandbox's), so each job's process, which runs
    tools.py itself, finds them already imported. Anything else tools.py imports (the sandbox's
    dependencies) runs its import code only in each job's own process, as tools.py does. Read with ast:
    nothing of tools.py runs here."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
    dirs = _stdlib_dirs()
    for name in sorted(names):
        top = name.partition(".")[0]
        if name in sys.modules or top not in sys.stdlib_module_names or top in _NOT_AHEAD or "__main__" in name.split("."):
            continue
        try:
            spec = sys.modules.get(top).__spec__ if top in sys.modules else importlib.util.find_spec(top)
            origin = getattr(spec, "origin", None) or ""
            if origin not in ("built-in", "frozen") and not os.path.realpath(origin).startswith(dirs):
                continue
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - not importable here (or it exits): the job's process says why, as tools.py runs
            continue

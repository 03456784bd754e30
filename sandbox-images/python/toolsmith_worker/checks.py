"""The worker's own AST re-check of a script, the restricted namespace scripts run with, and the
runtime wall (an audit hook) that refuses interpreter internals to script code.

The host validates every script first (src-main/core/lang); this is the same core rules again, on the
exact text that runs, plus the guarded builtins and read-only module stand-ins. The lists (forbidden
names, the attribute table, builtins, module attributes) are surface.py, generated from
src-main/core/lang/builtins.ts; a parity test asks both sides the same questions. Stdlib only.
"""

import _thread
import ast
import builtins
import collections
import datetime
import functools
import itertools
import json
import math
import random
import re
import statistics
import sys
import termios
import time

from .surface import (
    BIDI_CONTROLS,
    FORBIDDEN_ATTRIBUTE_PREFIXES,
    FORBIDDEN_ATTRS,
    FORBIDDEN_NAMES,
    MODULE_ATTRS,
    SAFE_BUILTIN_NAMES,
    TEMPLATE_METHODS,
)
from .surface import FORMAT_FIELD as FORMAT_FIELD_SOURCE

SCRIPT_NAME = "<script>"

FORMAT_FIELD = re.compile(FORMAT_FIELD_SOURCE)


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


class ValidationError(Exception):
    """The worker's own AST check refused the script."""


def attribute_refusal(name):
    """The attribute table as one question (pythonAttributeRefusal in builtins.ts answers it the same way):
    "underscore", "internal", "template" or None."""
    if name.startswith("_"):
        return "underscore"
    if name in FORBIDDEN_ATTRS or name.startswith(FORBIDDEN_ATTRIBUTE_PREFIXES):
        return "internal"
    if name in TEMPLATE_METHODS:
        return "template"
    return None


_REFUSAL_TEXT = {
    "underscore": "attributes starting with an underscore are not available",
    "internal": "it reaches interpreter internals",
    "template": "a template method is only available called directly on a string literal",
}


# A field that only looks up items (`{0[id]}`, `{row[name][0]}`): keys of plain characters, closed, nothing
# after the last one. (A key holding ! or : would end the field early for the scan above while Python reads
# on to the closing bracket, so such keys are refused with every attribute walk.)
ITEM_FIELD = re.compile(r"[A-Za-z0-9_]*(?:\[[^\][{}!:.]+\])+")


def format_walks(name):
    """A format field name that walks attributes (formatWalks in rules/format.ts answers the same)."""
    return "." in name or ("[" in name and not ITEM_FIELD.fullmatch(name))


def _template_call_ok(node, call):
    """`"{}".format(x)` (or the bound `"{}".format`) / `str.format("{}", x)`: a literal template whose
    fields walk nothing."""
    template = node.value
    if isinstance(template, ast.Name) and template.id == "str" and call is not None and call.args:
        template = call.args[0]
    if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
        return f".{node.attr} needs a string literal template; use an f-string"
    if any(m.group(1) is not None and format_walks(m.group(1)) for m in FORMAT_FIELD.finditer(template.value)):
        return "format fields may not walk attributes"
    return None


_CONSTRUCTS = {
    ast.ClassDef: "class definitions are not available; use functions and dicts",
    ast.AsyncFunctionDef: "async functions are not available; write a plain def",
    ast.Await: "await is not available",
    ast.AsyncFor: "async for is not available",
    ast.AsyncWith: "async with is not available",
    ast.Yield: "generators (yield) are not available; build a list",
    ast.YieldFrom: "generators (yield from) are not available; build a list",
    ast.Global: "global statements are not available",
    ast.Nonlocal: "nonlocal statements are not available",
    ast.Import: "imports are not available",
    ast.ImportFrom: "imports are not available",
}


_BIDI = re.compile("[" + "".join(chr(cp) for cp in BIDI_CONTROLS) + "]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # (as Python counts lines, and the host's rule for Python)


def bidi_controls(code):
    """Every bidirectional control character of the script (the host's bidi-control rule, core/lang/bidi.ts):
    (line, column, code point), 1-based, the column in UTF-16 code units as the host counts it."""
    if not _BIDI.search(code):
        return []
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(code)]
    found, line = [], 0
    for m in _BIDI.finditer(code):
        while line + 1 < len(starts) and starts[line + 1] <= m.start():
            line += 1
        before = code[starts[line] : m.start()]
        column = len(before) + sum(1 for c in before if ord(c) > 0xFFFF) + 1
        found.append((line + 1, column, ord(m.group())))
    return found


def bidi_problem(line, column, cp):
    """The refusal of one, as the host words it (rule bidi-control), with where it stands."""
    return (
        f"line {line}, column {column}: bidi-control: U+{cp:04X} ({BIDI_CONTROLS[cp]}), a bidirectional control "
        f'character, is refused anywhere in a script (if a string really needs it, write it as the escape "\\u{cp:04x}" '
        f'inside the string). It makes a line read other than it runs ("Trojan Source"), in code, comments and '
        f"strings alike: remove it"
    )


def check_script(code):
    """The core rules on the exact text that will run. Raises ValidationError listing every problem."""
    # Trojan Source first: on the raw text, whether or not it parses (a comment or string holds them too).
    problems = [bidi_problem(*b) for b in bidi_controls(code)]
    try:
        tree = ast.parse(code, filename=SCRIPT_NAME)
    except SyntaxError as e:
        raise ValidationError("; ".join([*problems, f"line {e.lineno}: syntax error: {e.msg}"])) from None
    for line in code.splitlines()[:2]:
        if re.match(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", line):
            problems.append("source-encoding declarations are not allowed")
    receivers, callees = set(), {}  # ast.walk is breadth-first: a parent is seen before its children
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        kind = type(node)
        if kind in _CONSTRUCTS:
            problems.append(f"{where}: {_CONSTRUCTS[kind]}")
        elif kind is ast.Attribute:
            receivers.add(id(node.value))
            refusal = attribute_refusal(node.attr)
            if refusal == "template":
                bad = _template_call_ok(node, callees.get(id(node)))
                if bad:
                    problems.append(f"{where}: {bad}")
            elif refusal:
                problems.append(f"{where}: attribute {node.attr} is not available: {_REFUSAL_TEXT[refusal]}")
            elif isinstance(node.value, ast.Name) and node.value.id in MODULE_ATTRS:
                if node.attr not in MODULE_ATTRS[node.value.id]:
                    problems.append(f"{where}: {node.value.id}.{node.attr} is not available")
            if not isinstance(node.ctx, ast.Load):
                if isinstance(node.value, ast.Name) and node.value.id in MODULE_ATTRS:
                    problems.append(f"{where}: {node.value.id}.{node.attr} is read-only")
                else:
                    problems.append(f"{where}: attributes cannot be assigned or deleted ({node.attr}); keep values in variables, lists and dicts")
        elif kind is ast.Call:
            callees[id(node.func)] = node
            if isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
                a = node.args[1] if len(node.args) > 1 else None
                if not (isinstance(a, ast.Constant) and isinstance(a.value, str)):
                    problems.append(f"{where}: {node.func.id} needs a literal attribute name")
                elif attribute_refusal(a.value):
                    problems.append(f"{where}: {node.func.id} cannot fetch {a.value}")
        elif kind is ast.Name:
            if node.id in FORBIDDEN_NAMES or (node.id.startswith("__") and node.id.endswith("__")):
                problems.append(f"{where}: {node.id} is not available")
            elif node.id in MODULE_ATTRS:
                if not isinstance(node.ctx, ast.Load):
                    problems.append(f"{where}: do not rebind the pre-imported module {node.id}")
                elif id(node) not in receivers:
                    problems.append(f"{where}: {node.id} can only be used as {node.id}.<attribute>, never as a value")
            elif node.id in ("getattr", "hasattr", "type") and isinstance(node.ctx, ast.Load) and id(node) not in callees:
                problems.append(f"{where}: {node.id} can only be called directly, not passed as a value")
        elif kind is ast.Constant and isinstance(node.value, str) and DUNDER_STR.search(node.value):
            problems.append(f"{where}: strings may not contain double-underscore names")
        elif kind is ast.MatchClass:
            for kw in node.kwd_attrs:
                refusal = attribute_refusal(kw)
                if refusal:
                    problems.append(f"{where}: match pattern attribute {kw} is not available: {_REFUSAL_TEXT[refusal]}")
        elif kind is ast.comprehension and node.is_async:
            problems.append(f"{where}: async comprehensions are not available")
    if problems:
        raise ValidationError("; ".join(problems))
    return tree


def _guarded_getattr(obj, name, *default):
    if type(name) is not str or attribute_refusal(name):
        raise AttributeError(f"attribute {name!r} is not available")
    return getattr(obj, name, *default)


def _guarded_hasattr(obj, name):
    if type(name) is not str or attribute_refusal(name):
        raise AttributeError(f"attribute {name!r} is not available")
    return hasattr(obj, name)


def _guarded_type(obj):
    # The type of a class is a metaclass (type itself, or ToolResponse's): called with three arguments it
    # makes classes, and a made class's dunders (a metaclass's __instancecheck__, a class's __match_args__
    # naming a dunder) read any attribute past both static checks. Scripts get the types of values only.
    if isinstance(obj, type):
        raise TypeError("type() of a class is not available: type(x) tells the type of a value")
    return type(obj)


def safe_builtins(print_fn):
    b = {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES}
    b.update(getattr=_guarded_getattr, hasattr=_guarded_hasattr, type=_guarded_type, print=print_fn)
    b["__import__"] = _internal_import  # (looked up by C code only: the name itself is refused to scripts)
    return b


# ---------------------------------------------------------------- the runtime wall

# Audit events script code may raise itself (a C function it calls directly); every other event is refused
# while script code is on the stack, however deep (stdlib code a script called raises it on the script's
# behalf: os.popen raises subprocess.Popen from subprocess.py), unless tool code (tools.py) stands between:
# a tool is trusted code, and what it does for a script is the tool's to decide. Among the refused:
# object.__getattr__ (CPython raises it on reading gi_frame, gi_code, cr_frame, cr_code, ag_frame, ag_code,
# f_code, tb_frame and __code__, that is on every way to a frame or a code object, whichever syntax or C
# path reads the attribute), object.__setattr__ / __delattr__, code.__new__ and function.__new__ (crafted
# code), exec, compile, import, open, os.*, subprocess.Popen, sys.*, gc.*, ctypes.*, socket.*.
#
# Who is who, read only through what a script cannot change: a script frame runs with the script's globals
# (the job's namespace, fixed for every function the script defines: __globals__ is read-only) or with
# builtins other than the real ones; a tool frame runs with the tools module's globals. The hook and the
# import guards take what they compare from default arguments (setting __defaults__ is itself an audited
# event), never from this module's globals, which code past both static checks can reach and rewrite.
SCRIPT_EVENTS = frozenset({"time.sleep"})
# Events that reveal nothing and reach nothing, let through whoever raises them: the allowed modules raise
# them on a script's behalf (json's pure-Python encoder takes id() of containers to find cycles).
HARMLESS_EVENTS = frozenset({"builtins.id", "time.sleep"})

# Modules the allowed modules' C code imports while a script's frame is the current one (the import then
# resolves __import__ in the script's builtins): datetime's strftime and timetuple import time, strptime
# imports _strptime. Imported here, in the worker, so a job only ever looks them up.
# The modules the allowed modules import lazily inside their functions are imported here too: a job then
# only looks them up (a first import, with its file reads, is refused while a script is on the stack).
import _strptime  # noqa: E402, F401 - preloaded for datetime/time.strptime (see above)
import heapq  # noqa: E402, F401 - Counter.most_common, statistics.mode

INTERNAL_IMPORTS = frozenset({"time", "_strptime"})
_installed = []


def _internal_import(name, globals=None, locals=None, fromlist=(), level=0, _allowed=INTERNAL_IMPORTS, _modules=sys.modules):  # noqa: A002
    """The script builtins' __import__: only what the allowed modules' own C code looks up (already
    imported), never a way for a script to import anything else."""
    if level == 0 and name in _allowed and name in _modules:
        return _modules[name]
    raise ImportError(f"import {name} is not available to scripts")


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0, _getframe=sys._getframe, _real=builtins.__dict__, _import=builtins.__import__):  # noqa: A002
    # A module already imported raises no audit event: script code must not get one even so (through
    # the real builtins, had it reached them, `len.__self__.__import__("os")`). Trusted code's own import
    # statements pass (stdlib code a script called imports lazily); a module not yet imported raises the
    # import event, which the audit hook refuses while a script is on the stack.
    if _getframe(1).f_builtins is not _real:
        raise PermissionError(f"import {name} is not available to scripts")
    return _import(name, globals, locals, fromlist, level)


def _make_wall(script_globals, tool_globals, worker_globals):
    main = _thread.get_ident()  # the job's own thread: the script runs in it

    def _runtime_wall(event, args, _getframe=sys._getframe, _real=builtins.__dict__, _script=script_globals, _tools=tool_globals, _worker=worker_globals, _allowed=SCRIPT_EVENTS, _harmless=HARMLESS_EVENTS, _namedtuple_home=collections.__dict__, _main=main, _ident=_thread.get_ident, _FIONREAD=termios.FIONREAD):
        if event == "sys._getframe" or event in _harmless:
            return  # (the look-up below raises it; scripts cannot reach sys)
        try:
            frame = _getframe(1)
        except ValueError:
            frame = None  # raised by C with no Python frame at all
        if event == "object.__getattr__" and frame is not None and frame.f_globals is _worker and len(args) > 1 and args[1] == "f_code":
            return  # the worker's own look-up of the skill making a tool call (child.Child.skill): it reads names only, never hands a code object on
        if event == "fcntl.ioctl" and frame is not None and frame.f_globals is _worker and len(args) > 1 and args[1] == _FIONREAD:
            return  # the worker's own look at how much the job's output pipe holds (child.settle_output): a count of bytes, on its own descriptor
        if event in ("compile", "exec", "object.__setattr__") and frame is not None and frame.f_globals is _namedtuple_home:
            return  # collections.namedtuple compiles its fixed template (field names checked as identifiers) and sets the new class's __module__
        innermost = True
        while frame is not None:
            g = frame.f_globals
            if g is _script or frame.f_builtins is not _real:
                if innermost and event in _allowed:
                    return
                what = f"{args[1]}" if event.startswith("object.") and len(args) > 1 else event
                raise PermissionError(f"{what} is not available to scripts (interpreter internals)")
            for t in _tools:
                if g is t:
                    return  # tool code, called by the script: trusted
            innermost = False
            frame = frame.f_back
        if _ident() != _main:
            # Another thread, with neither script nor tool code under it: a script past both checks can
            # start one on os.popen itself (_thread raises no event), so only tool code's threads (running
            # a function of tools.py) may act.
            raise PermissionError(f"{event} is not available outside the job's thread unless tool code runs it")

    return _runtime_wall


def make_runtime_wall(script_globals, tool_globals=(), worker_globals=None):
    """The audit hook of install_runtime_wall, made ahead: once per tools load in the worker, so a job's
    process only installs it (making it there wrote a page of its own for each object it refers to)."""
    return _make_wall(script_globals, tuple(tool_globals), worker_globals)


def install_runtime_wall(script_globals=None, tool_globals=(), worker_globals=None, hook=None):
    """Installs the audit hook (`hook`, from make_runtime_wall, or made here) and the import guard once
    per process (it cannot be removed; the worker calls it in each job's process before the script,
    with the script's namespace and the tools module's globals). Cost: one call per audit event of the
    job (a script raises none itself), each a walk down the stack to the first script or tool frame, and
    one frame check per import statement of trusted code."""
    if not _installed:
        sys.addaudithook(hook or _make_wall(script_globals, tuple(tool_globals), worker_globals))
        builtins.__import__ = _guarded_import
        _installed.append(True)

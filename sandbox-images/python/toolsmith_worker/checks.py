"""The worker's own AST re-check of a script and the restricted namespace scripts run with.

The host validates every script first (src-main/core/lang); this is the same core rules again, on the
exact text that runs, plus the guarded builtins and read-only module stand-ins. The lists here equal
src-main/core/lang/builtins.ts (a parity test reads this file). Stdlib only, no package imports: the
parity test loads this file on its own.
"""

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
import time

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


class ValidationError(Exception):
    """The worker's own AST check refused the script."""



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

"""The language surface scripts may use: generated from src-main/core/lang/builtins.ts by
scripts/gen-python-surface.ts. Do not edit: test/unit/lang/python-worker-parity.test.ts fails when this
file differs from what the generator writes."""

# Names scripts may not even reference (not only call).
FORBIDDEN_NAMES = frozenset([
    "exec", "eval", "compile", "open", "__import__", "__builtins__", "__loader__", "__spec__", "exit",
    "quit", "input", "breakpoint", "help", "globals", "locals", "vars", "dir", "setattr", "delattr",
    "memoryview", "bytearray", "object", "super", "classmethod", "staticmethod", "property",
    "callable", "id", "copyright", "credits", "license", "aiter", "anext",
])
# The attribute table: refused whatever the receiver and whichever way the attribute is read.
FORBIDDEN_ATTRIBUTE_PREFIXES = (
    "_", "f_", "co_", "gi_", "cr_", "ag_", "tb_",
)
FORBIDDEN_ATTRS = frozenset([
    "gi_frame", "gi_code", "gi_yieldframe", "gi_yieldfrom", "gi_running", "gi_suspended", "cr_frame",
    "cr_code", "cr_await", "cr_origin", "cr_running", "cr_suspended", "ag_frame", "ag_code",
    "ag_await", "ag_running", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace",
    "f_lasti", "f_lineno", "tb_frame", "tb_next", "tb_lasti", "tb_lineno", "co_code", "co_consts",
    "co_names", "co_varnames", "co_filename", "cell_contents", "func_globals", "func_code",
    "func_closure", "im_func", "im_self", "mro",
])
TEMPLATE_METHODS = frozenset([
    "format", "format_map",
])
# The builtins scripts get (getattr, hasattr, type and print are added guarded by checks.py).
SAFE_BUILTIN_NAMES = [
    "abs", "all", "any", "ascii", "bin", "bool", "chr", "dict", "divmod", "enumerate", "filter",
    "float", "format", "frozenset", "hash", "hex", "int", "isinstance", "issubclass", "iter", "len",
    "list", "map", "max", "min", "next", "oct", "ord", "pow", "range", "repr", "reversed", "round",
    "set", "slice", "sorted", "str", "sum", "tuple", "zip", "bytes", "Exception", "ArithmeticError",
    "AssertionError", "AttributeError", "IndexError", "KeyError", "LookupError", "NameError",
    "NotImplementedError", "OverflowError", "RuntimeError", "StopIteration", "TypeError", "ValueError",
    "ZeroDivisionError",
]
# The only attributes scripts get from each pre-imported module.
MODULE_ATTRS = {
    "json": [
        "dumps", "loads", "JSONDecodeError",
    ],
    "time": [
        "time", "time_ns", "monotonic", "perf_counter", "sleep", "strftime", "strptime", "gmtime",
        "localtime", "mktime",
    ],
    "math": [
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "comb", "copysign",
        "cos", "cosh", "degrees", "dist", "e", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "factorial",
        "floor", "fmod", "frexp", "fsum", "gamma", "gcd", "hypot", "inf", "isclose", "isfinite", "isinf",
        "isnan", "isqrt", "lcm", "ldexp", "lgamma", "log", "log10", "log1p", "log2", "modf", "nan",
        "nextafter", "perm", "pi", "pow", "prod", "radians", "remainder", "sin", "sinh", "sqrt", "tan",
        "tanh", "tau", "trunc", "ulp",
    ],
    "re": [
        "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split", "compile", "escape",
        "error", "IGNORECASE", "I", "MULTILINE", "M", "DOTALL", "S", "VERBOSE", "X", "ASCII", "A",
    ],
    "datetime": [
        "date", "datetime", "time", "timedelta", "timezone", "UTC", "MINYEAR", "MAXYEAR",
    ],
    "random": [
        "random", "randint", "randrange", "choice", "choices", "sample", "shuffle", "uniform", "gauss",
        "seed",
    ],
    "statistics": [
        "mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low", "median_high",
        "median_grouped", "mode", "multimode", "quantiles", "stdev", "pstdev", "variance", "pvariance",
        "covariance", "correlation", "linear_regression", "NormalDist", "StatisticsError",
    ],
    "itertools": [
        "accumulate", "chain", "combinations", "combinations_with_replacement", "compress", "count",
        "cycle", "dropwhile", "filterfalse", "groupby", "islice", "pairwise", "permutations", "product",
        "repeat", "starmap", "takewhile", "tee", "zip_longest",
    ],
    "functools": [
        "reduce", "partial", "cmp_to_key", "lru_cache", "cache",
    ],
    "collections": [
        "Counter", "defaultdict", "OrderedDict", "deque", "namedtuple", "ChainMap",
    ],
}
# A str.format replacement field's name (group 1), skipping {{ and }}.
FORMAT_FIELD = r"\{\{|\}\}|\{([^{}!:]*)"
# The bidi-control rule (core/lang/bidi.ts): the characters refused anywhere in a script, by code point.
BIDI_CONTROLS = {
    0x061c: "ARABIC LETTER MARK",
    0x200e: "LEFT-TO-RIGHT MARK",
    0x200f: "RIGHT-TO-LEFT MARK",
    0x202a: "LEFT-TO-RIGHT EMBEDDING",
    0x202b: "RIGHT-TO-LEFT EMBEDDING",
    0x202c: "POP DIRECTIONAL FORMATTING",
    0x202d: "LEFT-TO-RIGHT OVERRIDE",
    0x202e: "RIGHT-TO-LEFT OVERRIDE",
    0x2066: "LEFT-TO-RIGHT ISOLATE",
    0x2067: "RIGHT-TO-LEFT ISOLATE",
    0x2068: "FIRST STRONG ISOLATE",
    0x2069: "POP DIRECTIONAL ISOLATE",
}

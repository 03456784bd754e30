/**
 * The language surface scripts may use, as data: shown in the prompt, enforced by the validators and
 * mirrored by the sandbox worker's builtins whitelist (sandbox-images/python/toolsmith_worker/checks.py).
 */

/** Python builtins available to scripts. getattr/hasattr/type are guarded (literal, non-underscore names). */
export const PYTHON_SAFE_BUILTINS: readonly string[] = [
  'abs',
  'all',
  'any',
  'ascii',
  'bin',
  'bool',
  'chr',
  'dict',
  'divmod',
  'enumerate',
  'filter',
  'float',
  'format',
  'frozenset',
  'getattr',
  'hasattr',
  'hash',
  'hex',
  'int',
  'isinstance',
  'issubclass',
  'iter',
  'len',
  'list',
  'map',
  'max',
  'min',
  'next',
  'oct',
  'ord',
  'pow',
  'print',
  'range',
  'repr',
  'reversed',
  'round',
  'set',
  'slice',
  'sorted',
  'str',
  'sum',
  'tuple',
  'type',
  'zip',
  'bytes',
  'True',
  'False',
  'None',
  'Exception',
  'ArithmeticError',
  'AssertionError',
  'AttributeError',
  'IndexError',
  'KeyError',
  'LookupError',
  'NameError',
  'NotImplementedError',
  'OverflowError',
  'RuntimeError',
  'StopIteration',
  'TypeError',
  'ValueError',
  'ZeroDivisionError',
];

/**
 * Modules pre-imported into the script namespace (scripts must not import anything), each with the only
 * attributes scripts may use. Real modules carry their own imports (`statistics.sys`, `json.codecs`,
 * `re.enum.bltns`), so any other attribute is refused by the validators, and the worker hands scripts
 * stand-ins that hold exactly these attributes (MODULE_ATTRS in sandbox-images/python/toolsmith_worker/checks.py; a parity
 * test keeps the two equal). Names must exist in the sandbox's CPython 3.11. Left out on purpose: file
 * and stream functions (json.load/dump), process clocks and settings (time.tzset, clock_settime),
 * random state (getstate/setstate, SystemRandom), attribute copiers (functools.wraps/update_wrapper copy
 * arbitrary attributes by name) and the modules' own imports.
 */
export const PYTHON_MODULE_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  json: ['dumps', 'loads', 'JSONDecodeError'],
  time: [
    'time',
    'time_ns',
    'monotonic',
    'perf_counter',
    'sleep',
    'strftime',
    'strptime',
    'gmtime',
    'localtime',
    'mktime',
  ],
  math: [
    'acos',
    'acosh',
    'asin',
    'asinh',
    'atan',
    'atan2',
    'atanh',
    'cbrt',
    'ceil',
    'comb',
    'copysign',
    'cos',
    'cosh',
    'degrees',
    'dist',
    'e',
    'erf',
    'erfc',
    'exp',
    'exp2',
    'expm1',
    'fabs',
    'factorial',
    'floor',
    'fmod',
    'frexp',
    'fsum',
    'gamma',
    'gcd',
    'hypot',
    'inf',
    'isclose',
    'isfinite',
    'isinf',
    'isnan',
    'isqrt',
    'lcm',
    'ldexp',
    'lgamma',
    'log',
    'log10',
    'log1p',
    'log2',
    'modf',
    'nan',
    'nextafter',
    'perm',
    'pi',
    'pow',
    'prod',
    'radians',
    'remainder',
    'sin',
    'sinh',
    'sqrt',
    'tan',
    'tanh',
    'tau',
    'trunc',
    'ulp',
  ],
  re: [
    'match',
    'search',
    'fullmatch',
    'findall',
    'finditer',
    'sub',
    'subn',
    'split',
    'compile',
    'escape',
    'error',
    'IGNORECASE',
    'I',
    'MULTILINE',
    'M',
    'DOTALL',
    'S',
    'VERBOSE',
    'X',
    'ASCII',
    'A',
  ],
  datetime: ['date', 'datetime', 'time', 'timedelta', 'timezone', 'UTC', 'MINYEAR', 'MAXYEAR'],
  random: [
    'random',
    'randint',
    'randrange',
    'choice',
    'choices',
    'sample',
    'shuffle',
    'uniform',
    'gauss',
    'seed',
  ],
  statistics: [
    'mean',
    'fmean',
    'geometric_mean',
    'harmonic_mean',
    'median',
    'median_low',
    'median_high',
    'median_grouped',
    'mode',
    'multimode',
    'quantiles',
    'stdev',
    'pstdev',
    'variance',
    'pvariance',
    'covariance',
    'correlation',
    'linear_regression',
    'NormalDist',
    'StatisticsError',
  ],
  itertools: [
    'accumulate',
    'chain',
    'combinations',
    'combinations_with_replacement',
    'compress',
    'count',
    'cycle',
    'dropwhile',
    'filterfalse',
    'groupby',
    'islice',
    'pairwise',
    'permutations',
    'product',
    'repeat',
    'starmap',
    'takewhile',
    'tee',
    'zip_longest',
  ],
  functools: ['reduce', 'partial', 'cmp_to_key', 'lru_cache', 'cache'],
  collections: ['Counter', 'defaultdict', 'OrderedDict', 'deque', 'namedtuple', 'ChainMap'],
};

/** The pre-imported module names (the keys of PYTHON_MODULE_ATTRIBUTES). */
export const PYTHON_PREIMPORTED_MODULES: readonly string[] = Object.keys(PYTHON_MODULE_ATTRIBUTES);

/** The modules and their attributes as the prompt shows them: `json (dumps, loads, ...), math (...)`. */
export function pythonModulesSummary(): string {
  return Object.entries(PYTHON_MODULE_ATTRIBUTES)
    .map(([m, attrs]) => `${m} (${attrs.join(', ')})`)
    .join('; ');
}

/** Helpers the framework injects; scripts call them and must never rebind them. */
export const PYTHON_FRAMEWORK_NAMES: readonly string[] = [
  'emit_result',
  'emit_intermediate',
  'emit_log',
  'credential',
  'ToolResponse',
  'collected',
  'search_tools',
  'describe_tool',
];
export const PYTHON_EMIT_NAMES: readonly string[] = ['emit_result', 'emit_intermediate'];

/**
 * Python names that may not even be referenced (not only called): `e = exec` is as forbidden as `exec()`.
 * Each maps to the instruction the LLM gets.
 */
export const PYTHON_FORBIDDEN_NAMES: Readonly<Record<string, string>> = {
  exec: 'dynamic code execution is not available; write the logic directly',
  eval: 'dynamic code execution is not available; parse values with json.loads or int()/float()',
  compile: 'dynamic code execution is not available; write the logic directly',
  open: 'there is no file system access; get data through the tools',
  // (the same list as the no-import rule's message: PYTHON_PREIMPORTED_MODULES)
  __import__: `imports are not available; the pre-imported modules are ${Object.keys(PYTHON_MODULE_ATTRIBUTES).join(', ')}`,
  __builtins__: 'the builtins module is not reachable; use the listed builtins directly',
  __loader__: 'interpreter internals are not reachable',
  __spec__: 'interpreter internals are not reachable',
  exit: 'do not exit; call emit_result(...) with the answer and let the script end',
  quit: 'do not exit; call emit_result(...) with the answer and let the script end',
  input: 'there is no interactive input; get data through the tools',
  breakpoint: 'debuggers are not available',
  help: 'interactive help is not available; the tools manual is in the prompt',
  globals: 'namespace introspection is not available; use variables directly',
  locals: 'namespace introspection is not available; use variables directly',
  vars: 'namespace introspection is not available; access attributes or keys directly',
  dir: 'introspection is not available; the tools manual lists every field',
  setattr: 'attribute mutation by name is not available; build a dict instead',
  delattr: 'attribute deletion by name is not available; build a dict instead',
  memoryview: 'raw memory access is not available',
  bytearray: 'raw buffers are not available; use str or bytes',
  object: 'the object base class is not reachable; use dicts for records',
  super: 'class machinery is not available; use functions and dicts',
  classmethod: 'class machinery is not available; use functions and dicts',
  staticmethod: 'class machinery is not available; use functions and dicts',
  property: 'class machinery is not available; use functions and dicts',
  callable: 'introspection is not available; call the tools listed in the manual',
  id: 'object identities are not available',
  copyright: 'not available',
  credits: 'not available',
  license: 'not available',
  aiter: 'async iteration is not available',
  anext: 'async iteration is not available',
};

/**
 * The attribute table: the one list of attribute names no script may read, write or delete, whatever the
 * receiver and whichever way Python reads the attribute: attribute syntax (`x.a`, `x.a = v`, `del x.a`),
 * getattr/hasattr, match class-pattern keywords (`case G(gi_frame=f)` is a real attribute read), str.format
 * fields. The host validator (rules/known.ts `attributeRefusal`), the worker's AST re-check and the
 * worker's guarded getattr/hasattr all apply it; the worker's copy (sandbox-images/python/toolsmith_worker/
 * surface.py) is generated from this module (`npm run gen:python-surface`) and a test keeps them equal.
 *
 * An attribute is refused when it starts with one of the prefixes (private and dunder names, and the
 * namespaces CPython gives the internals of frames `f_`, code objects `co_`, generators `gi_`, coroutines
 * `cr_`, async generators `ag_` and tracebacks `tb_`) or is one of the names (the same internals listed
 * one by one, so that messages and docs can name them, and the few without a prefix).
 */
export const PYTHON_FORBIDDEN_ATTRIBUTE_PREFIXES: readonly string[] = [
  '_',
  'f_',
  'co_',
  'gi_',
  'cr_',
  'ag_',
  'tb_',
];
export const PYTHON_FORBIDDEN_ATTRIBUTES: readonly string[] = [
  'gi_frame',
  'gi_code',
  'gi_yieldframe',
  'gi_yieldfrom',
  'gi_running',
  'gi_suspended',
  'cr_frame',
  'cr_code',
  'cr_await',
  'cr_origin',
  'cr_running',
  'cr_suspended',
  'ag_frame',
  'ag_code',
  'ag_await',
  'ag_running',
  'f_back',
  'f_globals',
  'f_locals',
  'f_builtins',
  'f_code',
  'f_trace',
  'f_lasti',
  'f_lineno',
  'tb_frame',
  'tb_next',
  'tb_lasti',
  'tb_lineno',
  'co_code',
  'co_consts',
  'co_names',
  'co_varnames',
  'co_filename',
  'cell_contents',
  'func_globals',
  'func_code',
  'func_closure',
  'im_func',
  'im_self',
  'mro',
];
/**
 * Methods that read the attributes and keys their template names (`"{0.gi_frame}".format(g)`): only ever
 * called directly on a string literal template whose fields walk nothing. Any other read of them (a
 * reference, getattr, a match keyword `case str(format=f)`) is refused.
 */
export const PYTHON_TEMPLATE_METHODS: readonly string[] = ['format', 'format_map'];

/** Why the attribute table refuses an attribute: a leading underscore, an interpreter internal, a template method. */
export type PythonAttributeRefusal = 'underscore' | 'internal' | 'template';

const FORBIDDEN_ATTRIBUTE_SET: ReadonlySet<string> = new Set(PYTHON_FORBIDDEN_ATTRIBUTES);
const TEMPLATE_METHOD_SET: ReadonlySet<string> = new Set(PYTHON_TEMPLATE_METHODS);

/**
 * The attribute table as one question (the worker's `attribute_refusal` answers it the same way; a parity
 * test asks both). A template method is refused here too: the one allowed form, a direct call on a string
 * literal, is decided by the format rules.
 */
export function pythonAttributeRefusal(attr: string): PythonAttributeRefusal | undefined {
  if (attr.startsWith('_')) return 'underscore';
  if (FORBIDDEN_ATTRIBUTE_SET.has(attr)) return 'internal';
  for (const p of PYTHON_FORBIDDEN_ATTRIBUTE_PREFIXES) if (attr.startsWith(p)) return 'internal';
  if (TEMPLATE_METHOD_SET.has(attr)) return 'template';
  return undefined;
}

/** JS/TS globals that may not be referenced. */
export const JS_FORBIDDEN_NAMES: Readonly<Record<string, string>> = {
  eval: 'dynamic code execution is not available; write the logic directly',
  Function: 'dynamic code execution is not available; write the logic directly',
  AsyncFunction: 'dynamic code execution is not available',
  GeneratorFunction: 'dynamic code execution is not available',
  process: 'the process object is not available; read credentials with credential("path")',
  globalThis: 'the global object is not reachable; use the tools and helpers directly',
  global: 'the global object is not reachable; use the tools and helpers directly',
  window: 'the global object is not reachable',
  self: 'the global object is not reachable',
  require: 'modules are not available; JSON and Math are built in',
  module: 'modules are not available',
  exports: 'modules are not available',
  __dirname: 'there is no file system access',
  __filename: 'there is no file system access',
  Deno: 'the runtime object is not available',
  Bun: 'the runtime object is not available',
  Reflect: 'reflection is not available; access properties directly',
  Proxy: 'proxies are not available',
  WebAssembly: 'WebAssembly is not available',
  SharedArrayBuffer: 'shared memory is not available',
  Atomics: 'shared memory is not available',
  setTimeout: 'timers are not available; tool calls are awaited directly',
  setInterval: 'timers are not available',
  setImmediate: 'timers are not available',
  queueMicrotask: 'not available',
  fetch: 'there is no network access; get data through the tools',
  XMLHttpRequest: 'there is no network access; get data through the tools',
  WebSocket: 'there is no network access',
  importScripts: 'modules are not available',
  Buffer: 'raw buffers are not available; use strings',
  arguments: 'not available; declare the parameters (or ...rest)',
};

/** JS property names that walk to the runtime's internals. */
export const JS_FORBIDDEN_PROPERTIES: Readonly<Record<string, string>> = {
  constructor: 'constructor chains reach the Function constructor; not available',
  __proto__: 'prototype access is not available',
  prototype: 'prototype access is not available',
  __defineGetter__: 'not available',
  __defineSetter__: 'not available',
  __lookupGetter__: 'not available',
  __lookupSetter__: 'not available',
  caller: 'not available',
  callee: 'not available',
  arguments: 'not available',
  prepareStackTrace: 'stack trace hooks are not available',
  captureStackTrace: 'stack trace hooks are not available',
  stackTraceLimit: 'stack trace hooks are not available',
};

export const JS_FRAMEWORK_NAMES: readonly string[] = [
  'emitResult',
  'emitIntermediate',
  'emitLog',
  'credential',
  'collected',
  'searchTools',
  'describeTool',
];
export const JS_EMIT_NAMES: readonly string[] = ['emitResult', 'emitIntermediate'];

/** JS globals scripts may use freely (shown in the prompt). */
export const JS_SAFE_GLOBALS: readonly string[] = [
  'JSON',
  'Math',
  'Date',
  'Array',
  'Object',
  'String',
  'Number',
  'Boolean',
  'Map',
  'Set',
  'Promise',
  'RegExp',
  'Error',
  'TypeError',
  'RangeError',
  'parseInt',
  'parseFloat',
  'isNaN',
  'isFinite',
  'console',
  'undefined',
  'NaN',
  'Infinity',
  'Symbol',
  'BigInt',
  'encodeURIComponent',
  'decodeURIComponent',
];

/**
 * The language surface scripts may use, as data: shown in the prompt, enforced by the validators and
 * mirrored by the sandbox worker's builtins whitelist (sandbox-images/python/worker.py).
 */

/** Python builtins available to scripts. getattr/hasattr/type are guarded (literal, non-underscore names). */
export const PYTHON_SAFE_BUILTINS: readonly string[] = [
  'abs', 'all', 'any', 'ascii', 'bin', 'bool', 'chr', 'dict', 'divmod', 'enumerate', 'filter', 'float',
  'format', 'frozenset', 'getattr', 'hasattr', 'hash', 'hex', 'int', 'isinstance', 'issubclass', 'iter',
  'len', 'list', 'map', 'max', 'min', 'next', 'oct', 'ord', 'pow', 'print', 'range', 'repr', 'reversed',
  'round', 'set', 'slice', 'sorted', 'str', 'sum', 'tuple', 'type', 'zip', 'bytes',
  'True', 'False', 'None',
  'Exception', 'ArithmeticError', 'AssertionError', 'AttributeError', 'IndexError', 'KeyError',
  'LookupError', 'NameError', 'NotImplementedError', 'OverflowError', 'RuntimeError', 'StopIteration',
  'TypeError', 'ValueError', 'ZeroDivisionError',
];

/** Modules pre-imported into the script namespace (scripts must not import anything). */
export const PYTHON_PREIMPORTED_MODULES: readonly string[] = [
  'json', 'time', 'math', 're', 'datetime', 'random', 'statistics', 'itertools', 'functools', 'collections',
];

/** Helpers the framework injects; scripts call them and must never rebind them. */
export const PYTHON_FRAMEWORK_NAMES: readonly string[] = [
  'emit_result', 'emit_intermediate', 'emit_log', 'credential', 'ToolResponse', 'collected',
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
  __import__: 'imports are not available; json, time, math, re, datetime and collections are pre-imported',
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
};

export const JS_FRAMEWORK_NAMES: readonly string[] = ['emitResult', 'emitIntermediate', 'emitLog', 'credential', 'collected'];
export const JS_EMIT_NAMES: readonly string[] = ['emitResult', 'emitIntermediate'];

/** JS globals scripts may use freely (shown in the prompt). */
export const JS_SAFE_GLOBALS: readonly string[] = [
  'JSON', 'Math', 'Date', 'Array', 'Object', 'String', 'Number', 'Boolean', 'Map', 'Set', 'Promise',
  'RegExp', 'Error', 'TypeError', 'RangeError', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'console',
  'undefined', 'NaN', 'Infinity', 'Symbol', 'BigInt', 'encodeURIComponent', 'decodeURIComponent',
];

/**
 * The names a tool, a kit alias or a skill may not take because scripts already have them: keywords of
 * either language, the framework's helpers, builtins, pre-imported modules and globals (used by
 * extract.ts, mcp.ts, kits and skills; a module of its own so none of them imports another for it).
 */
import {
  JS_FORBIDDEN_NAMES,
  JS_FRAMEWORK_NAMES,
  JS_SAFE_GLOBALS,
  PYTHON_FORBIDDEN_NAMES,
  PYTHON_FRAMEWORK_NAMES,
  PYTHON_PREIMPORTED_MODULES,
  PYTHON_SAFE_BUILTINS,
} from '../lang/builtins.ts';

export const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** Words neither a Python nor a JavaScript/TypeScript script can use as a function name. */
const JS_RESERVED = new Set(
  'await break case catch class const continue debugger default delete do else enum export extends false finally for function if implements import in instanceof interface let new null package private protected public return static super switch this throw true try typeof var void while with yield'.split(
    ' ',
  ),
);

/** True when `name` is a keyword in Python or JavaScript (a tool named so gets a `_` alias). */
export const isScriptKeyword = (name: string): boolean => PY_KEYWORDS.has(name) || JS_RESERVED.has(name);

/**
 * Names a script already has, in either language: the framework's helpers, the builtins, pre-imported
 * modules and globals a script uses, the names it may not use, and Object.prototype's own names (a JS
 * tool named `constructor` or `__proto__` would meet the prototype, not the tool). A server tool named so
 * would replace the helper (`emit_result` sent the script's answer to the server) or never be callable.
 */
const SCRIPT_NAMES = new Set<string>([
  ...PYTHON_FRAMEWORK_NAMES,
  ...JS_FRAMEWORK_NAMES,
  ...PYTHON_SAFE_BUILTINS,
  'print',
  'getattr',
  'hasattr',
  'type',
  ...PYTHON_PREIMPORTED_MODULES,
  ...Object.keys(PYTHON_FORBIDDEN_NAMES),
  ...JS_SAFE_GLOBALS,
  ...Object.keys(JS_FORBIDDEN_NAMES),
  'console',
  'globalThis',
  'undefined',
  'NaN',
  'Infinity',
  ...Object.getOwnPropertyNames(Object.prototype),
]);

/** True when a script already has `name` (a helper, builtin, module or prototype name): such a tool is renamed. */
export const isScriptHelperName = (name: string): boolean => SCRIPT_NAMES.has(name);

/**
 * The one rule for a name a workspace gives to something scripts call (a kit's or an MCP selection's
 * alias, a skill, a tools.py tool): what the name already is in every script, or undefined when it is
 * free. A keyword cannot be called at all (`keyword`); a name scripts already have (`taken`: a helper
 * such as `emit_result`, a builtin such as `len`, a module such as `json`, a global) would be replaced by
 * it in every script. Each caller says it in its own words, with `what` as the reason.
 */
export function scriptNameClash(name: string): { kind: 'keyword' | 'taken'; what: string } | undefined {
  if (isScriptKeyword(name)) return { kind: 'keyword', what: 'a keyword of Python or JavaScript' };
  if (isScriptHelperName(name))
    return { kind: 'taken', what: 'a name scripts already have (a builtin, module, helper or global)' };
  return undefined;
}

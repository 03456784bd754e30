/**
 * Hinters turn common failures into instructions for the retry prompt. Each looks at the error text
 * (`KeyError: 0`, `NameError: name 'x' is not defined`...) and the tools, and returns a sentence that
 * says what to do instead, or nothing.
 */
import type { ScriptLanguage } from '../lang/violation.ts';
import { signatureFor } from '../tools/prompt.ts';
import type { Tool } from '../tools/model.ts';

export interface HintContext {
  error: string;
  script: string;
  tools: readonly Tool[];
  /** The script's language (Python when absent): hints quote calls as that language writes them. */
  language?: ScriptLanguage;
}

export type Hinter = (ctx: HintContext) => string | undefined;

import { closest } from '../text/near-names.ts';

export { closest, didYouMean, editDistance } from '../text/near-names.ts';

const keyErrorIndex: Hinter = ({ error }) => {
  const m = /KeyError: (-?\d+)\b/.exec(error);
  if (!m) return undefined;
  return (
    `KeyError: ${m[1]} means you indexed a dict with the integer ${m[1]} as if it were a list. ` +
    `A tool's .data is a dict here: access fields by name (data["name"]), iterate data.items(), ` +
    `or, if you need a list, take list(data.values()).`
  );
};

const keyErrorName: Hinter = ({ error }) => {
  const m = /KeyError: ['"]([^'"]+)['"]/.exec(error);
  if (!m) return undefined;
  // The traceback's line that read the key: a dict of `collected` (an INTERACTIVE step's data from the
  // steps before) is no tool's response, and "the fields the tool's manual lists" sent the model there.
  const key = m[1] ?? '';
  const read = error
    .split('\n')
    .filter((l) => l.includes(`["${key}"]`) || l.includes(`['${key}']`))
    .at(-1);
  if (read && /\bcollected\b/.test(read))
    return (
      `KeyError: '${key}' means that key is not in the dict read from collected, the data earlier steps ` +
      `emitted: its keys are the ones shown under "Data collected by earlier steps" (case-sensitive); use ` +
      `the key as it is there, or d.get("${key}") when it may be missing.`
    );
  return (
    `KeyError: '${m[1]}' means that key is not in the dict. Check the field names the tool's manual lists ` +
    `(they are case-sensitive), use d.get("${m[1]}") when a field may be missing, and check .success before ` +
    `reading .data of a ToolResponse.`
  );
};

const listIndexedByString: Hinter = ({ error }) =>
  /list indices must be integers or slices, not str/.test(error)
    ? `You indexed a list with a string. The value is a list of records: loop over it ` +
      `(for item in data: item["field"]) or pick one by position (data[0]["field"]).`
    : undefined;

const unknownName: Hinter = ({ error, tools }) => {
  const m = /NameError: name '([^']+)' is not defined/.exec(error);
  if (!m) return undefined;
  const name = m[1] ?? '';
  const names = tools.map((t) => t.name);
  const guess = closest(name, names);
  return (
    `${name} is not defined. ${guess ? `Did you mean the tool ${guess}? ` : ''}` +
    `The only tools are: ${names.join(', ') || '(none)'}; nothing can be imported, and variables must be ` +
    `assigned before use.`
  );
};

const wrongArguments: Hinter = ({ error, tools, language = 'python' }) => {
  const m =
    /TypeError: (\w+)\(\) (got an unexpected keyword argument|missing \d+ required|takes \d+ positional|got multiple values)/.exec(
      error,
    );
  if (!m) return undefined;
  const tool = tools.find((t) => t.name === m[1]);
  if (!tool) return `Check the arguments of ${m[1]}(): ${error.split('\n')[0]}`;
  // A JS/TS script passes a tool one object of named arguments (a skill: positional ones); it was told
  // the Python signature and "keyword arguments".
  if (language !== 'python')
    return `Call ${tool.name} exactly as its signature says: ${signatureFor(tool, language)}. ${tool.location === 'skill' ? 'Pass its arguments in this order.' : 'Pass one object whose keys are these parameter names.'}`;
  return `Call ${tool.name} exactly as its signature says: ${signatureFor(tool, 'python')}. Use these parameter names as keyword arguments.`;
};

const attributeOnToolResponse: Hinter = ({ error }) => {
  const m = /AttributeError: '(ToolResponse|dict|list)' object has no attribute '([^']+)'/.exec(error);
  if (!m) return undefined;
  if (m[1] === 'ToolResponse') {
    return (
      `A ToolResponse has only .success, .message and .data. The field '${m[2]}' is inside .data: ` +
      `write r.data["${m[2]}"] (after checking r.success).`
    );
  }
  if (m[1] === 'dict') return `Dicts have no attribute '${m[2]}': write d["${m[2]}"] or d.get("${m[2]}").`;
  return `Lists have no attribute '${m[2]}': loop over the list, or index it (items[0]["${m[2]}"]).`;
};

const responseUsedAsValue: Hinter = ({ error, language = 'python' }) =>
  language === 'python' &&
  /TypeError: (?:'ToolResponse' object is not (?:subscriptable|iterable)|argument of type 'ToolResponse' is not iterable|object of type 'ToolResponse' has no len\(\))/.test(
    error,
  )
    ? `A tool returns a ToolResponse, not its value: the value is r.data (r.data["name"], for item in r.data, ` +
      `len(r.data)), after checking r.success.`
    : undefined;

/**
 * A ToolResponse (or a list or dict holding one) passed to emit_result / emit_intermediate: the worker
 * says only "emit_result takes JSON-safe data (...); $ (ToolResponse) is not" (`$` the value itself,
 * `$[0]` or `$.user` a part of it; a key is written as it is, spaces and all: `$.first user`).
 */
const responseEmitted: Hinter = ({ error, language = 'python' }) => {
  const m =
    /(emit_result|emit_intermediate) takes JSON-safe data \([^)]*\); (\$.*?) \(ToolResponse\) is not/.exec(
      error,
    );
  if (language !== 'python' || !m) return undefined;
  const where =
    m[2] === '$' ? 'the value passed is a ToolResponse' : `${m[2]} of the value passed is a ToolResponse`;
  return (
    `${m[1]} takes the answer, not a tool's response: ${where}. Emit its value, r.data (or only the fields ` +
    `the task asks for, r.data["name"]), after checking r.success.`
  );
};

/**
 * A JS/TS script that read a tool's value off the response itself (`u.name`, `rows.map`, `for (const x of
 * r)`): a call resolves to `{ success, message, data }`, so the field is undefined and the error names
 * only the next property read. Said only when the script calls a tool.
 */
const jsResponseUsedAsValue: Hinter = ({ error, script, tools, language = 'python' }) => {
  const esc = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A call of the tool itself (`get(` is not `budget(` nor `map.get(`).
  const calls = (name: string) => new RegExp(`(?<![\\w$.])${esc(name)}\\s*\\(`).test(script);
  if (language === 'python' || !tools.some((t) => calls(t.name))) return undefined;
  if (/TypeError: Cannot read properties of null/.test(error))
    return (
      `A failed tool call resolves to { success: false, message, data: null }: check r.success (and ` +
      `r.message) before reading r.data.`
    );
  // The error in a value read off .data (r.data.tags.map): in the value's own shape.
  if (/\.data\b/.test(error)) return undefined;
  // A response kept whole in a name (`const u = await get_user(...)`) whose other fields are read
  // (`u.address`, `u.map(`, `u[0]`): that is the mistake, though the script reads .data elsewhere (another
  // call's response; before, any `.data` in the script kept the hint from it).
  // (one pass over the script for every tool: a 1 MB script and hundreds of tools)
  const anyTool = tools.map((t) => esc(t.name)).join('|');
  const kept = [
    ...script.matchAll(
      new RegExp(
        `(?:const|let|var)\\s+([A-Za-z_$][\\w$]*)\\s*(?::[^=;]+)?=\\s*await\\s+(?:${anyTool})\\s*\\(`,
        'g',
      ),
    ),
  ].map((m) => m[1] as string);
  const usedAsValue =
    kept.length > 0 &&
    new RegExp(
      `(?<![\\w$.])(?:${[...new Set(kept)].map(esc).join('|')})\\s*(?:\\??\\.(?!(?:data|success|message)\\b)[A-Za-z_$]|\\[(?!\\s*["'\`](?:data|success|message)["'\`]))`,
    ).test(script);
  // A script that already reads the value off .data (r.data.tags.map, { data } destructured): the
  // undefined is in the value's own shape, and "read r.data" would send a retry away from a script that does.
  if (
    !usedAsValue &&
    /\.data\b|\{[^}]*\bdata\b[^}]*\}\s*(?::[^=;]+)?=[^=]|\[\s*["'`]data["'`]\s*\]/.test(script)
  )
    return undefined;
  return /TypeError: (?:Cannot read properties of undefined|\S+ is not (?:a function|iterable)|undefined is not)/.test(
    error,
  )
    ? `A tool call resolves to { success, message, data }, not to the tool's value: read r.data (r.data.name, ` +
        `r.data.map(...), for (const item of r.data)), after checking r.success.`
    : undefined;
};

const noneSubscript: Hinter = ({ error }) =>
  /'NoneType' object is not subscriptable/.test(error)
    ? `You indexed None. A failed ToolResponse has data None: check r.success (and r.message) before reading r.data.`
    : undefined;

const missingEmit: Hinter = ({ error, language = 'python' }) =>
  /missing-emit|no result was emitted/i.test(error)
    ? `End the script by calling ${language === 'python' ? 'emit_result' : 'emitResult'}(value) with the final answer.`
    : undefined;

const timedOut: Hinter = ({ error }) =>
  /^Timeout: /m.test(error)
    ? `The script did not finish within its time limit. Look for a loop that never ends (while True, a ` +
      `retry with no bound) and for work that grows with the data: call only the tools the answer needs, ` +
      `each for only the items it needs, and do not wait or sleep.`
    : undefined;

const outputTooBig: Hinter = ({ error }) =>
  /^OutputLimit: /m.test(error)
    ? `The script's output (its prints and emitted values) went past the limit. Print little or nothing, ` +
      `and emit only the answer the task asks for (a count, the few fields it names), never whole tool ` +
      `responses or long lists.`
    : undefined;

export const DEFAULT_HINTERS: readonly Hinter[] = [
  keyErrorIndex,
  keyErrorName,
  listIndexedByString,
  unknownName,
  wrongArguments,
  attributeOnToolResponse,
  responseUsedAsValue,
  responseEmitted,
  jsResponseUsedAsValue,
  noneSubscript,
  missingEmit,
  timedOut,
  outputTooBig,
];

/** All hints that apply to an error, de-duplicated, in hinter order. */
export function hintsFor(ctx: HintContext, hinters: readonly Hinter[] = DEFAULT_HINTERS): string[] {
  const out: string[] = [];
  for (const h of hinters) {
    const hint = h(ctx);
    if (hint && !out.includes(hint)) out.push(hint);
  }
  return out;
}

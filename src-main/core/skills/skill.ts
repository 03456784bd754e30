/**
 * Skills, the ratchet's second level: a named function with typed parameters and a docstring, written in
 * the script subset of its language, that later scripts call. A skill is script code, never tool code:
 * it is validated by the script rules, defined in the job's own namespace ahead of the script's body, and
 * re-checked by the worker with the body on the exact bytes that run.
 *
 * The file: `skills/<sandbox>/<name>.py`, valid Python. Its front matter is TOML in a comment block
 * between `# +++` lines (version, description, origin, tests); the rest is exactly one `def <name>(...)`.
 * Parsing TOML is the caller's (infra) job; this module splits and checks the shape.
 */
import { escapeBidi, firstBidi } from '../lang/bidi.ts';
import { assertionSchema } from '../suites/schema.ts';
import type { Assertion } from '../suites/schema.ts';
import { docstringOf, field, fieldList, parsePython } from '../lang/python/pyright.ts';
import type { PyNode } from '../lang/python/pyright.ts';
import { extractTools, literalValue, NOT_LITERAL } from '../tools/extract.ts';
import { maxGrade } from '../tools/grade.ts';
import { jsParamTypeText, paramTypeText } from '../tools/prompt.ts';
import type { Grade } from '../tools/grade.ts';
import type { JsonValue, Tool, ToolParameter } from '../tools/model.ts';
import { scriptNameClash } from '../tools/script-names.ts';
import type { OfferedSkill } from './offered.ts';

export type { OfferedSkill };
import { pyString } from '../templates/slots.ts';

export class SkillError extends Error {
  override name = 'SkillError';
}

/** One test case: the arguments, then assertions on the result (as suite cases have). */
export interface SkillTest {
  args: Record<string, JsonValue>;
  /** Every assertion must hold; none: the call must return without raising. */
  assert: Assertion[];
}

/** A skill's language: a Python skill is offered to Python scripts, a JS one to JS and TS scripts, a TS one to TS scripts. */
export type SkillLanguage = 'python' | 'js' | 'ts';

export interface Skill {
  name: string;
  sandbox: string;
  language: SkillLanguage;
  /** 1 for a new skill; each saved change adds one (earlier versions are kept in the history). */
  version: number;
  /** The function: exactly one `def name(...)` with typed parameters and a docstring. */
  source: string;
  tests: SkillTest[];
  /** The run the skill was made from. */
  origin?: string;
}

/** What the static analysis of a skill's source finds. */
export interface SkillShape {
  /** The function as a manual entry (parameters, types, docstring), location `skill`. */
  tool: Tool;
  /** The names the function calls (tools among them). */
  calls: string[];
  /** What is wrong with its shape (empty when it is one typed, documented function named after the skill). */
  problems: string[];
}

/**
 * The most characters a skill's file may hold (as the workbench's `skills.save` takes: contract/skills.ts).
 * Every command parses every skill of the workspace: one of a megabyte, saved from the CLI (its tests then
 * failed, the job too large to run), made each command after it take 14 s instead of 2.
 */
export const MAX_SKILL_CHARS = 200_000;

/** Why a skill's text is too large to be a skill, if it is. */
export const skillSizeProblem = (chars: number): string | undefined =>
  chars > MAX_SKILL_CHARS
    ? `it is ${chars.toLocaleString('en-US')} characters, above the ${MAX_SKILL_CHARS.toLocaleString('en-US')} a skill may hold: a skill is a short function; data this large belongs in a tool or a file the tools read`
    : undefined;

/** Names a skill may have: a Python identifier, not private, not dunder. */
export const SKILL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * What is wrong with a skill's name, if anything. Besides its form, it may not be a name scripts already
 * have (a builtin such as `len` or `print`, a pre-imported module, a helper, a JS global such as
 * `console`) nor a keyword of either language: a skill is defined in the job's namespace whenever the
 * body names it, so a skill named `len` silently replaced the builtin in every script that used it.
 */
export function skillNameProblem(name: string): string | undefined {
  if (!SKILL_NAME.test(name))
    return `the name ${JSON.stringify(name)} is not a skill name (lower case letters, digits, _)`;
  const clash = scriptNameClash(name);
  if (clash)
    return `the name ${JSON.stringify(name)} is ${clash.what}${clash.kind === 'keyword' ? ';' : ': a skill named so would replace it in every script that uses it;'} name the skill after what it does`;
  return undefined;
}

/**
 * Why a skill may not take the name of one of its sandbox's tools: scripts call both by name, so the
 * skill would hide the tool (or the tool the skill), and a skill that wraps the tool would call itself.
 */
export function skillToolClash(name: string, sandbox: string, tool: Pick<Tool, 'location' | 'mcp'>): string {
  const from =
    tool.location === 'mcp' && tool.mcp ? `from MCP server ${tool.mcp.server}` : "in the sandbox's tools.py";
  return `sandbox ${sandbox} has a tool named ${name} (${from}); a skill may not take a tool's name (scripts call both by name, and a skill wrapping the tool would call itself): rename the skill after what it does beyond the tool, e.g. ${name}_summary, and save it under that name`;
}

/** The framework calls that produce a script's output: a skill returns its value, the script emits it. */
const EMITS = new Set(['emit_result', 'emit_intermediate']);

// ---------------------------------------------------------------- the file

const FRONT_LINE = /^#[ \t]?/;

/** Splits a skill file into its front matter (TOML, comment markers removed) and its function. */
export function splitSkillFile(text: string, file = 'skill'): { front: string; source: string } {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if ((lines[0] ?? '').trim() !== '# +++') return { front: '', source: text };
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '# +++');
  if (end < 0) throw new SkillError(`${file}: the front matter opened by "# +++" is not closed`);
  const front: string[] = [];
  for (const l of lines.slice(1, end)) {
    if (l.trim() !== '' && !l.startsWith('#'))
      throw new SkillError(`${file}: every front matter line starts with "#"`);
    front.push(l.replace(FRONT_LINE, ''));
  }
  refuseRawBidi(lines.slice(1, end), file);
  return { front: front.join('\n'), source: lines.slice(end + 1).join('\n') };
}

/**
 * A bidirectional control character written raw in a skill file's front matter (the lines after the
 * opening `+++`, `front[0]` being the file's line 2) is refused: it reorders how the line is displayed,
 * so a reader of the file sees test arguments other than those that run ("Trojan Source"). The writer
 * (skillFileText) writes each as its TOML escape; the validator's `bidi-control` rule covers the function.
 */
export function refuseRawBidi(front: readonly string[], file: string): void {
  for (const [i, l] of front.entries()) {
    const hit = firstBidi(l);
    if (!hit) continue;
    const esc = `\\u${hit.codePoint.toString(16).padStart(4, '0')}`;
    throw new SkillError(
      `${file}: front matter line ${i + 2}, column ${hit.index + 1}: ${hit.named}, a bidirectional ` +
        `control character, is refused raw in a skill file's front matter (it makes the line read other ` +
        `than it is): write it as the escape "${esc}" inside the TOML string, or remove it`,
    );
  }
}

/**
 * The file's text: the front matter (TOML, already serialized with basic "..." strings only, as
 * smol-toml writes them) as comments, then the function. Every bidirectional control character in it is
 * written as its TOML escape (`\u202e`): they only stand inside those strings, where the escape holds the
 * same value, and raw they would make the file read other than it is.
 */
export function skillFileText(frontToml: string, source: string): string {
  const front = escapeBidi(frontToml)
    .trim()
    .split('\n')
    .map((l) => (l ? `# ${l}` : '#'));
  return `# +++\n${front.join('\n')}\n# +++\n${source.endsWith('\n') ? source : `${source}\n`}`;
}

/** The front matter object to serialize (the function goes after it). */
export function skillFrontMatter(s: Skill): Record<string, unknown> {
  return {
    version: s.version,
    ...(s.origin ? { origin: s.origin } : {}),
    tests: s.tests.map((t) => ({ args: t.args, ...(t.assert.length ? { assert: t.assert } : {}) })),
  };
}

/**
 * Builds a Skill from parsed front matter and its function; throws SkillError listing every problem.
 * `shape` checks the function (core/skills/shape.ts picks it by language; Python's by default).
 */
export function skillFromParts(
  front: Record<string, unknown>,
  source: string,
  where: { sandbox: string; name: string; file?: string },
  language: SkillLanguage = 'python',
  shape: (name: string, source: string) => SkillShape = skillShape,
): Skill {
  const file = where.file ?? `${where.sandbox}/${where.name}`;
  const problems: string[] = [];
  const version = front['version'] ?? 1;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1)
    problems.push('version must be a whole number from 1');
  const tests: SkillTest[] = [];
  const raw = front['tests'] ?? [];
  if (!Array.isArray(raw)) problems.push('tests must be a list of [[tests]] tables');
  else
    raw.forEach((t: unknown, i) => {
      const o = (t ?? {}) as Record<string, unknown>;
      const args = o['args'] ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        problems.push(`test ${i + 1}: args must be a table of argument values`);
        return;
      }
      const asserts: Assertion[] = [];
      for (const [j, a] of (Array.isArray(o['assert']) ? o['assert'] : []).entries()) {
        const p = assertionSchema.safeParse(a);
        if (p.success) asserts.push(p.data);
        else problems.push(`test ${i + 1} assertion ${j + 1}: ${p.error.issues[0]?.message ?? 'invalid'}`);
      }
      tests.push({ args: args as Record<string, JsonValue>, assert: asserts });
    });
  const s: Skill = {
    name: where.name,
    sandbox: where.sandbox,
    language,
    version: typeof version === 'number' ? version : 1,
    source,
    tests,
  };
  if (typeof front['origin'] === 'string' && front['origin']) s.origin = front['origin'];
  const checked = shape(s.name, s.source);
  problems.push(...checked.problems, ...testProblems(s, checked));
  if (problems.length) throw new SkillError(`${file}: ${problems.join('; ')}`);
  return s;
}

// ---------------------------------------------------------------- the function

/** Calls by plain name anywhere under a node. */
/** The nodes a type annotation is made of (`str`, `list[str]`, `typing.Optional[int]`, `str | None`, `"T"`). */
const TYPE_NODES = new Set([
  'Name',
  'MemberAccess',
  'Index',
  'Argument',
  'BinaryOperation',
  'Constant',
  'Ellipsis',
  'StringList',
  'String',
  'List',
  'Tuple',
  'Number',
]);

/** Whether an annotation is a type, with nothing that runs (a call, a lambda, a comprehension...). */
function isTypeExpression(n: PyNode): boolean {
  if (!TYPE_NODES.has(n.kind)) return false;
  if (n.kind === 'StringList' && n.formatted) return false;
  return n.children.every(isTypeExpression);
}

function calledNames(n: PyNode, out: Set<string>): void {
  if (n.kind === 'Call') {
    const callee = n.children[0];
    if (callee?.kind === 'Name' && callee.value) out.add(callee.value);
  }
  for (const c of n.children) calledNames(c, out);
}

/**
 * The shape of a skill's source: one top-level `def name(...)` (no decorator, not async), every
 * parameter annotated, a docstring, no emit calls. The manual entry is derived as a tool's is.
 */
export function skillShape(name: string, source: string): SkillShape {
  const problems: string[] = [];
  const empty: Tool = { name, description: '', parameters: [], location: 'skill' };
  const badName = skillNameProblem(name);
  if (badName) problems.push(badName);
  const parsed = parsePython(source);
  if (parsed.syntaxErrors.length) {
    const e = parsed.syntaxErrors[0];
    problems.push(`line ${e?.start.line}:${e?.start.column} does not parse: ${e?.message}`);
    return { tool: empty, calls: [], problems };
  }
  const statements = fieldList(parsed.module, 'statements');
  const fn = statements[0];
  if (statements.length !== 1 || fn?.kind !== 'Function') {
    problems.push(`a skill is exactly one function definition (def ${name}(...):), nothing else`);
    return { tool: empty, calls: [], problems };
  }
  // (a name that is no skill name is said once, above: not also as the function's name to change)
  if (fn.value !== name && !badName)
    problems.push(`the function is named ${fn.value ?? '?'}; it must be ${name}`);
  if (fieldList(fn, 'decorators').length) problems.push('a skill has no decorators');
  if (/^\s*async\s+def\b/.test(source)) problems.push('a skill is not async');
  const params = fieldList(fn, 'params');
  for (const p of params) {
    if (p.category !== 'simple' || !p.value)
      problems.push('a skill takes named parameters only (no *args, **kwargs or bare *)');
    else if (!field(p, 'annotation')) problems.push(`parameter ${p.value} needs a type (${p.value}: str)`);
  }
  // The header runs when the function is defined, which is whenever a script names the skill (not when
  // it calls it): a default or an annotation that calls a tool (`n: int = len(get_orders().data)`) made
  // that call in every script that merely named the skill, recorded as the script's own, and the manual
  // showed the default as `None`. Defaults are literals, as a tool's (the manual shows them as they
  // are), and annotations are types.
  for (const p of params) {
    const def = field(p, 'defaultValue');
    if (def && literalValue(def) === NOT_LITERAL)
      problems.push(
        `the default of ${p.value ?? '?'} must be a literal (a number, string, True, False, None, or a list or dict of them): it runs when a script names the skill, not when it calls it`,
      );
    const ann = field(p, 'annotation');
    if (ann && !isTypeExpression(ann))
      problems.push(
        `the type of ${p.value ?? '?'} must be a type (str, list[str], str | None), not an expression`,
      );
  }
  const ret = field(fn, 'returnAnnotation');
  if (ret && !isTypeExpression(ret))
    problems.push('the return type must be a type (str, list[str], dict | None), not an expression');
  if (!docstringOf(field(fn, 'suite'))?.trim())
    problems.push('a skill needs a docstring saying what it does and what it returns');
  const calls = new Set<string>();
  calledNames(fn, calls);
  for (const e of EMITS)
    if (calls.has(e)) problems.push(`a skill returns its value; ${e} belongs to the script that calls it`);
  // The manual entry, derived exactly as a tool's (signature, type hints, defaults, docstring).
  const extracted = extractTools(`@tool\n${source}`).tools[0];
  const tool: Tool = extracted
    ? {
        name,
        description: extracted.description,
        parameters: extracted.parameters,
        ...(extracted.returns ? { returns: extracted.returns } : {}),
        location: 'skill',
        line: 1,
      }
    : empty;
  return { tool, calls: [...calls].sort(), problems };
}

/**
 * Whether a test's JSON argument fits its parameter's type as the validator checks a literal's
 * (`tool-argument-type`: an int for a float and a bool for an int are fine, as in Python; None only where
 * the parameter takes it).
 */
function argumentFits(v: unknown, p: ToolParameter): boolean {
  if (v === null) return p.type === 'any' || p.nullable === true || (!p.required && p.default === null);
  switch (p.type) {
    case 'str':
      return typeof v === 'string';
    case 'int':
      return Number.isInteger(v) || typeof v === 'boolean';
    case 'float':
      return typeof v === 'number' || typeof v === 'boolean';
    case 'bool':
      return typeof v === 'boolean';
    case 'list':
      return Array.isArray(v);
    case 'dict':
      return typeof v === 'object' && !Array.isArray(v);
    default:
      return true;
  }
}

/**
 * Problems with a skill's tests: an argument that is not a parameter, a required one missing, a value of
 * another type than its parameter's (a case that could never pass: its script is refused by validation;
 * saved, it replaced a passing version with a failing one).
 */
function testProblems(s: Skill, shape: SkillShape): string[] {
  if (shape.problems.length) return [];
  const out: string[] = [];
  s.tests.forEach((t, i) => {
    for (const [k, v] of Object.entries(t.args)) {
      const p = shape.tool.parameters.find((x) => x.name === k);
      if (!p) out.push(`test ${i + 1}: ${k} is not a parameter of ${s.name}`);
      else if (!argumentFits(v, p))
        out.push(
          `test ${i + 1}: argument ${k} must be ${s.language === 'python' ? paramTypeText(p) : jsParamTypeText(p)}, got ${JSON.stringify(v)}`,
        );
    }
    for (const p of shape.tool.parameters)
      if (p.required && !(p.name in t.args)) out.push(`test ${i + 1}: argument ${p.name} is missing`);
  });
  return out;
}

/** A skill's grade: the highest grade of the tools it calls (the lowest grade when it calls none). */
export function skillGrade(
  calls: readonly string[],
  tools: readonly { name: string; grade: Grade }[],
): Grade {
  const byName = new Map(tools.map((t) => [t.name, t.grade]));
  return maxGrade(calls.flatMap((c) => (byName.has(c) ? [byName.get(c) as Grade] : [])));
}

/** The tools (script-visible names) a skill calls. */
export const skillTools = (shape: Pick<SkillShape, 'calls'>, toolNames: readonly string[]): string[] =>
  shape.calls.filter((c) => toolNames.includes(c));

// ---------------------------------------------------------------- in a script

/** A JSON value as a Python literal, every string escaped to printable ASCII. */
export function pyValue(v: JsonValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new SkillError(`${String(v)} is not a finite number`);
    return v < 0 ? `(${String(v)})` : String(v);
  }
  if (typeof v === 'string') return pyString(v);
  if (Array.isArray(v)) return `[${v.map(pyValue).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${pyString(k)}: ${pyValue(x)}`)
    .join(', ')}}`;
}

/** The script a test case runs: the skill called with the case's arguments, its value emitted. */
export function skillCallScript(name: string, args: Record<string, JsonValue>): string {
  const kw = Object.entries(args).map(([k, v]) => `${k}=${pyValue(v)}`);
  return `emit_result(${name}(${kw.join(', ')}))\n`;
}

/**
 * JS/TS skills: the file, the function's shape, the script a test case runs and the manual's declaration.
 * A JS/TS skill file is `skills/<sandbox>/<name>.js|.ts`: the same TOML
 * front matter as a Python skill's, in `//` comments between `// +++` lines, then exactly one top-level
 * `function name(...)` or `async function name(...)` with a JSDoc comment saying what it does.
 */
import { escapeBidi } from '../lang/bidi.ts';
import { parse } from '@babel/parser';
import type * as t from '@babel/types';
import { JS_EMIT_NAMES } from '../lang/builtins.ts';
import type { JsonValue, ParamType, Tool, ToolParameter } from '../tools/model.ts';
import { refuseRawBidi, SkillError, skillNameProblem } from './skill.ts';
import type { SkillShape } from './skill.ts';

export type JsSkillLanguage = 'js' | 'ts';

const FRONT_LINE = /^\/\/[ \t]?/;

/** Splits a JS/TS skill file into its front matter (TOML, `//` removed) and its function. */
export function splitJsSkillFile(text: string, file = 'skill'): { front: string; source: string } {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if ((lines[0] ?? '').trim() !== '// +++') return { front: '', source: text };
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '// +++');
  if (end < 0) throw new SkillError(`${file}: the front matter opened by "// +++" is not closed`);
  const front: string[] = [];
  for (const l of lines.slice(1, end)) {
    if (l.trim() !== '' && !l.startsWith('//'))
      throw new SkillError(`${file}: every front matter line starts with "//"`);
    front.push(l.replace(FRONT_LINE, ''));
  }
  refuseRawBidi(lines.slice(1, end), file);
  return { front: front.join('\n'), source: lines.slice(end + 1).join('\n') };
}

/**
 * The file's text: the front matter (TOML, already serialized) as `//` comments, then the function;
 * each bidirectional control character in the front matter as its TOML escape (as skillFileText).
 */
export function jsSkillFileText(frontToml: string, source: string): string {
  const front = escapeBidi(frontToml)
    .trim()
    .split('\n')
    .map((l) => (l ? `// ${l}` : '//'));
  return `// +++\n${front.join('\n')}\n// +++\n${source.endsWith('\n') ? source : `${source}\n`}`;
}

/** A JSDoc comment's description and `@param {type} name description` / `@returns` lines. */
function jsDoc(text: string): {
  description: string;
  params: Map<string, { type?: string; description: string; optional?: boolean }>;
  returns?: string;
} {
  const lines = text
    .replace(/^\*/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, '').trimEnd());
  const description: string[] = [];
  const params = new Map<string, { type?: string; description: string; optional?: boolean }>();
  let returns: string | undefined;
  for (const l of lines) {
    const p = /^@param\s+(?:\{([^}]*)\}\s+)?(\[)?([A-Za-z_$][\w$]*)(?:=[^\]]*)?\]?\s*(?:-\s*)?(.*)$/.exec(l);
    if (p) {
      // `[name]` (or `[name=default]`) and `{type=}` are JSDoc's optional parameter.
      const optional = !!p[2] || !!p[1]?.trim().endsWith('=');
      params.set(p[3] as string, {
        ...(p[1] ? { type: p[1].trim().replace(/=$/, '') } : {}),
        description: p[4] ?? '',
        ...(optional ? { optional } : {}),
      });
      continue;
    }
    const r = /^@returns?\s+(?:\{[^}]*\}\s*)?(.*)$/.exec(l);
    if (r) {
      returns = r[1] ?? '';
      continue;
    }
    if (!l.startsWith('@')) description.push(l);
  }
  return {
    description: description.join('\n').trim(),
    params,
    ...(returns !== undefined ? { returns } : {}),
  };
}

const TS_TYPES: Record<string, ParamType> = {
  TSStringKeyword: 'str',
  TSNumberKeyword: 'float',
  TSBooleanKeyword: 'bool',
  TSArrayType: 'list',
  TSTypeLiteral: 'dict',
};

/** A JSDoc type (`string`, `number[]`, `Object`) as a manual parameter type. */
function docType(type: string | undefined): ParamType {
  const x = (type ?? '').trim().toLowerCase();
  if (x === 'string') return 'str';
  if (x === 'number') return 'float';
  if (x === 'boolean') return 'bool';
  if (x.endsWith('[]') || x.startsWith('array')) return 'list';
  if (x === 'object' || x.startsWith('record')) return 'dict';
  return 'any';
}

/** Calls by plain name anywhere under a node. */
function calledNames(n: unknown, out: Set<string>): void {
  if (!n || typeof n !== 'object') return;
  if (Array.isArray(n)) {
    for (const c of n) calledNames(c, out);
    return;
  }
  const node = n as { type?: string } & Record<string, unknown>;
  if (node.type === 'CallExpression') {
    const callee = node['callee'] as t.Expression | undefined;
    if (callee?.type === 'Identifier') out.add(callee.name);
  }
  for (const [k, v] of Object.entries(node))
    if (k !== 'loc' && k !== 'leadingComments' && k !== 'trailingComments' && typeof v === 'object')
      calledNames(v, out);
}

/**
 * Why a JS skill's source means something else as TypeScript, or undefined when it does not. TS scripts
 * call JS skills, and a TS job's types are stripped as a whole (the skill's text with them): JS that
 * TypeScript reads with type syntax (`f < a > (x)`, a comparison in JS, is a call of `f` with a type
 * argument in TS) ran as other code than the JS that was validated, tested and read by a person.
 */
export function jsReadsAsTs(source: string): string | undefined {
  let program: t.Program;
  try {
    program = parse(source, { sourceType: 'script', plugins: ['typescript'] }).program;
  } catch (e) {
    const err = e as { loc?: { line: number; column: number }; message?: string };
    return `line ${err.loc?.line ?? '?'}:${(err.loc?.column ?? 0) + 1} does not parse as TypeScript: ${err.message ?? String(e)}`;
  }
  const found = tsNode(program);
  return found
    ? `line ${found.loc?.start.line ?? '?'}:${(found.loc?.start.column ?? 0) + 1} is ${found.type} syntax in TypeScript, which TS scripts strip`
    : undefined;
}

/** The first TypeScript-only node of a tree (type annotations, type arguments, `as`, `!`...). */
function tsNode(n: unknown): t.Node | undefined {
  if (!n || typeof n !== 'object') return undefined;
  if (Array.isArray(n)) {
    for (const x of n) {
      const f = tsNode(x);
      if (f) return f;
    }
    return undefined;
  }
  const node = n as t.Node & Record<string, unknown>;
  if (typeof node.type === 'string' && node.type.startsWith('TS')) return node;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'loc' || k === 'leadingComments' || k === 'trailingComments' || typeof v !== 'object') continue;
    const f = tsNode(v);
    if (f) return f;
  }
  return undefined;
}

/**
 * The shape of a JS/TS skill's source: one top-level `function name(...)` (async allowed), named
 * parameters only (a TS skill annotates each), a JSDoc comment, no emit calls. The manual entry comes
 * from the JSDoc (`@param {type} name description`) and the TS annotations.
 */
export function jsSkillShape(name: string, source: string, language: JsSkillLanguage): SkillShape {
  const problems: string[] = [];
  const empty: Tool = { name, description: '', parameters: [], location: 'skill' };
  const badName = skillNameProblem(name);
  if (badName) problems.push(badName);
  let program: t.Program;
  try {
    program = parse(source, {
      sourceType: 'script',
      allowReturnOutsideFunction: false,
      plugins: language === 'ts' ? ['typescript'] : [],
    }).program;
  } catch (e) {
    const err = e as { loc?: { line: number; column: number }; message?: string };
    problems.push(
      `line ${err.loc?.line ?? '?'}:${(err.loc?.column ?? 0) + 1} does not parse: ${err.message ?? String(e)}`,
    );
    return { tool: empty, calls: [], problems };
  }
  if (language === 'js') {
    const asTs = jsReadsAsTs(source);
    if (asTs)
      problems.push(
        `it reads differently as TypeScript: ${asTs} (TS scripts call JS skills; write it so both read the same, e.g. (a < b) > c)`,
      );
  }
  const fn = program.body[0];
  if (program.body.length !== 1 || fn?.type !== 'FunctionDeclaration') {
    problems.push(`a skill is exactly one function declaration (function ${name}(...) {...}), nothing else`);
    return { tool: empty, calls: [], problems };
  }
  // (a name that is no skill name is said once: not also as the function's name to change)
  if (fn.id?.name !== name && !badName)
    problems.push(`the function is named ${fn.id?.name ?? '?'}; it must be ${name}`);
  if (fn.generator) problems.push('a skill is not a generator');
  const doc = [...(fn.leadingComments ?? [])]
    .reverse()
    .find((c) => c.type === 'CommentBlock' && c.value.startsWith('*'));
  const parsedDoc = doc ? jsDoc(doc.value) : undefined;
  if (!parsedDoc?.description)
    problems.push('a skill needs a JSDoc comment (/** ... */) saying what it does and what it returns');
  const parameters: ToolParameter[] = [];
  for (const p of fn.params) {
    const id = p.type === 'AssignmentPattern' ? p.left : p;
    if (id.type !== 'Identifier') {
      problems.push('a skill takes named parameters only (no destructuring or ...rest)');
      continue;
    }
    const ann = id.typeAnnotation?.type === 'TSTypeAnnotation' ? id.typeAnnotation.typeAnnotation : undefined;
    if (language === 'ts' && !ann) problems.push(`parameter ${id.name} needs a type (${id.name}: string)`);
    const d = parsedDoc?.params.get(id.name);
    const type: ParamType = (ann && TS_TYPES[ann.type]) ?? docType(d?.type);
    const def = p.type === 'AssignmentPattern' ? p.right : undefined;
    const param: ToolParameter = {
      name: id.name,
      type,
      // `x?: T` (a TS skill) and JSDoc's `[x]` are optional as a default is: a missing argument is
      // `undefined` (before, they read as required, and a call or test case without x was refused).
      required: !def && !id.optional && !d?.optional,
      description: d?.description ?? '',
      source: 'all',
    };
    if (def) {
      const value = jsLiteral(def);
      if (value === NOT_LITERAL)
        problems.push(
          `the default of ${id.name} must be a literal (a number, string, true, false, null, or an array or object of them): the manual shows callers the value they get`,
        );
      else if (value !== undefined) param.default = value;
    }
    parameters.push(param);
  }
  const calls = new Set<string>();
  calledNames(fn.body, calls);
  for (const e of JS_EMIT_NAMES)
    if (calls.has(e)) problems.push(`a skill returns its value; ${e} belongs to the script that calls it`);
  const tool: Tool = {
    name,
    description: parsedDoc?.description ?? '',
    parameters,
    ...(parsedDoc?.returns ? { returns: parsedDoc.returns } : {}),
    location: 'skill',
    line: 1,
  };
  return { tool, calls: [...calls].sort(), problems };
}

const NOT_LITERAL = Symbol('not a literal');

/**
 * A default's value where it is a literal (as Python skills' defaults must be, and a tool's are): what the
 * manual shows. `undefined` (written so) is an optional parameter with no value. Anything else (a call,
 * a name, arithmetic) is NOT_LITERAL: its value was left out of the manual, which then read as if the
 * parameter had none.
 */
function jsLiteral(n: t.Node): JsonValue | undefined | typeof NOT_LITERAL {
  switch (n.type) {
    case 'StringLiteral':
    case 'NumericLiteral':
    case 'BooleanLiteral':
      return n.value;
    case 'NullLiteral':
      return null;
    case 'Identifier':
      return n.name === 'undefined' ? undefined : NOT_LITERAL;
    case 'TemplateLiteral':
      return n.expressions.length === 0
        ? n.quasis.map((q) => q.value.cooked ?? q.value.raw).join('')
        : NOT_LITERAL;
    case 'UnaryExpression':
      return (n.operator === '-' || n.operator === '+') && n.argument.type === 'NumericLiteral'
        ? n.operator === '-'
          ? -n.argument.value
          : n.argument.value
        : NOT_LITERAL;
    case 'TSAsExpression':
    case 'TSSatisfiesExpression':
    case 'TSNonNullExpression':
    case 'ParenthesizedExpression':
      return jsLiteral(n.expression);
    case 'ArrayExpression': {
      const out: JsonValue[] = [];
      for (const e of n.elements) {
        if (!e || e.type === 'SpreadElement') return NOT_LITERAL;
        const v = jsLiteral(e);
        if (v === NOT_LITERAL || v === undefined) return NOT_LITERAL;
        out.push(v);
      }
      return out;
    }
    case 'ObjectExpression': {
      const out: Record<string, JsonValue> = {};
      for (const p of n.properties) {
        if (p.type !== 'ObjectProperty' || p.computed) return NOT_LITERAL;
        const key =
          p.key.type === 'Identifier' ? p.key.name : p.key.type === 'StringLiteral' ? p.key.value : undefined;
        if (key === undefined || key === '__proto__') return NOT_LITERAL;
        const v = jsLiteral(p.value);
        if (v === NOT_LITERAL || v === undefined) return NOT_LITERAL;
        out[key] = v;
      }
      return out;
    }
    default:
      return NOT_LITERAL;
  }
}

/** A JSON value as a JS literal (JSON is JS; `undefined` for a missing optional argument). */
const jsValue = (v: JsonValue | undefined): string =>
  v === undefined ? 'undefined' : escapeBidi(JSON.stringify(v));

/**
 * The script a JS/TS test case runs: the skill called with the case's arguments in its parameters'
 * order (a JS skill takes positional parameters), awaited, its value emitted.
 */
export function jsSkillCallScript(
  name: string,
  args: Record<string, JsonValue>,
  params: readonly Pick<ToolParameter, 'name'>[],
): string {
  const values = params.map((p) => (Object.hasOwn(args, p.name) ? args[p.name] : undefined));
  while (values.length && values.at(-1) === undefined) values.pop();
  return `emitResult(await ${name}(${values.map(jsValue).join(', ')}));\n`;
}

const TS_OF: Record<ParamType, string> = {
  str: 'string',
  int: 'number',
  float: 'number',
  bool: 'boolean',
  list: 'unknown[]',
  dict: 'Record<string, unknown>',
  any: 'unknown',
};

/**
 * A JS/TS skill's TypeScript declaration for the manual: how a script calls it (positional parameters,
 * awaited as a tool is), e.g. `declare function order_total(user_id: string): Promise<number>;`.
 */
export function jsSkillStub(tool: Pick<Tool, 'name' | 'parameters'>): string {
  const params = tool.parameters.map(
    (p) => `${p.name}${p.required ? '' : '?'}: ${TS_OF[p.type] ?? 'unknown'}${p.nullable ? ' | null' : ''}`,
  );
  return `declare function ${tool.name}(${params.join(', ')}): Promise<unknown>;`;
}

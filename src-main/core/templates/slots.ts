/**
 * Template slots land as values, never as code. Two walls:
 * 1. A placeholder (`{{user_id}}`) must stand alone where an expression goes: the body is parsed with
 *    each placeholder replaced by a marker name, and every marker must be a whole name node of its own,
 *    outside any string, comment, f-string or template literal. Checked when a template is created and
 *    when a hand-written `.tmpl` file is loaded.
 * 2. After substitution the script is parsed again and compared with the template's tree: the same nodes
 *    in the same places, each marker replaced by exactly one literal whose value is the slot's value.
 *    Anything else (a value that closes a string, adds a call, a newline, a statement) is refused.
 * Literals are encoded for the language: Python with every character outside printable ASCII escaped,
 * JS/TS with JSON.stringify plus the line separators escaped.
 */
import { parse as parseJs } from '@babel/parser';
import type { ScriptLanguage } from '../lang/violation.ts';
import { escapeBidi } from '../lang/bidi.ts';
import type { CallShape } from '../lang/signature.ts';
import { parsePython } from '../lang/python/pyright.ts';
import type { PyNode } from '../lang/python/pyright.ts';
import type { JsonValue } from '../tools/model.ts';
import { checkTemplateShape, TemplateError } from './template.ts';
import type { Template } from './template.ts';
import { errorMessage } from '../errors.ts';

export const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

export class SlotError extends Error {
  override name = 'SlotError';
}

/** A Python string literal with every character outside printable ASCII escaped. */
export function pyString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c < 0x100) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else {
      const cp = s.codePointAt(i) as number;
      if (cp > 0xffff) {
        out += `\\U${cp.toString(16).padStart(8, '0')}`;
        i++;
      } else out += `\\u${cp.toString(16).padStart(4, '0')}`;
    }
  }
  return out + '"';
}

/** A slot value as a literal of the script language (a negative number in parentheses). */
export function slotLiteral(value: JsonValue, language: ScriptLanguage): string {
  if (typeof value === 'string')
    return language === 'python'
      ? pyString(value)
      : escapeBidi(JSON.stringify(value))
          .replace(/\u2028/g, '\\u2028')
          .replace(/\u2029/g, '\\u2029');
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new SlotError(`slot value ${String(value)} is not a finite number`);
    const text = String(value);
    return value < 0 || Object.is(value, -0) ? `(${text})` : text;
  }
  throw new SlotError(`a slot value is a string or a number, not ${JSON.stringify(value)}`);
}

interface Marked {
  text: string;
  /** Each placeholder: its slot name, and where its marker sits in `text`. */
  marks: { name: string; marker: string; start: number; end: number; line: number }[];
}

/** The body with each placeholder replaced by a marker name that occurs nowhere else in it. */
function mark(body: string): Marked {
  let prefix = '_tmpl_slot';
  while (body.includes(prefix)) prefix += 'x';
  const marks: Marked['marks'] = [];
  let text = '';
  let last = 0;
  for (const m of body.matchAll(PLACEHOLDER)) {
    const at = m.index ?? 0;
    text += body.slice(last, at);
    const marker = `${prefix}${marks.length}`;
    const line = body.slice(0, at).split('\n').length;
    marks.push({ name: m[1] as string, marker, start: text.length, end: text.length + marker.length, line });
    text += marker;
    last = at + m[0].length;
  }
  return { text: text + body.slice(last), marks };
}

const where = (m: Marked['marks'][number]) => `{{${m.name}}} (line ${m.line})`;

// ---------------------------------------------------------------- Python

function pyTree(text: string, what: string): PyNode {
  const r = parsePython(text);
  if (r.syntaxErrors.length) {
    const e = r.syntaxErrors[0] as { message: string; start: { line: number; column: number } };
    throw new SlotError(`${what} does not parse: ${e.start.line}:${e.start.column} ${e.message}`);
  }
  return r.module;
}

/** The value of a Python literal node (a string, a number, a negated number), or undefined. */
function pyLiteralValue(n: PyNode): JsonValue | undefined {
  if (n.kind === 'StringList' && !n.formatted && n.children.length === 1) {
    const s = n.children[0] as PyNode;
    return s.kind === 'String' ? (s.value ?? '') : undefined;
  }
  if (n.kind === 'Number' && typeof n.num === 'number') return n.num;
  if (n.kind === 'UnaryOperation' && n.value === 'Subtract' && n.children.length === 1) {
    const inner = n.children[0] as PyNode;
    return inner.kind === 'Number' && typeof inner.num === 'number' ? -inner.num : undefined;
  }
  return undefined;
}

function pyMarkers(marked: Marked): PyNode {
  const tree = pyTree(marked.text, 'the template body (with its slots as names)');
  const found = new Map<string, PyNode>();
  const walkIn = (n: PyNode, inFString: boolean) => {
    const f = inFString || n.kind === 'FormatString';
    if (n.kind === 'Name' && n.value !== undefined) {
      const m = marked.marks.find((x) => x.marker === n.value);
      if (m && n.start === m.start && n.end === m.end) {
        if (f) throw new SlotError(`slot ${where(m)} is inside an f-string; assign it to a name first`);
        found.set(m.marker, n);
      }
    }
    for (const c of n.children) walkIn(c, f);
  };
  walkIn(tree, false);
  for (const m of marked.marks)
    if (!found.has(m.marker))
      throw new SlotError(
        `slot ${where(m)} is inside a string, a comment or a name; a slot must stand alone where a value goes (e.g. user_id = {{${m.name}}})`,
      );
  return tree;
}

function pySame(
  a: PyNode,
  b: PyNode,
  slotValue: (marker: string) => JsonValue | undefined,
): string | undefined {
  if (a.kind === 'Name' && a.value !== undefined) {
    const want = slotValue(a.value);
    if (want !== undefined) {
      const got = pyLiteralValue(b);
      return got === want || (typeof got === 'number' && got === want)
        ? undefined
        : `the value at ${a.start} is not one literal equal to the slot's value`;
    }
  }
  if (
    a.kind !== b.kind ||
    a.role !== b.role ||
    a.value !== b.value ||
    String(a.num) !== String(b.num) ||
    a.category !== b.category ||
    a.children.length !== b.children.length
  )
    return `${b.kind} where the template has ${a.kind}`;
  for (let i = 0; i < a.children.length; i++) {
    const why = pySame(a.children[i] as PyNode, b.children[i] as PyNode, slotValue);
    if (why) return why;
  }
  return undefined;
}

// ---------------------------------------------------------------- JS / TS

type JsNode = { type: string; start?: number | null; end?: number | null } & Record<string, unknown>;
const JS_META = new Set([
  'start',
  'end',
  'loc',
  'range',
  'extra',
  'comments',
  'leadingComments',
  'trailingComments',
  'innerComments',
  'errors',
  'tokens',
]);
const isNode = (v: unknown): v is JsNode =>
  typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';

function jsTree(text: string, language: ScriptLanguage, what: string): JsNode {
  try {
    return parseJs(text, {
      sourceType: 'script',
      allowAwaitOutsideFunction: true,
      plugins: language === 'ts' ? ['typescript'] : [],
    }).program as unknown as JsNode;
  } catch (e) {
    throw new SlotError(`${what} does not parse: ${errorMessage(e)}`);
  }
}

function jsLiteralValue(n: JsNode): JsonValue | undefined {
  if (n.type === 'StringLiteral') return n['value'] as string;
  if (n.type === 'NumericLiteral') return n['value'] as number;
  if (n.type === 'UnaryExpression' && n['operator'] === '-' && n['prefix'] === true) {
    const arg = n['argument'];
    return isNode(arg) && arg.type === 'NumericLiteral' ? -(arg['value'] as number) : undefined;
  }
  return undefined;
}

function jsMarkers(marked: Marked, language: ScriptLanguage): JsNode {
  const tree = jsTree(marked.text, language, 'the template body (with its slots as names)');
  const found = new Set<string>();
  const walkIn = (v: unknown, inTemplate: boolean): void => {
    if (Array.isArray(v)) {
      for (const x of v) walkIn(x, inTemplate);
      return;
    }
    if (!isNode(v)) return;
    const t = inTemplate || v.type === 'TemplateLiteral' || v.type === 'TaggedTemplateExpression';
    if (v.type === 'Identifier') {
      const m = marked.marks.find((x) => x.marker === v['name']);
      if (m && v.start === m.start && v.end === m.end) {
        if (t)
          throw new SlotError(`slot ${where(m)} is inside a template literal; assign it to a name first`);
        found.add(m.marker);
      }
    }
    for (const [k, x] of Object.entries(v)) if (!JS_META.has(k)) walkIn(x, t);
  };
  walkIn(tree, false);
  for (const m of marked.marks)
    if (!found.has(m.marker))
      throw new SlotError(
        `slot ${where(m)} is inside a string, a comment or a name; a slot must stand alone where a value goes (e.g. const userId = {{${m.name}}})`,
      );
  return tree;
}

function jsSame(
  a: unknown,
  b: unknown,
  slotValue: (marker: string) => JsonValue | undefined,
): string | undefined {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return 'a list differs in length';
    for (let i = 0; i < a.length; i++) {
      const why = jsSame(a[i], b[i], slotValue);
      if (why) return why;
    }
    return undefined;
  }
  if (isNode(a)) {
    if (!isNode(b)) return `${a.type} is missing`;
    if (a.type === 'Identifier') {
      const want = slotValue(a['name'] as string);
      if (want !== undefined)
        return jsLiteralValue(b) === want ? undefined : 'a slot is not one literal equal to its value';
    }
    if (a.type !== b.type) return `${b.type} where the template has ${a.type}`;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !JS_META.has(k)));
    for (const k of keys) {
      const why = jsSame(a[k], b[k], slotValue);
      if (why) return why;
    }
    return undefined;
  }
  if (typeof a === 'object' && a !== null) {
    if (typeof b !== 'object' || b === null) return 'a field differs';
    return jsSame(Object.entries(a), Object.entries(b), slotValue);
  }
  return Object.is(a, b) || (a === undefined && b === undefined) ? undefined : 'a field differs';
}

// ---------------------------------------------------------------- both

/** Checked template trees by language and body (a template serves many tasks; its parse is reused). */
const TREES = new Map<string, PyNode | JsNode>();
function templateTree(marked: Marked, language: ScriptLanguage): PyNode | JsNode {
  const key = `${language}\0${marked.text}`;
  let tree = TREES.get(key);
  if (!tree) {
    tree = language === 'python' ? pyMarkers(marked) : jsMarkers(marked, language);
    if (TREES.size >= 64) TREES.delete(TREES.keys().next().value as string);
    TREES.set(key, tree);
  }
  return tree;
}

/** Values every slot position must take as plain literals (quotes, escapes, separators, negatives). */
const PROBES: Record<'str' | 'int' | 'float', JsonValue[]> = {
  str: ['q\'"\\\n\u2028\u0000x'],
  int: [7, -7],
  float: [1.5, -1.5],
};

/**
 * Problems with where a template body's placeholders sit (empty when every slot stands alone where a
 * value goes): wall 1, then wall 2 tried with probe values of each slot's type.
 */
export function slotPlacementProblems(
  body: string,
  language: ScriptLanguage,
  types: Record<string, 'str' | 'int' | 'float'>,
): string[] {
  const marked = mark(body);
  if (!marked.marks.length) return [];
  try {
    if (language === 'python') pyMarkers(marked);
    else jsMarkers(marked, language);
    for (let i = 0; i < 2; i++) {
      const values: Record<string, JsonValue> = {};
      for (const m of marked.marks) {
        const probes = PROBES[types[m.name] ?? 'str'];
        values[m.name] = probes[i % probes.length] as JsonValue;
      }
      substituteSlots(body, language, values);
    }
    return [];
  } catch (e) {
    return [errorMessage(e)];
  }
}

/**
 * The script for slot values: each placeholder replaced by the value's literal, then checked to have the
 * template's structure with only those literals added. Throws SlotError naming the cause otherwise.
 */
export function substituteSlots(
  body: string,
  language: ScriptLanguage,
  values: Record<string, JsonValue>,
): string {
  const marked = mark(body);
  if (!marked.marks.length) return body;
  const template = templateTree(marked, language);
  let script = '';
  let last = 0;
  const byMarker = new Map<string, JsonValue>();
  for (const m of marked.marks) {
    if (!(m.name in values)) throw new SlotError(`no value for slot ${m.name}`);
    const v = values[m.name] as JsonValue;
    byMarker.set(m.marker, v);
    script += marked.text.slice(last, m.start) + slotLiteral(v, language);
    last = m.end;
  }
  script += marked.text.slice(last);
  const slotValue = (name: string) => byMarker.get(name);
  const why =
    language === 'python'
      ? pySame(template as PyNode, pyTree(script, 'the script with its slot values'), slotValue)
      : jsSame(template, jsTree(script, language, 'the script with its slot values'), slotValue);
  if (why) throw new SlotError(`a slot value changed the script's structure (${why}); refused`);
  return script;
}

/** A literal of a concrete script that equals a proposed slot value, with what it fills when that says. */
interface LiteralHit {
  start: number;
  end: number;
  /** The slot whose value it equals (the first, when two slots have one value). */
  slot: string;
  /** What the literal fills: the parameter it is passed as, the key it is the value of, the name it is assigned to. */
  label?: string;
}

/** The parameter a positional argument fills, by the called tool's or skill's signature. */
const positionalParam = (shape: CallShape | undefined, index: number): string | undefined =>
  shape && !shape.objectArgument && !shape.keywordsOnly
    ? shape.params.filter((p) => p.kind !== 'keyword')[index]?.name
    : undefined;

/**
 * Each string or number literal of `script` equal to a slot value (found in the syntax tree: text inside a
 * longer string, an f-string or a template literal is left alone), in source order, with its label:
 * - an argument: its keyword (`get_user(user_id="u1")`), or the parameter of the called tool or skill it
 *   fills by position (`get_user("u1")`, by `shapes`);
 * - the value of an object or dict key (`get_user({ user_id: "u1" })`, `{"user_id": "u1"}`);
 * - the right side of an assignment to a name or member (`uid = "u1"`, `const uid = "u1"`, `a.uid = "u1"`).
 * Throws SlotError when the script does not parse.
 */
function literalHits(
  script: string,
  values: Record<string, JsonValue>,
  language: ScriptLanguage,
  shapes: Readonly<Record<string, CallShape>> = {},
): LiteralHit[] {
  const hits: LiteralHit[] = [];
  const nameOf = (v: JsonValue | undefined) =>
    v === undefined ? undefined : Object.entries(values).find(([, x]) => x === v)?.[0];
  const shapeOf = (callee: string | undefined) =>
    callee !== undefined && Object.hasOwn(shapes, callee) ? shapes[callee] : undefined;
  if (language === 'python') {
    const pyLabel = (n: PyNode, parent?: PyNode, grand?: PyNode): string | undefined => {
      if (parent?.kind === 'Argument') {
        if (parent.value) return parent.value;
        if (grand?.kind !== 'Call') return undefined;
        const callee = grand.children[0];
        const positional = grand.children.filter((c) => c.kind === 'Argument' && !c.value);
        return positionalParam(
          shapeOf(callee?.kind === 'Name' ? callee.value : undefined),
          positional.indexOf(parent),
        );
      }
      if (parent?.kind === 'Assignment' && n.role === 'rightExpr') {
        const left = parent.children.find((c) => c.role === 'leftExpr');
        const target =
          left?.kind === 'TypeAnnotation' ? left.children.find((c) => c.role === 'valueExpr') : left;
        return target?.kind === 'Name' || target?.kind === 'MemberAccess' ? target.value : undefined;
      }
      if (parent?.kind === 'DictionaryKeyEntry' && n.role === 'valueExpr') {
        const key = parent.children.find((c) => c.role === 'keyExpr');
        const text = key && pyLiteralValue(key);
        return typeof text === 'string' ? text : undefined;
      }
      return undefined;
    };
    const visit = (n: PyNode, inF: boolean, parent?: PyNode, grand?: PyNode) => {
      const f = inF || n.kind === 'FormatString';
      const slot = f ? undefined : nameOf(pyLiteralValue(n));
      if (slot) {
        const label = pyLabel(n, parent, grand);
        hits.push({ start: n.start, end: n.end, slot, ...(label ? { label } : {}) });
      } else for (const c of n.children) visit(c, f, n, parent);
    };
    visit(pyTree(script, 'the script'), false);
  } else {
    const keyName = (k: unknown): string | undefined =>
      isNode(k) && k.type === 'Identifier'
        ? (k['name'] as string)
        : isNode(k) && k.type === 'StringLiteral'
          ? (k['value'] as string)
          : undefined;
    const jsLabel = (parent: JsNode | undefined, field: string, index: number): string | undefined => {
      if (!parent) return undefined;
      if (parent.type === 'ObjectProperty' && field === 'value' && parent['computed'] !== true)
        return keyName(parent['key']);
      if (parent.type === 'VariableDeclarator' && field === 'init') return keyName(parent['id']);
      if (
        (parent.type === 'AssignmentExpression' && field === 'right') ||
        (parent.type === 'AssignmentPattern' && field === 'right')
      ) {
        const left = parent['left'];
        if (isNode(left) && left.type === 'MemberExpression' && left['computed'] !== true)
          return keyName(left['property']);
        return keyName(left);
      }
      if (parent.type === 'CallExpression' && field === 'arguments') {
        const callee = parent['callee'];
        return positionalParam(
          shapeOf(isNode(callee) && callee.type === 'Identifier' ? (callee['name'] as string) : undefined),
          index,
        );
      }
      return undefined;
    };
    const visit = (
      v: unknown,
      inT: boolean,
      parent: JsNode | undefined,
      field: string,
      index: number,
    ): void => {
      if (Array.isArray(v)) return v.forEach((x, i) => visit(x, inT, parent, field, i));
      if (!isNode(v)) return;
      const t = inT || v.type === 'TemplateLiteral';
      const slot = t ? undefined : nameOf(jsLiteralValue(v));
      if (slot && typeof v.start === 'number' && typeof v.end === 'number') {
        const label = jsLabel(parent, field, index);
        hits.push({ start: v.start, end: v.end, slot, ...(label ? { label } : {}) });
      } else for (const [k, x] of Object.entries(v)) if (!JS_META.has(k)) visit(x, t, v, k, 0);
    };
    visit(jsTree(script, language, 'the script'), false, undefined, '', 0);
  }
  return hits.sort((a, b) => a.start - b.start);
}

/**
 * A template body from a concrete script: each string or number literal equal to a proposed slot value
 * becomes that slot's placeholder (found in the syntax tree: text inside a longer string is left alone).
 * A script that does not parse is returned unchanged.
 */
export function literalsToSlots(
  script: string,
  values: Record<string, JsonValue>,
  language: ScriptLanguage,
): string {
  let hits: LiteralHit[];
  try {
    hits = literalHits(script, values, language);
  } catch {
    return script;
  }
  let out = script;
  for (const h of [...hits].sort((a, b) => b.start - a.start))
    out = `${out.slice(0, h.start)}{{${h.slot}}}${out.slice(h.end)}`;
  return out;
}

/** The longest slot name proposed from a script (a longer key or variable name is cut). */
const SLOT_NAME_MAX = 40;

/**
 * Names for proposed slots (`slot1`, `slot2`... in pattern order) after what they fill in `script`: the
 * label of the first literal of the slot's value that has one (the tool or skill parameter it is passed
 * as, the key it is the value of, the name it is assigned to; literalHits), made an identifier (letters,
 * digits, `_`, not starting with a digit) and numbered when taken (`user_id`, `user_id_2`). A slot whose
 * value fills nothing named keeps its name. Returns the new name of each slot; a script that does not
 * parse keeps every name.
 */
export function slotNamesFromScript(
  script: string,
  values: Record<string, JsonValue>,
  language: ScriptLanguage,
  shapes?: Readonly<Record<string, CallShape>>,
): Record<string, string> {
  let hits: LiteralHit[] = [];
  try {
    hits = literalHits(script, values, language, shapes);
  } catch {
    hits = [];
  }
  const names: Record<string, string> = {};
  const taken = new Set<string>();
  for (const slot of Object.keys(values)) {
    const label = hits.find((h) => h.slot === slot && h.label)?.label;
    let base = label?.replace(/[^A-Za-z0-9_]/g, '_').slice(0, SLOT_NAME_MAX) ?? '';
    if (/^[0-9]/.test(base)) base = `_${base}`.slice(0, SLOT_NAME_MAX);
    if (!/[A-Za-z0-9]/.test(base)) base = slot;
    let name = base;
    for (let k = 2; taken.has(name); k++) name = `${base}_${k}`;
    taken.add(name);
    names[slot] = name;
  }
  return names;
}

/** Every problem of a template: its shape, then where its placeholders sit (at creation and at load). */
export function checkTemplate(t: Template): string[] {
  const problems = checkTemplateShape(t);
  return problems.length ? problems : slotPlacementProblems(t.body, t.language, t.slots);
}

/**
 * The script for matched slot values: each `{{slot}}` replaced by a literal of its value, then checked
 * to have the template's structure with only those literals changed.
 */
export function instantiate(t: Template, values: Record<string, JsonValue>): string {
  try {
    return substituteSlots(t.body, t.language, values);
  } catch (e) {
    if (e instanceof SlotError) throw new TemplateError(`template ${t.name}: ${e.message}`);
    throw e;
  }
}

/** Turns a concrete script into a template body: the proposed slot values' literals become placeholders. */
export function templateBody(
  script: string,
  values: Record<string, JsonValue>,
  language: ScriptLanguage,
): string {
  return literalsToSlots(script, values, language);
}

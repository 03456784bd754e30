/**
 * A tool form as data, from the tool's JSON Schema (`parametersSchema`: tools.py parameters, or an MCP
 * tool's inputSchema as its server gave it), nested objects and arrays included, as MCP Inspector renders
 * them. A draft mirrors the schema: text for scalars (what the inputs hold), an object of drafts for an
 * object, a list of drafts for an array; `draftToJson` turns it into the call's arguments, with a message
 * per field path for every bad or missing value. Pure (tested in node). The Try tool form (tools.py tools
 * and MCP tools alike) is this form over `parametersSchema(tool)`; `SchemaField.tsx` draws it.
 */
import type { JsonSchema } from '../../../../src-main/core/tools/schema.ts';
import type { JsonValue } from '../../../../src-main/core/tools/model.ts';
import { coerceText } from './coerce.ts';

export type Draft = string | Draft[] | { [key: string]: Draft };

export type FieldKind = 'enum' | 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'json';

/** The schema's one non-null type (`["number", "null"]` is a number that may be null). */
function mainType(s: JsonSchema): string | undefined {
  const types = Array.isArray(s.type) ? s.type.filter((t) => t !== 'null') : s.type ? [s.type] : [];
  return types.length === 1 ? types[0] : undefined;
}

/** `Optional[...]`: the schema's type includes null. */
const nullable = (s: JsonSchema): boolean => Array.isArray(s.type) && s.type.includes('null');

export function kindOf(s: JsonSchema): FieldKind {
  if (s.enum && s.enum.length > 0) return 'enum';
  switch (mainType(s)) {
    case 'string':
      return 'string';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      return s.properties && Object.keys(s.properties).length > 0 ? 'object' : 'json';
    case 'array':
      return s.items && kindOf(s.items) !== 'json' ? 'array' : 'json';
    default:
      return 'json';
  }
}

/** The text a scalar input starts with: its default, else empty. */
const textOf = (v: JsonValue | undefined, kind: FieldKind): string =>
  v === undefined
    ? ''
    : kind === 'enum' || kind === 'json'
      ? JSON.stringify(v)
      : typeof v === 'string'
        ? v
        : JSON.stringify(v);

/**
 * A fresh draft for a schema: scalars empty (an empty optional field is left out of the arguments, so
 * the tool's own default applies; the placeholder or the select's first option names it), arrays
 * empty or holding their default items.
 */
export function initialDraft(s: JsonSchema): Draft {
  const kind = kindOf(s);
  if (kind === 'object') {
    const out: Record<string, Draft> = {};
    for (const [k, p] of Object.entries(s.properties ?? {})) out[k] = initialDraft(p);
    return out;
  }
  if (kind === 'array')
    return Array.isArray(s.default) ? s.default.map((v) => draftOfValue(s.items ?? {}, v)) : [];
  return '';
}

/** The draft that shows a value (an array's default items). */
function draftOfValue(s: JsonSchema, v: JsonValue): Draft {
  const kind = kindOf(s);
  if (kind === 'object' && v && typeof v === 'object' && !Array.isArray(v)) {
    const out: Record<string, Draft> = {};
    for (const [k, p] of Object.entries(s.properties ?? {}))
      out[k] = k in v ? draftOfValue(p, v[k] as JsonValue) : initialDraft(p);
    return out;
  }
  if (kind === 'array' && Array.isArray(v)) return v.map((x) => draftOfValue(s.items ?? {}, x));
  return textOf(v, kind);
}

export interface Converted {
  /** Absent when the field is empty (an optional field left out of the arguments). */
  value?: JsonValue;
  errors: Record<string, string>;
}

const isEmpty = (d: Draft) => typeof d === 'string' && d.trim() === '';

/**
 * The JSON value of a draft, or a message per field path (`order.items[1].qty`). An empty optional
 * field is left out; an empty required one, or an empty array item, is an error.
 */
export function draftToJson(s: JsonSchema, d: Draft, path = '', required = true): Converted {
  const kind = kindOf(s);
  const fail = (error: string): Converted => ({ errors: { [path || '(arguments)']: error } });
  if (kind === 'object') {
    const obj = typeof d === 'object' && !Array.isArray(d) ? d : {};
    const value: Record<string, JsonValue> = {};
    let errors: Record<string, string> = {};
    const req = new Set(s.required ?? []);
    for (const [k, p] of Object.entries(s.properties ?? {})) {
      const r = draftToJson(p, obj[k] ?? initialDraft(p), path ? `${path}.${k}` : k, req.has(k));
      errors = { ...errors, ...r.errors };
      if (r.value !== undefined) value[k] = r.value;
    }
    if (!required && Object.keys(value).length === 0 && Object.keys(errors).length === 0) return { errors };
    return Object.keys(errors).length ? { errors } : { value, errors };
  }
  if (kind === 'array') {
    const items = Array.isArray(d) ? d : [];
    if (items.length === 0) return required ? { value: [], errors: {} } : { errors: {} };
    const value: JsonValue[] = [];
    let errors: Record<string, string> = {};
    items.forEach((item, i) => {
      const r = draftToJson(s.items ?? {}, item, `${path}[${i}]`, true);
      errors = { ...errors, ...r.errors };
      if (r.value !== undefined) value.push(r.value);
    });
    return Object.keys(errors).length ? { errors } : { value, errors };
  }
  const text = typeof d === 'string' ? d : '';
  if (nullable(s) && /^(None|null)$/.test(text.trim())) return { value: null, errors: {} };
  if (isEmpty(text) && kind !== 'string') return required ? fail('required') : { errors: {} };
  if (text === '' && kind === 'string') return required ? fail('required') : { errors: {} };
  const done = (r: { ok: true; value: JsonValue } | { ok: false; error: string }): Converted =>
    r.ok ? { value: r.value, errors: {} } : fail(r.error);
  switch (kind) {
    case 'string':
      return { value: text, errors: {} };
    case 'integer':
      return done(coerceText('int', text));
    case 'number':
      return done(coerceText('float', text));
    case 'boolean':
      return done(coerceText('bool', text));
    case 'enum': {
      const r = coerceText('any', text);
      if (r.ok && (s.enum ?? []).some((o) => JSON.stringify(o) === JSON.stringify(r.value))) return done(r);
      return fail(`expects one of ${(s.enum ?? []).map((o) => JSON.stringify(o)).join(', ')}`);
    }
    default:
      return done(mainType(s) === 'object' ? coerceText('dict', text) : coerceText('any', text));
  }
}

const ITEM_NAMES: Partial<Record<FieldKind, string>> = {
  string: 'strings',
  integer: 'integers',
  number: 'numbers',
  boolean: 'true/false values',
  object: 'JSON objects',
};

/** A scalar or JSON input's placeholder: its examples, then its default, then the shape it expects. */
export function placeholderOf(s: JsonSchema): string {
  const ex = s.examples?.length
    ? `e.g. ${s.examples.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join(', ')}`
    : '';
  const def = s.default !== undefined ? `default ${JSON.stringify(s.default)}` : '';
  const kind = kindOf(s);
  const type = mainType(s);
  const item = s.items ? ITEM_NAMES[kindOf(s.items)] : undefined;
  const shape =
    kind === 'integer'
      ? 'integer'
      : kind === 'number'
        ? 'number'
        : kind === 'json'
          ? type === 'array'
            ? item
              ? `JSON list of ${item}`
              : 'JSON list'
            : type === 'object'
              ? 'JSON object'
              : 'JSON'
          : '';
  return [ex, def].filter(Boolean).join(' · ') || shape;
}

/** The first option of a select (enum, true/false): the default it leaves to the tool, or a prompt. */
export const emptyOption = (s: JsonSchema): string =>
  s.default !== undefined ? `default (${JSON.stringify(s.default)})` : '— choose —';

/** The type a field reads as next to its name (`integer`, `list[number]`, `object`). */
export function typeLabel(s: JsonSchema): string {
  const t = mainType(s) ?? 'any';
  if (t === 'array' && s.items) return `list[${typeLabel(s.items)}]`;
  return t + (nullable(s) ? ' | null' : '');
}

/**
 * Turns the text of a "Try tool" form field into the JSON value of a tool argument, by parameter type.
 * Pure: every bad input becomes a message that says what the field expects, never a thrown error.
 */
import type { JsonValue, ParamType, ToolParameter } from '../../../../src-main/core/tools/model.ts';

export type Coerced = { ok: true; value: JsonValue } | { ok: false; error: string };

const parseJson = (text: string): { ok: true; value: JsonValue } | { ok: false; error: string } => {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
};

const TRUE = new Set(['true', 'True', '1', 'yes']);
const FALSE = new Set(['false', 'False', '0', 'no']);

/** Coerces a non-empty text to `type`. */
export function coerceText(type: ParamType, text: string): Coerced {
  const t = text.trim();
  switch (type) {
    case 'str':
      return { ok: true, value: text };
    case 'int':
      if (!/^[+-]?\d+$/.test(t))
        return { ok: false, error: `expects an integer (e.g. 3), got ${JSON.stringify(text)}` };
      if (!Number.isSafeInteger(Number(t))) return { ok: false, error: 'this integer is too large' };
      return { ok: true, value: Number(t) };
    case 'float': {
      const n = Number(t);
      if (t === '' || !Number.isFinite(n) || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t))
        return { ok: false, error: `expects a number (e.g. 2.5), got ${JSON.stringify(text)}` };
      return { ok: true, value: n };
    }
    case 'bool':
      if (TRUE.has(t)) return { ok: true, value: true };
      if (FALSE.has(t)) return { ok: true, value: false };
      return { ok: false, error: `expects true or false, got ${JSON.stringify(text)}` };
    case 'list': {
      const r = parseJson(t);
      if (!r.ok) return { ok: false, error: `expects a JSON list (e.g. ["a", 1]): ${r.error}` };
      if (!Array.isArray(r.value))
        return { ok: false, error: 'expects a JSON list (e.g. ["a", 1]), not a single value' };
      return r;
    }
    case 'dict': {
      const r = parseJson(t);
      if (!r.ok) return { ok: false, error: `expects a JSON object (e.g. {"k": 1}): ${r.error}` };
      if (r.value === null || typeof r.value !== 'object' || Array.isArray(r.value))
        return { ok: false, error: 'expects a JSON object (e.g. {"k": 1})' };
      return r;
    }
    case 'any': {
      // JSON when it parses (numbers, lists, objects, true/false/null), the text itself otherwise.
      const r = parseJson(t);
      return r.ok ? r : { ok: true, value: text };
    }
  }
}

const ITEM_NAMES: Record<ParamType, string> = {
  str: 'strings',
  int: 'integers',
  float: 'numbers',
  bool: 'true/false values',
  list: 'lists',
  dict: 'JSON objects',
  any: 'values',
};

/** A list item fits `type` (JSON numbers for float, whole numbers for int...). */
function itemFits(type: ParamType, v: JsonValue): boolean {
  switch (type) {
    case 'str':
      return typeof v === 'string';
    case 'int':
      return typeof v === 'number' && Number.isInteger(v);
    case 'float':
      return typeof v === 'number';
    case 'bool':
      return typeof v === 'boolean';
    case 'list':
      return Array.isArray(v);
    case 'dict':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'any':
      return true;
  }
}

/**
 * Coerces a field's text for its parameter: the type, then a list's item type (`list[float]` refuses
 * `["a"]`), and `None`/`null` for an Optional parameter.
 */
export function coerceParam(p: ToolParameter, text: string): Coerced {
  if (p.nullable && /^(None|null)$/.test(text.trim())) return { ok: true, value: null };
  const c = coerceText(p.type, text);
  if (!c.ok || p.type !== 'list' || !p.items || !Array.isArray(c.value)) return c;
  const items = p.items;
  const bad = c.value.findIndex((v) => !itemFits(items, v));
  if (bad >= 0)
    return {
      ok: false,
      error: `expects a list of ${ITEM_NAMES[items]} (list[${items}]); item ${bad + 1} is ${JSON.stringify(c.value[bad])}`,
    };
  return c;
}

/** What the form holds for one parameter: free text, or the index of a chosen option. */
export type FieldValue = { kind: 'text'; text: string } | { kind: 'option'; index: number | undefined };

export interface FormCheck {
  args: Record<string, JsonValue>;
  errors: Record<string, string>;
}

export const isEmptyField = (v: FieldValue | undefined): boolean =>
  !v || (v.kind === 'text' ? v.text.trim() === '' : v.index === undefined);

/**
 * Checks a whole form: required parameters must be filled, every filled field must coerce. Empty
 * optional fields are left out so the tool's own default applies.
 */
export function checkForm(params: ToolParameter[], values: Record<string, FieldValue>): FormCheck {
  const args: Record<string, JsonValue> = {};
  const errors: Record<string, string> = {};
  for (const p of params) {
    const v = values[p.name];
    if (isEmptyField(v) || !v) {
      if (p.required) errors[p.name] = `${p.displayName ?? p.name} is required`;
      continue;
    }
    if (v.kind === 'option') {
      const opt = v.index === undefined ? undefined : p.options?.[v.index];
      if (opt === undefined) errors[p.name] = 'pick one of the options';
      else args[p.name] = opt;
      continue;
    }
    const c = coerceParam(p, v.text);
    if (c.ok) args[p.name] = c.value;
    else errors[p.name] = c.error;
  }
  return { args, errors };
}

/** A JSON value as text, as Python-ish readers expect it (strings quoted). */
export const showValue = (v: JsonValue | undefined): string => (v === undefined ? '' : JSON.stringify(v));

/** The placeholder of a text field: examples first, then the default, then the expected shape. */
export function placeholderFor(p: ToolParameter): string {
  const ex = p.examples?.length
    ? `e.g. ${p.examples.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join(', ')}`
    : '';
  const def = !p.required && p.default !== undefined ? `default ${JSON.stringify(p.default)}` : '';
  const shape =
    p.type === 'list'
      ? p.items
        ? `JSON list of ${ITEM_NAMES[p.items]}`
        : 'JSON list'
      : p.type === 'dict'
        ? 'JSON object'
        : p.type === 'bool'
          ? 'true / false'
          : p.type === 'int'
            ? 'integer'
            : p.type === 'float'
              ? 'number'
              : '';
  return [ex, def].filter(Boolean).join(' · ') || shape;
}

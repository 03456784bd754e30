/**
 * Turns the text of a scalar "Try tool" form field into a JSON value of one type (schema-form.ts picks
 * the type from the tool's JSON Schema).
 * Pure: every bad input becomes a message that says what the field expects, never a thrown error.
 */
import type { JsonValue, ParamType } from '../../../../src-main/core/tools/model.ts';

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

/** A JSON value as text, as Python-ish readers expect it (strings quoted). */
export const showValue = (v: JsonValue | undefined): string => (v === undefined ? '' : JSON.stringify(v));

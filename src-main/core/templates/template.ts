/**
 * Templates, the ratchet: a verified script saved with an intent pattern (`total spend of user {user_id}`)
 * serves a matching intent later with no LLM call. Slot values enter the script only as literals
 * (`{{user_id}}` in the body becomes `"u1"`), never as code: a placeholder must stand alone where a value
 * goes, and the substituted script must have the template's structure (slots.ts). An intent cannot add a
 * call.
 */
import type { ScriptLanguage } from '../lang/violation.ts';
import type { JsonValue } from '../tools/model.ts';

export type SlotType = 'str' | 'int' | 'float';

export interface TemplateExample {
  intent: string;
  /** When set, `template test` also checks the emitted result equals this. */
  expect?: JsonValue;
}

export interface Template {
  name: string;
  /** Intent pattern with `{slot}` placeholders; matched case-insensitively, whitespace-normalized. */
  pattern: string;
  slots: Record<string, SlotType>;
  sandbox: string;
  kit?: string;
  language: ScriptLanguage;
  /** Script body with `{{slot}}` placeholders where slot literals go. */
  body: string;
  examples: TemplateExample[];
  description?: string;
  /** Run the template was promoted from. */
  origin?: string;
}

/** A saved template as front ends see it: where it is saved and how it served real tasks. */
export interface TemplateView extends Template {
  file: string;
  successes: number;
  failures: number;
  lastUsed: number | null;
}

/** `template test`: each saved example run in the sandbox. */
export interface TemplateTestResult {
  name: string;
  examples: {
    intent: string;
    matched: boolean;
    success: boolean;
    data?: JsonValue;
    expected?: JsonValue;
    error?: string;
  }[];
  passed: boolean;
}

/** A template proposed from a run's script (the editor's starting point). */
export interface TemplateProposal {
  pattern: string;
  slots: Record<string, SlotType>;
  body: string;
  sandbox: string;
  kit?: string;
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

const SLOT = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/**
 * A `str` slot holds one word (`u1`, `#104`, `x');...`) or a quoted text (`"New York"`, 'a b', `a b`):
 * never several bare words, so a task that says more than the pattern ("email of user u1 and u2",
 * "... u2 please", "... whose name is Ada") is not served with the extra words as the slot's value.
 */
const SLOT_PATTERNS: Record<SlotType, string> = {
  str: '("[^"]*"|\'[^\']*\'|`[^`]*`|\\S+?)',
  int: '([-+]?\\d+)',
  float: '([-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?)',
};
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const normalize = (s: string) => s.trim().replace(/\s+/g, ' ');

/** Slot names in pattern order. */
export function patternSlots(pattern: string): string[] {
  return [...pattern.matchAll(SLOT)].map((m) => m[1] as string);
}

/**
 * A `{` or `}` of the pattern that is not part of a slot (`user {id`, `{ id }`, `{1st}`), said with
 * where it is and what a slot looks like; undefined when there is none. Such a pattern was saved and
 * matched only tasks holding the brace itself, so the template never served the task it was made for.
 */
function strayBrace(pattern: string): string | undefined {
  const rest = pattern.replace(SLOT, (m) => ' '.repeat(m.length));
  const at = rest.search(/[{}]/);
  if (at < 0) return undefined;
  return `the pattern's "${rest[at]}" at character ${at + 1} (${JSON.stringify(pattern)}) is not part of a slot: a slot is {name}, a letter or _ then letters, digits or _ (e.g. "email of user {user_id}")`;
}

/**
 * Checks a template's internal consistency (names, pattern, slots); returns the problems (empty when
 * fine). Where its placeholders sit is checked by `checkTemplate` (slots.ts), which parses the body.
 */
export function checkTemplateShape(t: Template): string[] {
  const problems: string[] = [];
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(t.name))
    problems.push(`invalid template name ${JSON.stringify(t.name)}`);
  const stray = strayBrace(t.pattern);
  if (stray) problems.push(stray);
  const inPattern = patternSlots(t.pattern);
  if (new Set(inPattern).size !== inPattern.length) problems.push('a slot appears twice in the pattern');
  for (const s of inPattern) if (!t.slots[s]) problems.push(`slot {${s}} has no type (add it to slots)`);
  for (const s of Object.keys(t.slots))
    if (!inPattern.includes(s)) problems.push(`slot ${s} is not in the pattern`);
  for (const m of t.body.matchAll(/\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g)) {
    if (!t.slots[m[1] as string]) problems.push(`the body uses {{${m[1]}}}, which is not a slot`);
  }
  if (!t.body.trim()) problems.push('the body is empty');
  return problems;
}

/** Trailing `.`, `!` or `?` (and spaces) are not part of an intent: "... u1?" and "... u1" are one intent. */
const stripEnd = (s: string) => s.replace(/[\s.!?]+$/, '');
/** What is matched: whitespace-normalized, the sentence's closing punctuation dropped. */
const matchText = (s: string) => stripEnd(normalize(s));

/** A pattern as pieces: each literal character, or a slot (its regex source). */
function pieces(t: Template): { re: string; slot?: string; at: number }[] {
  const out: { re: string; slot?: string; at: number }[] = [];
  const pattern = matchText(t.pattern);
  let last = 0;
  const literal = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const c = pattern[i] as string;
      out.push({ re: c === ' ' ? '\\s+' : escapeRe(c), at: i });
    }
  };
  for (const m of pattern.matchAll(SLOT)) {
    literal(last, m.index ?? 0);
    const name = m[1] as string;
    out.push({ re: SLOT_PATTERNS[t.slots[name] ?? 'str'], slot: name, at: m.index ?? 0 });
    last = (m.index ?? 0) + m[0].length;
  }
  literal(last, pattern.length);
  return out;
}

function compile(t: Template): RegExp {
  return new RegExp(
    `^${pieces(t)
      .map((p) => p.re)
      .join('')}$`,
    'i',
  );
}

/** A miss's `found` when the task ends where the pattern goes on. */
export const NO_MORE = '(the end of the task)';

/** Why an intent misses a template: how far it matches and what the pattern expected there. */
export interface TemplateMiss {
  template: string;
  pattern: string;
  /** 0-based position in the (whitespace-normalized) intent where it stops matching the pattern. */
  position: number;
  /** The pattern from the point where the intent differs. */
  expected: string;
  /** The intent from that point. */
  found: string;
}

/**
 * How an intent differs from one template: the longest prefix of the pattern (up to a literal character)
 * that a prefix of the intent matches, and the first position where they part.
 */
export function templateMiss(t: Template, intent: string): TemplateMiss {
  const text = matchText(intent);
  const ps = pieces(t);
  const pattern = matchText(t.pattern);
  let best = { pieces: 0, position: 0 };
  let re = '';
  for (let i = 0; i < ps.length; i++) {
    re += (ps[i] as { re: string }).re;
    if ((ps[i] as { slot?: string }).slot) continue;
    const m = new RegExp(`^${re}`, 'i').exec(text);
    if (m) best = { pieces: i + 1, position: m[0].length };
  }
  // All of the pattern matched a prefix: the intent goes on past its end.
  const at = best.pieces < ps.length ? (ps[best.pieces] as { at: number }).at : pattern.length;
  return {
    template: t.name,
    pattern: t.pattern,
    position: best.position,
    expected: pattern.slice(at) || '(the end of the pattern)',
    found: text.slice(best.position) || NO_MORE,
  };
}

/** The template an intent came closest to (the longest matched prefix), with where it differs. */
export function nearestTemplate(templates: readonly Template[], intent: string): TemplateMiss | undefined {
  let best: TemplateMiss | undefined;
  for (const t of templates) {
    const m = templateMiss(t, intent);
    if (!best || m.position > best.position) best = m;
  }
  return best;
}

/** Matches an intent; returns the typed slot values, or undefined. */
export function matchTemplate(t: Template, intent: string): Record<string, JsonValue> | undefined {
  const m = compile(t).exec(matchText(intent));
  if (!m) return undefined;
  const names = patternSlots(matchText(t.pattern));
  const values: Record<string, JsonValue> = {};
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    let raw = (m[i + 1] ?? '').trim();
    const type = t.slots[name] ?? 'str';
    if (type === 'str') {
      const q = /^(["'`])(.*)\1$/s.exec(raw);
      if (q) raw = q[2] ?? '';
      values[name] = raw;
    } else {
      const n = Number(raw);
      if (!Number.isFinite(n) || (type === 'int' && !Number.isSafeInteger(n))) return undefined;
      values[name] = n;
    }
  }
  return values;
}

/**
 * Proposes a pattern and slots from a task: quoted strings, ids like u1/p3/#104 and numbers become slots,
 * named `slot1`, `slot2`... in order. A template proposed from a run renames them after what they fill in
 * its script (`user_id`: propose.ts, proposeTemplate).
 */
export function proposePattern(task: string): {
  pattern: string;
  slots: Record<string, SlotType>;
  values: Record<string, JsonValue>;
} {
  const slots: Record<string, SlotType> = {};
  const values: Record<string, JsonValue> = {};
  let i = 0;
  const slot = (type: SlotType, value: JsonValue) => {
    const name = `slot${++i}`;
    slots[name] = type;
    values[name] = value;
    return `{${name}}`;
  };
  const pattern = normalize(task).replace(
    /"([^"]*)"|'([^']*)'|\b([A-Za-z]+\d+[A-Za-z\d]*)\b|(?<![\w.])(-?\d+\.\d+|-?\d+)(?![\w.])/g,
    (_m, dq, sq, id, num) => {
      if (dq !== undefined) return slot('str', dq);
      if (sq !== undefined) return slot('str', sq);
      if (id !== undefined) return slot('str', id);
      return String(num).includes('.') ? slot('float', Number(num)) : slot('int', Number(num));
    },
  );
  return { pattern, slots, values };
}

/**
 * The `bidi-control` rule, shared by the Python and the JS/TS validator: a bidirectional control
 * character (the embeddings, overrides and isolates, and the implicit marks) anywhere in a script's
 * source, in code, comments or strings. They reorder how a line is displayed, not how it runs ("Trojan
 * Source", CVE-2021-42574): `if tier != "gold<U+202E> <U+2066># only for gold<U+2069> <U+2066>":` reads as a
 * comparison with "gold" and a comment in an editor that applies them, and runs as a comparison with a
 * longer string. A script that really needs one in a string writes it as an escape (`"\u202e"`), which
 * reads as what it is.
 */
import type { Violation } from './violation.ts';

/** The characters refused, by code point, with their Unicode names. */
export const BIDI_CONTROLS: Readonly<Record<number, string>> = {
  0x061c: 'ARABIC LETTER MARK',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
};

/** What the rule catches, as both validators' rule tables say it (for docs and the UI). */
export const BIDI_RULE =
  'a bidirectional control character (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) anywhere, comments and strings included ("Trojan Source"): write it as an escape';

/** One scan of the whole source: a script without any (nearly all) costs one failed regex search. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Line breaks as both validators count lines (Babel also counts U+2028/U+2029, Python does not). */
const PY_BREAK = /\r\n|\r|\n/g;
const JS_BREAK = /\r\n|\r|\n|\u2028|\u2029/g;

const hex = (cp: number): string => cp.toString(16).toUpperCase().padStart(4, '0');

/**
 * Every bidirectional control character of `code`, one violation each, at its line and column (1-based;
 * the column counts UTF-16 code units, as the validators' other columns do).
 */
export function bidiViolations(code: string, language: 'python' | 'js'): Violation[] {
  BIDI.lastIndex = 0;
  if (!BIDI.test(code)) return [];
  const breaks = language === 'python' ? PY_BREAK : JS_BREAK;
  const out: Violation[] = [];
  let line = 1;
  let lineStart = 0;
  breaks.lastIndex = 0;
  let nextBreak = breaks.exec(code);
  BIDI.lastIndex = 0;
  for (let m = BIDI.exec(code); m !== null; m = BIDI.exec(code)) {
    while (nextBreak !== null && nextBreak.index < m.index) {
      line++;
      lineStart = nextBreak.index + nextBreak[0].length;
      nextBreak = breaks.exec(code);
    }
    const cp = m[0].charCodeAt(0);
    const column = m.index - lineStart + 1;
    out.push({
      rule: 'bidi-control',
      message:
        `U+${hex(cp)} (${BIDI_CONTROLS[cp] ?? 'bidirectional control'}), a bidirectional control character, ` +
        `is refused anywhere in a script (if a string really needs it, write it as the escape ` +
        `"\\u${hex(cp).toLowerCase()}" inside the string). It makes a line read other than it runs ` +
        `("Trojan Source"), in code, comments and strings alike: remove it`,
      line,
      column,
      endLine: line,
      endColumn: column + 1,
    });
  }
  return out;
}

/**
 * A literal the host writes into a script it makes (a JSON text: a template's slot value, a skill test's
 * arguments or result) with each bidirectional control written as its escape (`\u202e`), so the script
 * passes the rule above and still holds the same value: they only ever stand inside the JSON's strings,
 * where `\uXXXX` means the same in JavaScript and Python.
 */
export function escapeBidi(literal: string): string {
  return literal.replace(BIDI, (c) => `\\u${hex(c.charCodeAt(0)).toLowerCase()}`);
}

/**
 * The first bidirectional control character of `text`, if any: its UTF-16 index, code point, and a
 * sentence naming it (U+XXXX and its Unicode name) for a refusal.
 */
export function firstBidi(text: string): { index: number; codePoint: number; named: string } | undefined {
  BIDI.lastIndex = 0;
  const m = BIDI.exec(text);
  BIDI.lastIndex = 0;
  if (m === null) return undefined;
  const cp = m[0].charCodeAt(0);
  return {
    index: m.index,
    codePoint: cp,
    named: `U+${hex(cp)} (${BIDI_CONTROLS[cp] ?? 'bidirectional control'})`,
  };
}

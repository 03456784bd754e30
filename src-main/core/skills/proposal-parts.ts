/**
 * What the Python and the JS/TS skill proposers (propose.ts, propose-js.ts) share: the selected lines'
 * text and the manual's type names of the values the run saw.
 */
import type { JsonValue } from '../tools/model.ts';

/** Lines taken out of a script body with their common indentation removed (a proposed skill's body). */
export const dedent = (lines: string[]): string[] => {
  const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut));
};

/**
 * The script's lines (CRLF read as LF), the selection `start`-`end` (1-based, inclusive) held within
 * them, and the selected lines dedented with no trailing blank, ending in one newline.
 */
export function selectLines(body: string, from: number, to: number) {
  const all = body.replace(/\r\n/g, '\n').split('\n');
  const start = Math.max(1, Math.min(from, all.length));
  const end = Math.max(start, Math.min(to, all.length));
  const selected =
    dedent(all.slice(start - 1, end))
      .join('\n')
      .replace(/\s+$/, '') + '\n';
  return { all, start, end, selected };
}

/** A value's type as the manual names it (`any` for null: its type is not known from the value). */
export const valueType = (v: JsonValue): string =>
  typeof v === 'string'
    ? 'str'
    : typeof v === 'number'
      ? Number.isInteger(v)
        ? 'int'
        : 'float'
      : typeof v === 'boolean'
        ? 'bool'
        : Array.isArray(v)
          ? 'list'
          : v === null
            ? 'any'
            : 'dict';

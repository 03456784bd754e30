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

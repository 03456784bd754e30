/** A suite file's text -> a validated suite, or problems with line numbers (TOML syntax or schema). */
import { parse, TomlError } from 'smol-toml';
import { validateSuite } from '../../core/suites/schema.ts';
import type { SuiteParse } from '../../core/suites/schema.ts';

export function parseSuite(text: string): SuiteParse {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (e) {
    if (e instanceof TomlError)
      return {
        ok: false,
        problems: [
          { line: e.line, column: e.column, path: '', message: e.message.split('\n')[0] ?? e.message },
        ],
      };
    throw e;
  }
  return validateSuite(raw, text);
}

import type { Violation } from '../../../../src-main/core/lang/violation.ts';

/**
 * Why a Save of tools.py was held back: its syntax errors (saved, the sandbox could not load its tools;
 * held back, it keeps the file saved before, and the message says so rather than that it is broken).
 */
export interface SaveHold {
  count: number;
  first: Violation;
  message: string;
}

/**
 * Saving tools.py with syntax errors is held back with a message that says so and points at the first
 * error; the person may still save anyway (a draft in progress) with a second, explicit click.
 */
export function saveHold(problems: readonly Violation[]): SaveHold | undefined {
  const syntax = problems
    .filter((p) => p.rule === 'syntax')
    .sort((a, b) => a.line - b.line || a.column - b.column);
  const first = syntax[0];
  if (!first) return undefined;
  const n = syntax.length;
  return {
    count: n,
    first,
    message: `Not saved: tools.py has ${n} syntax error${n > 1 ? 's' : ''}, the first at line ${first.line}:${first.column} (${first.message}). The sandbox keeps the tools.py saved before: saved as it is, it could not load its tools.`,
  };
}

import { describe, expect, it } from 'vitest';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import { saveHold } from './save-check.ts';

const v = (rule: string, line: number, column = 1, message = 'bad'): Violation => ({
  rule,
  message,
  line,
  column,
  endLine: line,
  endColumn: column + 1,
});

describe('saveHold', () => {
  it('holds a save with syntax errors back, counting them and naming the first by position', () => {
    const h = saveHold([
      v('syntax', 9, 3, 'expected ":"'),
      v('tool-metadata', 2),
      v('syntax', 4, 7, 'unexpected indent'),
    ]);
    expect(h?.count).toBe(2);
    expect(h?.first.line).toBe(4);
    expect(h?.message).toBe(
      'Not saved: tools.py has 2 syntax errors, the first at line 4:7 (unexpected indent). The sandbox keeps the tools.py saved before: saved as it is, it could not load its tools.',
    );
  });
  it('lets a save through when the only problems are not syntax errors', () => {
    expect(saveHold([v('tool-metadata', 2)])).toBeUndefined();
    expect(saveHold([])).toBeUndefined();
  });
});

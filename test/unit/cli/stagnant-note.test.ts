/**
 * The progress line of an INTERACTIVE step that repeated an earlier failed one says which step: the step
 * before, or an older one (A-B-A: the model is told to change course; A-B-A-B: the run stops). Before,
 * every stop read "the same failure as the step before", also when step 4 repeated step 2.
 */
import { describe, expect, it } from 'vitest';
import { stagnantNote } from '../../../src-main/cli/commands/run.ts';

describe('stagnantNote', () => {
  it('names the step repeated', () => {
    expect(stagnantNote({ n: 2, stagnant: true, final: true, repeats: 1 })).toBe(
      ' (the same failure as the step before: stopped as a loop)',
    );
    expect(stagnantNote({ n: 3, stagnant: false, final: false, repeats: 1 })).toBe(
      ' (the same failure as step 1: the model is told to change course)',
    );
    expect(stagnantNote({ n: 4, stagnant: true, final: true, repeats: 2 })).toBe(
      ' (the same failure as step 2: stopped as a loop)',
    );
  });

  it('a record from before `repeats` reads as before; data steps and plain steps are unchanged', () => {
    expect(stagnantNote({ n: 2, stagnant: true, final: true })).toBe(
      ' (the same failure as the step before: stopped as a loop)',
    );
    expect(stagnantNote({ n: 3, data: 1, stagnant: true, final: false })).toBe(
      ' (stagnant: forcing a final step)',
    );
    expect(stagnantNote({ n: 3, data: 1, stagnant: true, final: true })).toBe(' (stagnant: no step left)');
    expect(stagnantNote({ n: 1, stagnant: false, final: false })).toBe('');
  });
});

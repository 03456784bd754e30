/**
 * Results kept for a reload (Try tool's outcomes, a skill's Try it) in the tab's real sessionStorage
 * (Chromium's, about 5 M characters for the page), beside the unsaved edits the same storage keeps.
 */
import { afterEach, expect, it } from 'vitest';
import { keepNewest, keptMap } from './session-draft.ts';
import { MAX_KEPT_OUTCOME } from '../views/tools/try-tool.ts';
import { KEPT_OUTCOMES } from '../views/tools/drafts.ts';

afterEach(() => sessionStorage.clear());

it("Try results kept for a reload leave room in the tab's storage for an unsaved tools.py", () => {
  sessionStorage.clear();
  const outcomes = keptMap('probe-try-outcomes');
  const skillTries = keptMap('probe-skill-try');
  // A tool's answer just under the size kept, much of it quotes (HTML, JSON in a string): escaped again
  // in the map, each entry takes about twice its length.
  const answer = JSON.stringify({ call: { result: { value: '"'.repeat(99_000) } }, args: {}, at: 1 });
  expect(answer.length).toBeLessThanOrEqual(MAX_KEPT_OUTCOME);
  for (let i = 0; i < 10; i++) {
    keepNewest(outcomes, `ecommerce/tool_${i}`, answer, KEPT_OUTCOMES);
    keepNewest(skillTries, `ecommerce/skill_${i}`, answer, 10);
  }
  const drafts = keptMap('probe-tools.py');
  drafts.set('ecommerce', `def edited():\n    return ${'1'.repeat(1_000_000)}\n`);
  // What a reload reads back: the unsaved edit, and the newest results of both.
  expect(keptMap('probe-tools.py').get('ecommerce')?.length).toBe(drafts.get('ecommerce')?.length);
  const outcomesBack = keptMap('probe-try-outcomes');
  const triesBack = keptMap('probe-skill-try');
  expect(outcomesBack.get('ecommerce/tool_9')).toBe(answer);
  expect(triesBack.get('ecommerce/skill_9')).toBe(answer);
  // The oldest went first, and what is kept is what the page has.
  expect([...outcomesBack.keys()]).toEqual([...outcomes.keys()]);
  expect(outcomesBack.has('ecommerce/tool_0')).toBe(false);
});

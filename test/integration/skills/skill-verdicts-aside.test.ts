/**
 * A `.toolsmith/skill-tests.json` that is not a file of verdicts is kept aside when the next verdict is
 * written (`skill-tests.json.unreadable-<time>`). Two set aside in the same millisecond (a second
 * process's, once the first's new file was damaged again) had the same name, and the second rename
 * replaced the first file kept aside: it was lost. The clock is held at one instant so both fall in it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SkillFiles } from '../../../src-main/infra/workspace/skill-files.ts';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'toolsmith-verdicts-aside-'));
  mkdirSync(join(ws, '.toolsmith'));
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  rmSync(ws, { recursive: true, force: true });
});

describe('damaged skill-tests.json files kept aside', () => {
  it('two set aside in the same millisecond are both kept', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-07T04:30:00.123Z'));
    const file = join(ws, '.toolsmith', 'skill-tests.json');
    const verdict = { hash: 'h', passed: true, at: 1, failures: [] };
    writeFileSync(file, '<<<<<<< HEAD\nthe first damaged file\n');
    new SkillFiles(ws).setVerdict('ecommerce', 'user_tier', verdict);
    writeFileSync(file, 'the second damaged file\n');
    new SkillFiles(ws).setVerdict('ecommerce', 'user_tier2', verdict);
    const aside = readdirSync(join(ws, '.toolsmith'))
      .filter((f) => f.startsWith('skill-tests.json.unreadable-'))
      .sort();
    // Before: one file, the second's (the first was renamed over).
    expect(aside).toEqual([
      'skill-tests.json.unreadable-2026-12-07T04-30-00-123Z',
      'skill-tests.json.unreadable-2026-12-07T04-30-00-123Z-2',
    ]);
    expect(aside.map((f) => readFileSync(join(ws, '.toolsmith', f), 'utf8'))).toEqual([
      '<<<<<<< HEAD\nthe first damaged file\n',
      'the second damaged file\n',
    ]);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object)).toEqual(['ecommerce/user_tier2']);
  });
});

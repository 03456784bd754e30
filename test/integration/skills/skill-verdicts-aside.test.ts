/**
 * A `.toolsmith/skill-tests.json` that is not a file of verdicts is kept aside when the next verdict is
 * written (`skill-tests.json.unreadable-<time>`). Two set aside in the same millisecond (a second
 * process's, once the first's new file was damaged again) had the same name, and the second rename
 * replaced the first file kept aside: it was lost. The clock is held at one instant so both fall in it.
 * What the process says of a file it kept aside lasts while that file is there.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
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

  it('the note of a file kept aside is said while that file is there, and goes once it is removed or put back', () => {
    const file = join(ws, '.toolsmith', 'skill-tests.json');
    const verdict = { hash: 'h', passed: true, at: 1, failures: [] };
    const asideNow = () =>
      readdirSync(join(ws, '.toolsmith')).filter((f) => f.startsWith('skill-tests.json.unreadable-'));
    const files = new SkillFiles(ws);
    // Put back once fixed: the person moves the file kept aside back over the new one.
    writeFileSync(file, `${JSON.stringify({ 'ecommerce/user_tier': verdict })}\n`.slice(0, 20));
    files.setVerdict('ecommerce', 'user_tier2', verdict);
    const [first] = asideNow();
    expect(files.verdictsProblem()).toMatch(/skill-tests\.json was not JSON .*: it is kept as .*unreadable-/);
    writeFileSync(
      join(ws, '.toolsmith', first as string),
      JSON.stringify({ 'ecommerce/user_tier': verdict }),
    );
    expect(files.verdictsProblem()).toMatch(/it is kept as/);
    renameSync(join(ws, '.toolsmith', first as string), file);
    // Before: still "it is kept as ..." for as long as the process lived.
    expect(files.verdictsProblem()).toBeUndefined();
    expect(Object.keys(files.verdicts())).toEqual(['ecommerce/user_tier']);
    // Removed: the person chose to lose it.
    writeFileSync(file, 'null\n');
    files.setVerdict('ecommerce', 'user_tier2', verdict);
    expect(files.verdictsProblem()).toMatch(
      /was not a JSON object of skill test verdicts \(it holds null\): it is kept as/,
    );
    for (const f of asideNow()) rmSync(join(ws, '.toolsmith', f));
    expect(files.verdictsProblem()).toBeUndefined();
  });
});

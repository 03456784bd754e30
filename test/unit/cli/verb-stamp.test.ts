/**
 * The verb cache's answers are keyed by the code that answered too (verb-cache.ts, codeStamp): run from
 * the sources (a clone), the newest time of any file under src-main, so an edited validator or a pulled
 * commit without a new version never answers with what the code before it said.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedVerb, codeStamp, helpKey, packageVersion, verbKey } from '../../../src-main/cli/verb-cache.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace('toolsmith-verb-stamp-');
afterAll(() => removeWorkspace(ws));

function newest(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n = Math.max(n, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return n;
}

describe('the code stamp of the verb cache', () => {
  it('from the sources: the newest time of a file under src-main', () => {
    expect(codeStamp()).toBe(`sources:${newest(join(repoRoot, 'src-main'))}`);
  });

  it('is part of every key: the same command line under other code is another key', () => {
    const argv = ['--workspace', ws, 'kit', 'list'];
    const c = cachedVerb(argv, packageVersion());
    expect(c?.key).toBe(verbKey(ws, argv, `${packageVersion()}\0${codeStamp()}`));
    expect(c?.key).not.toBe(verbKey(ws, argv, `${packageVersion()}\0sources:0`));
    expect(c?.key).not.toBe(verbKey(ws, argv, packageVersion()));
  });

  it('is part of the key of sandboxes and of every help: other code, another key', () => {
    const argv = ['--workspace', ws, 'sandboxes'];
    const c = cachedVerb(argv, packageVersion());
    expect(c?.help).toBe(false);
    expect(c?.key).toBe(verbKey(ws, argv, `${packageVersion()}\0${codeStamp()}`));
    expect(c?.key).not.toBe(verbKey(ws, argv, `${packageVersion()}\0sources:0`));
    for (const help of [[], ['--help'], ['kit', 'list', '-h'], ['help', 'kit']]) {
      const h = cachedVerb(help, packageVersion());
      expect(h?.help).toBe(true);
      expect(h?.key).toBe(helpKey(help, `${packageVersion()}\0${codeStamp()}`));
      expect(h?.key).not.toBe(helpKey(help, `${packageVersion()}\0sources:0`));
      expect(h?.key).not.toBe(helpKey(help, `0.0.0\0${codeStamp()}`));
    }
    expect(helpKey(['--help'], 'v')).not.toBe(helpKey(['-h'], 'v'));
  });
});

describe('the code stamp of an installed bundle', () => {
  it('changes when main.js is written again with the same size and time (npm packs every file at one time)', async () => {
    const { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } = await import('node:fs');
    const { stripTypeScriptTypes } = await import('node:module');
    const { readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { pathToFileURL } = await import('node:url');
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-code-stamp-'));
    try {
      // The module as the bundle has it: a .js file beside main.js.
      const js = stripTypeScriptTypes(readFileSync(join(repoRoot, 'src-main/cli/code-stamp.ts'), 'utf8'));
      const stampOf = async (n: number): Promise<string> => {
        writeFileSync(join(dir, `code-stamp-${n}.js`), js);
        const m = (await import(pathToFileURL(join(dir, `code-stamp-${n}.js`)).href)) as {
          codeStamp: () => string;
        };
        return m.codeStamp();
      };
      const main = join(dir, 'main.js');
      const packed = new Date('1985-10-26T08:15:00Z');
      writeFileSync(main, 'export const recipe = 7;\n');
      utimesSync(main, packed, packed);
      const before = await stampOf(1);
      expect(before).toMatch(/^bundle:25:/);
      // Installed again: a new file of the same size, its time set back to npm's one date (the old one kept
      // aside, so that the new one cannot take its inode within the clock tick of its change time).
      renameSync(main, join(dir, 'main-before.js'));
      writeFileSync(main, 'export const recipe = 8;\n');
      utimesSync(main, packed, packed);
      const after = await stampOf(2);
      expect(after).toMatch(/^bundle:25:/);
      expect(after).not.toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

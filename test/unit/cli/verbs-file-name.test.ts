/**
 * The verbs file's name (verb-cache.ts `verbsFileName`): a hash of the workspace's path that is not
 * SHA-256 (key-parts.ts `pathNameHash`, FNV-1a, so `runs list` and `template list` before main load no
 * hash's chunk for it). It is safe only because the name is never trusted: a file is taken for the
 * workspace it names inside, so two paths of one name cost a miss, never another workspace's answers,
 * digests or memos.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathNameHash } from '../../../src-main/cli/key-parts.ts';
import {
  keepMemo,
  memoFor,
  readVerbAnswer,
  verbsFileName,
  writeVerbAnswer,
} from '../../../src-main/cli/verb-cache.ts';

let cache: string;
const saved = process.env['XDG_CACHE_HOME'];

beforeAll(() => {
  cache = mkdtempSync(join(tmpdir(), 'toolsmith-verbs-name-'));
  process.env['XDG_CACHE_HOME'] = cache;
});
afterAll(() => {
  if (saved === undefined) delete process.env['XDG_CACHE_HOME'];
  else process.env['XDG_CACHE_HOME'] = saved;
  rmSync(cache, { recursive: true, force: true });
});

describe("the verbs file's name", () => {
  it("is FNV-1a's 64 bits of the path's UTF-8 bytes, in 16 hex digits (the cache folder's pruning matches that form)", () => {
    // (the published test vectors of FNV-1a 64)
    expect(pathNameHash('')).toBe('cbf29ce484222325');
    expect(pathNameHash('a')).toBe('af63dc4c8601ec8c');
    expect(pathNameHash('foobar')).toBe('85944171f73967e8');
    expect(verbsFileName('/home/u/ws')).toBe(`verbs-${pathNameHash('/home/u/ws')}.json`);
    expect(verbsFileName('/home/u/ws')).toMatch(/^verbs-[0-9a-f]{16}\.json$/);
  });

  it('depends on the whole path (each byte, beyond ASCII too), and is the same at every start', () => {
    const paths = ['/w/a', '/w/b', '/w/a/', '/w/ab', '/w/é', '/w/e\u0301', '/W/a'];
    const names = paths.map(verbsFileName);
    expect(new Set(names).size).toBe(paths.length);
    expect(paths.map(verbsFileName)).toEqual(names);
  });

  it("a file under a workspace's name that another workspace wrote (two paths of one name) is not taken: a miss", () => {
    const a = join(cache, 'ws-a');
    const b = join(cache, 'ws-b');
    // (workspaces that are there: the cache's pruning drops the files of those that are gone)
    for (const w of [a, b]) {
      mkdirSync(join(w, '.toolsmith'), { recursive: true });
      writeFileSync(join(w, '.toolsmith', 'config.toml'), '');
    }
    writeVerbAnswer(b, { key: 'k1', out: "b's answer\n", err: '' });
    keepMemo(b, 'sig', "b's key");
    expect(readVerbAnswer(b, 'k1')?.out).toBe("b's answer\n");
    // b's file where a's would be, as if their paths hashed alike
    copyFileSync(join(cache, 'toolsmith', verbsFileName(b)), join(cache, 'toolsmith', verbsFileName(a)));
    expect(readVerbAnswer(a, 'k1')).toBeUndefined();
    expect(memoFor(a, 'sig')).toBeUndefined();
    // a's own answer then replaces it, and is taken for a only
    writeVerbAnswer(a, { key: 'k1', out: "a's answer\n", err: '' });
    expect(readVerbAnswer(a, 'k1')?.out).toBe("a's answer\n");
    expect(memoFor(a, 'sig')).toBeUndefined();
  });
});

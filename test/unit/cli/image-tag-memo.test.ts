/**
 * The image tags of `pool status` answered before main, given from a memo of what they were computed from
 * (cli/image-tag-memo.ts) so that a settled install loads no node:crypto: the memo's tag is always the one
 * `imageTag` computes (the names `image build` gave the images), and any change to an input is seen: a
 * worker file rewritten with its size and modification time kept, a file added to the worker's package,
 * the C sources, the built C loop rewritten or removed, `$CC`, the node binary whose version the tag
 * holds. Real files and the host's C compiler (the loop and the JS jobs' launcher are built into a
 * cache folder of the test's own).
 * Each check poisons the kept tags first: a memo wrongly taken would give the poisoned tag.
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoizedImageTag } from '../../../src-main/cli/image-tag-memo.ts';
import { SETTLE_MS } from '../../../src-main/cli/key-parts.ts';
import { memoFor, verbsFileName } from '../../../src-main/cli/verb-cache.ts';
import {
  buildForkLoop,
  FORK_LOOP_SOURCE,
  imageTag,
  type ImagePaths,
  type RuntimeImage,
} from '../../../src-main/infra/sandbox/images.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
let dir: string;
let cache: string;
let paths: ImagePaths;
/** The workspace whose verbs file keeps the memo (one on disk: the cache prunes the files of gone ones). */
let ws: string;
const savedCache = process.env['XDG_CACHE_HOME'];
const savedCc = process.env['CC'];
/** A time after which every file written so far has settled. */
const later = () => Date.now() + SETTLE_MS + 60_000;
const RUNTIMES: RuntimeImage[] = ['python', 'node', 'bun', 'deno'];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-image-tag-memo-'));
  cache = join(dir, 'xdg');
  process.env['XDG_CACHE_HOME'] = cache;
  delete process.env['CC'];
  cpSync(join(root, 'sandbox-images/python'), join(dir, 'images/python'), { recursive: true });
  cpSync(join(root, 'sandbox-images/node'), join(dir, 'images/node'), { recursive: true });
  // (a node binary of the test's own, whose `--version` the node image's tag holds)
  writeFileSync(join(dir, 'node'), '#!/bin/sh\necho v24.0.1\n');
  chmodSync(join(dir, 'node'), 0o755);
  paths = {
    imagesDir: join(dir, 'images'),
    nodeBinary: join(dir, 'node'),
    cacheDir: join(dir, 'build-cache'),
    namespace: 'toolsmith-memo-test',
  };
  ws = join(dir, 'workspace');
  mkdirSync(join(ws, '.toolsmith'), { recursive: true });
  writeFileSync(join(ws, '.toolsmith/config.toml'), '');
}, 120_000);

// (each test from no memo: a poisoned one left by the test before would be taken)
beforeEach(() => {
  rmSync(verbsFile(), { force: true });
  forget();
});
afterEach(() => {
  delete process.env['CC'];
});

afterAll(() => {
  if (savedCache === undefined) delete process.env['XDG_CACHE_HOME'];
  else process.env['XDG_CACHE_HOME'] = savedCache;
  if (savedCc !== undefined) process.env['CC'] = savedCc;
  rmSync(dir, { recursive: true, force: true });
});

const verbsFile = () => join(cache, 'toolsmith', verbsFileName(ws));

interface Memo {
  signature: string;
  key: string;
}
const tagMemos = (): Memo[] => {
  try {
    const f = JSON.parse(readFileSync(verbsFile(), 'utf8')) as { keys?: Memo[] };
    return (f.keys ?? []).filter((k) => k.signature.startsWith('["(image tag)"'));
  } catch {
    return [];
  }
};

/** Every kept tag made wrong: a memo taken after this gives `poisoned:...`. */
function poison(): void {
  const f = JSON.parse(readFileSync(verbsFile(), 'utf8')) as { keys: Memo[] };
  for (const k of f.keys)
    if (k.signature.startsWith('["(image tag)"')) {
      const m = JSON.parse(k.key) as { tag: string };
      k.key = JSON.stringify({ ...m, tag: `poisoned:${m.tag}` });
    }
  writeFileSync(verbsFile(), JSON.stringify(f));
  forget();
}

/**
 * Rewrites a file with `edit`, its size and modification time (to the nanosecond: `touch -r` from a file
 * holding its times) kept.
 */
function rewriteSameSize(file: string, edit = flipOneByte): void {
  const before = statSync(file, { bigint: true });
  const times = join(dir, 'times');
  writeFileSync(times, '');
  execFileSync('touch', ['-r', file, times]);
  writeFileSync(file, edit(readFileSync(file)));
  execFileSync('touch', ['-r', times, file]);
  const after = statSync(file, { bigint: true });
  expect(after.size).toBe(before.size);
  expect(after.mtimeNs).toBe(before.mtimeNs);
}

function flipOneByte(bytes: Buffer): Buffer {
  const i = bytes.length - 2;
  bytes[i] = bytes[i] === 0x20 ? 0x21 : 0x20;
  return bytes;
}

/** The verbs file read again at the next call (the module keeps the last one it read). */
const forget = () => memoFor(join(dir, 'another workspace'), '');

/** Every runtime's memoized tag equals imageTag's now, none poisoned; the memos kept again. */
function expectComputed(runtimes: RuntimeImage[] = RUNTIMES): void {
  for (const r of runtimes) {
    const tag = memoizedImageTag(ws, r, paths, later());
    expect(tag, r).toBe(imageTag(r, paths));
    expect(tag, r).not.toMatch(/^poisoned:/);
  }
}

describe('the image tags of pool status from a memo', () => {
  it('gives the tag imageTag computes, kept once the inputs have settled, and from the memo after', () => {
    for (const r of RUNTIMES) {
      // (just written: not kept yet, computed every time)
      expect(memoizedImageTag(ws, r, paths)).toBe(imageTag(r, paths));
    }
    expect(tagMemos()).toEqual([]);
    expectComputed();
    expect(
      tagMemos()
        .map((m) => (JSON.parse(m.key) as { tag: string }).tag)
        .sort(),
    ).toEqual(RUNTIMES.map((r) => imageTag(r, paths)).sort());
    expect(new Set(RUNTIMES.map((r) => memoizedImageTag(ws, r, paths, later())))).toEqual(
      new Set(RUNTIMES.map((r) => imageTag(r, paths))),
    );
    // Taken from the memo, not hashed: a poisoned memo is what a start would get.
    poison();
    for (const r of RUNTIMES)
      expect(memoizedImageTag(ws, r, paths, later())).toBe(`poisoned:${imageTag(r, paths)}`);
  }, 120_000);

  it('sees a worker file rewritten with its size and modification time kept', () => {
    expectComputed();
    const before = imageTag('python', paths);
    poison();
    rewriteSameSize(join(paths.imagesDir, 'python/toolsmith_worker/child.py'));
    expect(imageTag('python', paths)).not.toBe(before);
    expectComputed(['python']);
    poison();
    rewriteSameSize(join(paths.imagesDir, 'node/worker.mjs'));
    expectComputed(['node', 'bun', 'deno']);
  }, 120_000);

  it('keeps no tag while an input changed in the last 5 s (a write in the tick of the stat)', () => {
    expectComputed(['python']);
    const kept = tagMemos().length;
    const file = join(paths.imagesDir, 'python/toolsmith_worker/protocol.py');
    rewriteSameSize(file);
    const changed = Number(statSync(file, { bigint: true }).ctimeNs / 1_000_000n);
    // (a time at which the C loop, built before, has settled, and the rewritten file has not)
    const loop = buildForkLoop(paths.imagesDir, paths.cacheDir).path!;
    expect(statSync(loop).ctimeMs).toBeLessThan(changed - 1);
    const now = changed + SETTLE_MS - 1;
    expect(memoizedImageTag(ws, 'python', paths, now)).toBe(imageTag('python', paths));
    expect(tagMemos()).toHaveLength(kept);
    expectComputed(['python']);
    expect(tagMemos()).toHaveLength(kept + 1);
  }, 120_000);

  it("sees a module added to the worker's package", () => {
    expectComputed();
    poison();
    writeFileSync(join(paths.imagesDir, 'python/toolsmith_worker/zz_added.py'), 'X = 1\n');
    expectComputed(['python']);
  }, 120_000);

  it('sees the C sources, the built C loop rewritten or removed, and $CC', () => {
    expectComputed();
    const loop = buildForkLoop(paths.imagesDir, paths.cacheDir).path;
    expect(loop).toBeDefined();
    // The built loop rewritten (its size and time kept): the tag holds its bytes.
    poison();
    rewriteSameSize(loop!);
    expectComputed(['python']);
    // Removed: the memo is not taken; imageTag reads the loop again (a new process would build it
    // again; this one remembers its build, so the read fails where a taken memo would have answered).
    poison();
    rmSync(loop!);
    expect(() => memoizedImageTag(ws, 'python', paths, later())).toThrow(/ENOENT/);
    // The C source edited: another build (its path is a hash of the source).
    poison();
    appendFileSync(join(paths.imagesDir, 'python', FORK_LOOP_SOURCE), '\n/* edited */\n');
    expectComputed();
    // Another compiler command: another build, another tag.
    poison();
    process.env['CC'] = 'cc -g';
    expectComputed();
  }, 180_000);

  it('takes no memo of the wrong shape and fails safe on a verbs file whose memos are not a list: computed, no error', () => {
    expectComputed(['python']);
    const f = JSON.parse(readFileSync(verbsFile(), 'utf8')) as { keys: (Memo | null)[] };
    const kept = f.keys.find((k) => k?.signature.startsWith('["(image tag)"'))!;
    // (its signature right, what it keeps not a tag: a tag that is no text, no C build to check)
    for (const wrong of [
      { tag: null, built: [], builtSignature: '[]' },
      { tag: 7, built: [], builtSignature: '[]' },
      { tag: `poisoned`, built: 'x', builtSignature: '["file"]' },
    ]) {
      kept.key = JSON.stringify(wrong);
      writeFileSync(verbsFile(), JSON.stringify(f));
      forget();
      // Before: the first two answered null and 7 as the tag.
      expectComputed(['python']);
    }
    // A memo list that is not a list, or holds what is not a memo: before, a TypeError out of pool status.
    for (const keys of ['not a list', [null, 3], { 0: kept }]) {
      writeFileSync(verbsFile(), JSON.stringify({ ...f, keys }));
      forget();
      expectComputed(['python']);
    }
  }, 120_000);

  it("sees the node binary's version", () => {
    expectComputed(['node']);
    poison();
    const before = imageTag('node', paths);
    const bin = paths.nodeBinary;
    rewriteSameSize(bin, (b) => Buffer.from(b.toString().replace('v24.0.1', 'v24.0.2')));
    // (a new process asks the binary again: the running one keeps its answer)
    const fresh = { ...paths, nodeBinary: bin };
    expect(memoizedImageTag(ws, 'node', fresh, later())).not.toMatch(/^poisoned:/);
    expect(before).toMatch(/^toolsmith-memo-test\/node:/);
  }, 120_000);
});

/**
 * The config digests' keys (`runs list`, `template list` and `pool status` answered before main loads)
 * given again from a memo of the signature of their parts, without hashing (verb-cache.ts `memoizedKey`,
 * key-parts.ts): the same keys as hashed, and any change to a file, a name or a secret's value misses,
 * even a rewrite that keeps the file's size and sets its modification time back.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashParts, partsSignature, SETTLE_MS, sha256Hex } from '../../../src-main/cli/key-parts.ts';
import { snapshotKey, snapshotParts } from '../../../src-main/cli/sandboxes-cache.ts';
import {
  codeStamp,
  memoizedKey,
  packageVersion,
  verbKey,
  verbParts,
  verbsFileName,
} from '../../../src-main/cli/verb-cache.ts';
import { configDigestKey } from '../../../src-main/cli/config-digest.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let cache: string;
const saved = process.env['XDG_CACHE_HOME'];
const version = `${packageVersion()}\0${codeStamp()}`;
/** A time after which every file of the workspace has settled. */
const later = () => Date.now() + SETTLE_MS + 60_000;

beforeAll(() => {
  ws = tempWorkspace('toolsmith-key-memo-');
  cache = mkdtempSync(join(tmpdir(), 'toolsmith-key-memo-cache-'));
  process.env['XDG_CACHE_HOME'] = cache;
});
afterAll(() => {
  if (saved === undefined) delete process.env['XDG_CACHE_HOME'];
  else process.env['XDG_CACHE_HOME'] = saved;
  removeWorkspace(ws);
  rmSync(cache, { recursive: true, force: true });
});

/** The workspace's verbs file in the cache folder (named by a hash of its path). */
function verbsFile(): { file: string; json: { keys?: { signature: string; key: string }[] } } {
  const file = join(cache, 'toolsmith', verbsFileName(ws));
  return {
    file,
    json: JSON.parse(readFileSync(file, 'utf8')) as { keys?: { signature: string; key: string }[] },
  };
}

describe('the config digests keys without hashing', () => {
  it('names the cache files and hashes the keys as node:crypto did', () => {
    for (const t of [ws, '/tmp/é ü', ''])
      expect(sha256Hex(t)).toBe(createHash('sha256').update(t).digest('hex'));
    // snapshotKey as it was hashed before its parts were listed: the code, config.toml, each sandbox's
    // name and tools.py (the sample has no skills nor verdicts).
    const h = createHash('sha256').update(`${version}\0`);
    h.update(readFileSync(join(ws, '.toolsmith/config.toml')));
    for (const name of readdirSync(join(ws, 'sandboxes')).sort())
      h.update(`\0${name}\0`).update(readFileSync(join(ws, 'sandboxes', name, 'tools.py')));
    const files = h.digest('hex');
    expect(snapshotKey(ws)).toBe(files);
    expect(memoizedKey(ws, () => snapshotParts(ws))).toBe(files);
    const argv = ['(config digest)', 'ecommerce', 'support'];
    const v = createHash('sha256').update(`${version}\0${argv.join('\0')}\0${files}`);
    for (const name of readdirSync(join(ws, 'kits')).sort())
      v.update(`\0${name}\0`).update(readFileSync(join(ws, 'kits', name)));
    v.update(`\0${JSON.stringify([])}`);
    // (no variable the config names set, so that the secrets' part is `[]`)
    // (each variable taken out and put back by name: replacing process.env with a copy would leave the process's
    // real environment, which os.tmpdir() reads, apart from the object for every later file of this worker)
    const words = new Set(readFileSync(join(ws, '.toolsmith/config.toml'), 'utf8').match(/\w+/g));
    const saved = Object.entries(process.env).filter(
      ([n]) => words.has(n) || n.startsWith('OTEL_EXPORTER_OTLP'),
    );
    for (const [n] of saved) delete process.env[n];
    try {
      expect(verbKey(ws, argv, version)).toBe(v.digest('hex'));
      expect(memoizedKey(ws, () => verbParts(ws, argv, version, files), later())).toBe(
        verbKey(ws, argv, version),
      );
    } finally {
      for (const [n, v] of saved) process.env[n] = v;
    }
  });

  it('gives a settled signature its key from the memo, and hashes again after any change', () => {
    const parts = () => snapshotParts(ws);
    // (config.toml's modification time a whole second, which utimes can set again exactly below)
    const config = join(ws, '.toolsmith/config.toml');
    utimesSync(config, 1_700_000_000, 1_700_000_000);
    const key = memoizedKey(ws, parts, later());
    expect(key).toBe(hashParts(parts()));
    const { file, json } = verbsFile();
    const memo = json.keys?.find((k) => k.key === key);
    expect(memo).toBeDefined();
    // The memo is what answers (no hash): a key written in it is the one given.
    memo!.key = 'f'.repeat(64);
    writeFileSync(file, JSON.stringify(json));
    expect(memoizedKey(ws, parts, later())).toBe('f'.repeat(64));
    // config.toml rewritten to bytes of the same size, its modification time set back as it was: its
    // change time (which no process can set back) misses the memo, and the key is hashed again.
    const before = statSync(config);
    const text = readFileSync(config, 'utf8');
    writeFileSync(config, text.slice(0, -1) + (text.endsWith('\n') ? ' ' : '\n'));
    utimesSync(config, 1_700_000_000, 1_700_000_000);
    expect(statSync(config).size).toBe(before.size);
    expect(statSync(config).mtimeMs).toBe(before.mtimeMs);
    const changed = memoizedKey(ws, parts, later());
    expect(changed).not.toBe('f'.repeat(64));
    expect(changed).toBe(hashParts(parts()));
    expect(changed).not.toBe(key);
    // A sandbox's name (no file changed) is part of the signature too.
    writeFileSync(join(ws, 'sandboxes', 'zz-not-a-folder'), '');
    expect(memoizedKey(ws, parts, later())).toBe(hashParts(parts()));
    expect(memoizedKey(ws, parts, later())).not.toBe(changed);
    rmSync(join(ws, 'sandboxes', 'zz-not-a-folder'));
  });

  it('keeps no signature whose files changed in the last SETTLE_MS', () => {
    const config = join(ws, '.toolsmith/config.toml');
    writeFileSync(config, readFileSync(config, 'utf8') + '\n# now\n');
    const parts = () => snapshotParts(ws);
    expect(partsSignature(parts()).settled).toBe(false);
    expect(partsSignature(parts(), Date.now() + SETTLE_MS + 1_000).settled).toBe(true);
    const { signature } = partsSignature(parts());
    const key = memoizedKey(ws, parts);
    expect(key).toBe(hashParts(parts()));
    expect(verbsFile().json.keys?.some((k) => k.signature === signature) ?? false).toBe(false);
  });

  it("keeps no secret's value in a signature, and misses when one changes", () => {
    const config = join(ws, '.toolsmith/config.toml');
    writeFileSync(config, readFileSync(config, 'utf8') + '\n# MEMO_TEST_SECRET\n');
    process.env['MEMO_TEST_SECRET'] = 'value-one-1234';
    try {
      const files = snapshotKey(ws)!;
      const parts = () => verbParts(ws, ['(config digest)'], version, files);
      const one = memoizedKey(ws, parts, later());
      expect(readFileSync(verbsFile().file, 'utf8')).not.toContain('value-one-1234');
      expect(verbsFile().json.keys?.some((k) => k.key === one)).toBe(true);
      process.env['MEMO_TEST_SECRET'] = 'value-two-1234';
      const two = memoizedKey(ws, parts, later());
      expect(two).not.toBe(one);
      expect(two).toBe(hashParts(parts()));
    } finally {
      delete process.env['MEMO_TEST_SECRET'];
    }
  });

  it('configDigestKey is the key verbKey hashes', () => {
    const withTools = readdirSync(join(ws, 'sandboxes')).sort();
    expect(configDigestKey(ws)).toBe(verbKey(ws, ['(config digest)', ...withTools], version));
    expect(configDigestKey(ws, '(pool status)')).toBe(verbKey(ws, ['(pool status)', ...withTools], version));
  });
});

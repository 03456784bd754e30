/**
 * What a cache key (verb-cache.ts, sandboxes-cache.ts) is hashed from, as a list of parts, and two ways to
 * get the key: `hashParts` hashes them (SHA-256, node:crypto: ~12-15 ms of CPU to load its ~18 modules),
 * and `partsSignature` tells what they are now without reading any file's bytes (each file by its stat:
 * device, inode, size, mode, and the modification and change times in nanoseconds), so that a key
 * hashed before from the same signature can be given again (verb-cache.ts `memoizedKey`: the config
 * digests' keys of `runs list`, `template list` and `pool status`, answered before main loads; the
 * image tags of `pool status`, image-tag-memo.ts).
 * A file's change time (ctime) is set by the kernel at every write, rename onto it, chmod or `touch`,
 * and no process can set it back; a signature whose files changed in the last `SETTLE_MS` is not kept
 * (a write in the same clock tick as the stat would leave its times as they were: git's "racily clean"
 * entries). docs/scaling.md, "Issue 29: the digests' keys without node:crypto".
 * Only node: modules here (every start loads this module); @noble/hashes's SHA-256 (audited, no
 * dependencies) when `loadJsSha256` loads it.
 */
import { readRegularFile } from '../infra/workspace/regular-file.ts';
import type * as Sha256Js from './sha256-js.ts';

const { readFileSync, statSync } = process.getBuiltinModule('node:fs');

/**
 * One part of a key's input: a text as it is; a file by its bytes (`readRegularFile`: a regular file or a
 * link to one, else the key cannot be made; `plain`: read with `readFileSync`, as `validate`'s script
 * is, and never in a signature); a text that holds secrets' values (hashed like a text, but in a
 * signature only by its SHA-256).
 */
export type KeyPart = string | { file: string; plain?: true } | { secret: string };

let js: typeof Sha256Js | undefined;

/**
 * Loads the SHA-256 in JS for `sha256Hex`: for a short text it costs far less than loading node:crypto
 * (~1-2 ms against ~12-15; for a workspace's ~10 KB of files it would cost more, which is why the keys
 * themselves are hashed by node:crypto). The paths answered before main that can hash nothing else call
 * it (store-verbs.ts: `runs list`, `template list`, only when a variable the config names is set, whose
 * value's hash is in the digest key's signature; pool-status-early.ts: `pool status`, whose image tags
 * come from a memo once the install has settled, image-tag-memo.ts).
 */
export async function loadJsSha256(): Promise<void> {
  if (js) return;
  js = await import('./sha256-js.ts');
}

/**
 * SHA-256 in hex of a short text (a folder's path, a signature's secrets): in JS once `loadJsSha256` has
 * loaded it, else node:crypto's (the same digest).
 */
export function sha256Hex(text: string): string {
  if (js) return js.bytesToHex(js.sha256(js.utf8ToBytes(text)));
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex');
}

/**
 * A cache file's name part for a workspace's path (the verbs file, verb-cache.ts): FNV-1a of its UTF-8
 * bytes, 64 bits in 16 hex digits, a few lines of arithmetic where SHA-256 cost loading a chunk and its
 * first, cold call (~3-4 ms of CPU of `runs list` before main; docs/scaling.md, "Issue 29: runs list and
 * template list, the store's start"). Not a secret's hash and not a key: the file names the workspace
 * it is of and is read only for that one (verb-cache.ts `readFile`), so two paths of one name only take
 * turns in one file (each start a miss), never each other's answers.
 */
export function pathNameHash(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(text, 'utf8')) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

/** The key: SHA-256 in hex of the parts in order (the same bytes as one `update` of each part). */
export function hashParts(parts: readonly KeyPart[]): string {
  const h = process.getBuiltinModule('node:crypto').createHash('sha256');
  for (const p of parts) {
    if (typeof p === 'string') h.update(p);
    else if ('secret' in p) h.update(p.secret);
    else h.update(p.plain ? readFileSync(p.file) : readRegularFile(p.file));
  }
  return h.digest('hex');
}

/**
 * A file changed less than this long ago (its ctime or mtime) leaves its signature unkept: long enough
 * for the coarsest clock a workspace's file system keeps times with (FAT's 2 s) and for a clock that
 * the file system's times lag.
 */
export const SETTLE_MS = 5_000;

/**
 * What the parts are now, each file by its stat (throws where `hashParts` would not read a file: none,
 * not a regular file); `settled`: no file changed in the last SETTLE_MS before `now`, nor in the future.
 */
export function partsSignature(
  parts: readonly KeyPart[],
  now = Date.now(),
): { signature: string; settled: boolean } {
  let settled = true;
  const seen = parts.map((p) => {
    if (typeof p === 'string') return p;
    // (no variable set: no value to keep out of the signature, nothing to hash)
    if ('secret' in p) return p.secret === '[]' ? ['secret', p.secret] : ['secret', sha256Hex(p.secret)];
    if (p.plain) throw new Error('a plain file has no signature');
    const st = statSync(p.file, { bigint: true });
    if (!st.isFile()) throw new Error(`${p.file} is not a regular file`);
    const newest = Number((st.ctimeNs > st.mtimeNs ? st.ctimeNs : st.mtimeNs) / 1_000_000n);
    if (newest > now - SETTLE_MS) settled = false;
    return ['file', p.file, ...[st.dev, st.ino, st.size, st.mode, st.mtimeNs, st.ctimeNs].map(String)];
  });
  return { signature: JSON.stringify(seen), settled };
}

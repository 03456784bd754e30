/**
 * The sandbox images' tags for `pool status` answered before main (pool-status-early.ts) without
 * node:crypto once the install has settled: `imageTag` (infra/sandbox/images.ts) hashes the worker's
 * files and the built C loop or launcher with SHA-256 (node:crypto: ~12-15 ms of CPU to load its ~18
 * modules, the last of it on this path), and the tag it gave is kept in the workspace's verbs file
 * (verb-cache.ts `keepMemo`) under a signature of its inputs as `memoizedKey` keeps the config digest's
 * key (key-parts.ts `partsSignature`: every text as it is, every file by device, inode, size, mode and
 * modification and change times in ns). The built C files' paths are a hash of their sources, so they
 * are kept with the tag and their stat checked at every start: one removed, rebuilt or rewritten hashes
 * again. Nothing is kept while a file changed in the last 5 s (the racily clean rule, key-parts.ts
 * `SETTLE_MS`) or while a C build is missing (its absence is in the tag, and a compiler that appears
 * would build it). The tag is always exactly `imageTag`'s: the image names `image build` made.
 * docs/scaling.md, "Issue 29: pool status's image tags and the store's open".
 */
import { imageTag, imageTagBuilt, imageTagInputs } from '../infra/sandbox/images.ts';
import type { ImagePaths, RuntimeImage } from '../infra/sandbox/images.ts';
import { codeStamp, packageVersion } from './code-stamp.ts';
import { partsSignature } from './key-parts.ts';
import type { KeyPart } from './key-parts.ts';
import { keepMemo, memoFor } from './verb-cache.ts';

/** The memo's label, the first part of its signature (the config digests' memos have none such). */
const LABEL = '(image tag)';

interface TagMemo {
  tag: string;
  /** The C builds the tag hashed: their paths and their signature then. */
  built: string[];
  builtSignature: string;
}

const fileParts = (files: readonly string[]): KeyPart[] => files.map((file) => ({ file }));

/**
 * `imageTag(runtime, paths)`, from the memo of the workspace `workspace`'s verbs file when its inputs
 * and built files have the signature they had when it was computed, else computed (and kept when
 * everything it read has settled before `now`).
 */
export function memoizedImageTag(
  workspace: string,
  runtime: RuntimeImage,
  paths: ImagePaths,
  now = Date.now(),
): string {
  let seen: ReturnType<typeof partsSignature> | undefined;
  try {
    const inputs = imageTagInputs(runtime, paths);
    seen = partsSignature(
      [LABEL, `${packageVersion()}\0${codeStamp()}`, ...inputs.texts, ...fileParts(inputs.files)],
      now,
    );
  } catch {
    seen = undefined; // (a file that is not there: imageTag says, as it always did)
  }
  const known = seen && memoFor(workspace, seen.signature);
  if (known) {
    try {
      const m = JSON.parse(known) as Partial<TagMemo> | null;
      // (only a memo this module keeps: a tag that is a text, one C build or more, each a path)
      if (
        typeof m?.tag === 'string' &&
        Array.isArray(m.built) &&
        m.built.length > 0 &&
        m.built.every((b) => typeof b === 'string') &&
        partsSignature(fileParts(m.built), now).signature === m.builtSignature
      )
        return m.tag;
    } catch {
      /* (a built file gone, a memo that does not parse: computed below) */
    }
  }
  const tag = imageTag(runtime, paths);
  if (!seen?.settled) return tag;
  try {
    const built = imageTagBuilt(runtime, paths);
    if (!built) return tag;
    const b = partsSignature(fileParts(built), now);
    if (!b.settled) return tag;
    const memo: TagMemo = { tag, built, builtSignature: b.signature };
    keepMemo(workspace, seen.signature, JSON.stringify(memo));
  } catch {
    /* best effort: not kept */
  }
  return tag;
}

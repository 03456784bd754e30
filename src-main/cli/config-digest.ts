/**
 * What opening a workspace's config said and learned, kept for `runs list` and `template list` answered
 * before main loads (store-verbs.ts): the config's warnings (a config that may be cut short, keys no
 * setting has, `[approval]` names that match nothing) and the names of the variables it reads secrets
 * from (never their values: those are read from the environment at every start). Written by main's path
 * (context.ts `reader`) after a valid config was opened, in the verb cache's file of the workspace
 * (verb-cache.ts), under a key hashed from everything those depend on: the package version and code
 * stamp, config.toml's bytes, the sandboxes' names and tools.py files, the kits' names (verbKey and
 * snapshotKey hash more: the skills, the kits' bytes), and which sandbox folders hold a tools.py (an empty
 * tools.py and none hash alike); an unchanged workspace's key is given again from its memo, without
 * hashing (verb-cache.ts `memoizedKey`). Any change misses, and main's path (zod's parse of the config, pyright's
 * of each tools.py that `[approval]` names) runs and writes it again. An invalid config is never kept.
 */
import { join } from 'node:path';
import { snapshotParts } from './sandboxes-cache.ts';
import {
  codeStamp,
  memoizedKey,
  packageVersion,
  readVerbAnswer,
  verbParts,
  writeVerbAnswer,
} from './verb-cache.ts';

const { existsSync, readdirSync } = process.getBuiltinModule('node:fs');

export interface ConfigDigest {
  /** The lines told to `onConfigWarning` as the config was opened, in order. */
  warnings: string[];
  /** The environment variables the config names for secrets (env-secrets.ts `configSecretNames`). */
  secrets: string[];
}

/**
 * The digest's key for the workspace `dir` as it is now; undefined when it cannot be read. `label`: which
 * digest (`pool status` keeps one of its own, pool-status-early.ts).
 */
export function configDigestKey(dir: string, label = '(config digest)'): string | undefined {
  try {
    const sandboxes = join(dir, 'sandboxes');
    const withTools = existsSync(sandboxes)
      ? readdirSync(sandboxes, { withFileTypes: true })
          .filter((d) => d.isDirectory() && existsSync(join(sandboxes, d.name, 'tools.py')))
          .map((d) => d.name)
          .sort()
      : [];
    // (verbKey's and snapshotKey's hashes, given again without hashing for an unchanged workspace:
    // verb-cache.ts `memoizedKey`)
    const files = memoizedKey(dir, () => snapshotParts(dir));
    if (!files) return undefined;
    const version = `${packageVersion()}\0${codeStamp()}`;
    return memoizedKey(dir, () => verbParts(dir, [label, ...withTools], version, files));
  } catch {
    return undefined;
  }
}

export function readConfigDigest(dir: string, key: string): ConfigDigest | undefined {
  try {
    const d = JSON.parse(readVerbAnswer(dir, key)?.out ?? 'null') as ConfigDigest | null;
    return d && Array.isArray(d.warnings) && Array.isArray(d.secrets) ? d : undefined;
  } catch {
    return undefined;
  }
}

/** Best effort (verb-cache.ts `writeVerbAnswer`): a digest not kept costs the next start its speed. */
export function keepConfigDigest(dir: string, key: string, digest: ConfigDigest): void {
  writeVerbAnswer(dir, { key, out: JSON.stringify(digest), err: '' });
}

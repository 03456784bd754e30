/**
 * The CLI's cache folder (`$XDG_CACHE_HOME/toolsmith`, else `~/.cache/toolsmith`) and its pruning. The
 * sandboxes snapshots (`sandboxes-<hash>.json`, sandboxes-cache.ts) and the verbs' answers
 * (`verbs-<hash>.json`, verb-cache.ts) are one file per workspace folder ever used (the hash is of the
 * workspace's path), so every temporary or deleted workspace left two files behind for good. After a
 * cache write (a miss: the verb already took its full path, hundreds of milliseconds), at most once a
 * day (the `.pruned` stamp's modification time), the folder drops what can no longer be used: an entry
 * whose workspace has no `.toolsmith/config.toml` any more, one not written for `STALE_DAYS` days (a
 * workspace still in use costs one miss, which writes it again), one that is not an entry (unreadable
 * JSON), and a write's temporary file left for over an hour. A hit, the fast path, never prunes.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ownPlace } from '../infra/test-run-guard.ts';

// Builtins by process.getBuiltinModule, not ES imports (see verb-cache.ts).
const { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } =
  process.getBuiltinModule('node:fs');

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** An entry not written for this many days is dropped. */
export const STALE_DAYS = 30;
/** The stamp whose modification time is the last prune. */
export const PRUNE_STAMP = '.pruned';

const ENTRY = /^(?:sandboxes|verbs)-[0-9a-f]{16}\.json(\.\d+\.tmp)?$/;

/** The user's cache folder of Toolsmith (never one of the person's in a test run: test-run-guard.ts). */
export function cacheFolder(): string {
  return ownPlace(join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'toolsmith'));
}

/** `pruneCache(dir)` when the last prune is a day old or more (or never was). Never throws. */
export function pruneSometimes(dir: string, now = Date.now()): void {
  try {
    const stamp = join(dir, PRUNE_STAMP);
    let last = 0;
    try {
      last = statSync(stamp).mtimeMs;
    } catch {
      /* never pruned */
    }
    if (last <= now && now - last < DAY) return;
    writeFileSync(stamp, '');
    pruneCache(dir, now);
  } catch {
    /* a cache that cannot be pruned only costs disk space */
  }
}

/** Removes the entries of `dir` that can no longer be used (see the top of the file); returns their paths. */
export function pruneCache(dir: string, now = Date.now()): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    const m = ENTRY.exec(name);
    if (!m) continue;
    const file = join(dir, name);
    try {
      const age = now - statSync(file).mtimeMs;
      let stale = m[1] ? age > HOUR : age > STALE_DAYS * DAY;
      if (!stale && !m[1]) {
        let workspace: unknown;
        try {
          workspace = (JSON.parse(readFileSync(file, 'utf8')) as { workspace?: unknown }).workspace;
        } catch {
          workspace = undefined;
        }
        stale = typeof workspace !== 'string' || !existsSync(join(workspace, '.toolsmith', 'config.toml'));
      }
      if (stale) {
        rmSync(file, { force: true });
        removed.push(file);
      }
    } catch {
      /* gone meanwhile (another process pruned it) */
    }
  }
  return removed;
}

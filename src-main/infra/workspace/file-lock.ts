/**
 * A lock between the processes of one workspace (the app, `serve`, MCP, CLI commands), for a
 * read-then-write of its files that must not interleave with another process's: a lock file holding the
 * holder's pid, made whole at once (written under a name of its own, then hard-linked to the lock's
 * name, which fails when the lock is held). Short sections only (a few file reads and writes): a process
 * waits for another's section to end, and one that ended without removing its lock (killed) is noticed
 * by its pid and its lock taken over (see takeOver). Held by this process already, it is entered again
 * (nested sections).
 */
import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { WorkspaceFileError, fileWriteError } from './atomic.ts';
import { pidAlive } from '../sandbox/installation.ts';

/** How long a section waits for another process's before it is refused (theirs are milliseconds long). */
const WAIT_MS = 30_000;
/**
 * A takeover's claim (see takeOver) older than this was left by a process that ended inside the
 * takeover (microseconds long): it is removed.
 */
const CLAIM_STALE_MS = 5_000;

/** Locks this process holds (path -> depth). */
const held = new Map<string, number>();

const nap = new Int32Array(new SharedArrayBuffer(4));

/** The lock file as it is now: its pid (NaN when unreadable or empty) and its inode; undefined when gone. */
function lockNow(lock: string): { pid: number; ino: number } | undefined {
  let fd: number;
  try {
    fd = openSync(lock, 'r');
  } catch {
    return undefined;
  }
  try {
    const b = Buffer.alloc(32);
    const n = readSync(fd, b, 0, 32, 0);
    const text = b.subarray(0, n).toString('utf8').trim();
    return { pid: text === '' ? NaN : Number(text), ino: fstatSync(fd).ino };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the lock file, whole (its pid in it) or not at all: true when this process now holds it, false
 * when another's is there. Before, it was opened with O_EXCL and the pid written after, and a process
 * reading it between the two read no holder.
 */
function makeLock(lock: string): boolean {
  const own = `${lock}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(own, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(own, lock);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    rmSync(own, { force: true });
  }
}

/**
 * Removes the lock file `seen` (its inode), left by a holder that ended inside its section, and only it.
 * Several processes notice the dead holder at once: each used to remove the file at the lock's path, and
 * one that read the dead pid before another had removed it and made its own lock removed that live
 * lock, so two processes held it (three contenders at once could do so). Now the one process that makes
 * the claim `<lock>.dead-<ino>` (a hard link, which fails when it exists) may remove it, and removes the
 * lock's path only when the claim is the same file (its inode and pid) as the dead holder's lock: the lock at the
 * path cannot be another while the claim is held, since only the claim's holder removes a dead holder's
 * lock (a live holder removes only its own). The claim is then removed. A claim left by a process that
 * ended inside this (a few system calls) is removed after CLAIM_STALE_MS.
 */
function takeOver(lock: string, seen: { pid: number; ino: number }): void {
  const claim = `${lock}.dead-${seen.ino}`;
  try {
    linkSync(lock, claim);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      // Another process takes it over; its claim is removed only when that process is long gone.
      try {
        if (Date.now() - statSync(claim).ctimeMs > CLAIM_STALE_MS) unlinkSync(claim);
      } catch {
        /* gone meanwhile */
      }
    }
    return; // (ENOENT: the lock is gone already)
  }
  try {
    // The same file, by its inode and its pid: a freed inode may be the number of a lock made since.
    const claimed = lockNow(claim);
    if (claimed?.ino === seen.ino && Object.is(claimed.pid, seen.pid)) unlinkSync(lock);
  } catch {
    /* the lock is gone already */
  } finally {
    rmSync(claim, { force: true });
  }
}

/**
 * TOOLSMITH_LOCK_TAKEOVER_PAUSE_MS: a pause between noticing a dead holder and taking its lock over, so
 * that a test's processes all stand in that window at once (test/integration/skills/lock-takeover.test.ts).
 */
function pauseBeforeTakeover(): void {
  const ms = Number(process.env['TOOLSMITH_LOCK_TAKEOVER_PAUSE_MS'] ?? 0);
  if (ms > 0) Atomics.wait(nap, 0, 0, ms);
}

/**
 * Runs `fn` holding the lock file `lock`: no other process runs a section of the same lock meanwhile.
 * `what` names the section in the error when another process holds it past WAIT_MS.
 */
export function withFileLock<T>(lock: string, what: string, fn: () => T): T {
  const depth = held.get(lock) ?? 0;
  if (depth > 0) {
    held.set(lock, depth + 1);
    try {
      return fn();
    } finally {
      held.set(lock, depth);
    }
  }
  const until = performance.now() + WAIT_MS;
  let unread = 0;
  let madeFolder = false;
  for (;;) {
    let made: boolean;
    try {
      made = makeLock(lock);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !madeFolder) {
        // The lock's folder (a workspace's .toolsmith/, not made yet): made once, in a folder that is
        // there (never a whole path: a workspace moved away gets no ghost of itself).
        madeFolder = true;
        try {
          mkdirSync(dirname(lock));
        } catch {
          /* there meanwhile, or its parent is gone: the next try says which */
        }
        continue;
      }
      throw fileWriteError(lock, e);
    }
    if (made) break;
    const now = lockNow(lock);
    if (!now) continue; // (released meanwhile)
    const pid = now.pid;
    if (Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) {
      // Its holder ended inside the section (killed): what it wrote was whole (each file is written
      // through a rename), so the lock goes.
      pauseBeforeTakeover();
      takeOver(lock, now);
      continue;
    }
    // (a lock file is made whole; one that stays unreadable, as an older Toolsmith's being written never
    // finished, is taken for a dead holder's)
    if (!Number.isInteger(pid) || pid <= 0) {
      if (++unread > 200) {
        takeOver(lock, now);
        unread = 0;
        continue;
      }
    } else unread = 0;
    if (performance.now() > until)
      throw new WorkspaceFileError(
        `${what} was not done: another process (pid ${pid}) has held ${lock} for more than ${WAIT_MS / 1000} s (it writes the same files); try again once it ends, or remove ${lock} if no Toolsmith process runs on this workspace`,
        lock,
      );
    Atomics.wait(nap, 0, 0, 2 + Math.floor(Math.random() * 5));
  }
  held.set(lock, 1);
  try {
    return fn();
  } finally {
    held.delete(lock);
    rmSync(lock, { force: true });
  }
}

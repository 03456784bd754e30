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
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { WorkspaceFileError, fileWriteError } from './atomic.ts';
import { pidAlive } from '../sandbox/installation.ts';
import { testPause } from '../clock.ts';

/** How long a section waits for another process's before it is refused (theirs are milliseconds long). */
const WAIT_MS = 30_000;

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
 * A file naming this process's pid made whole at `path` (written under a name of its own, then hard-linked
 * there, which fails when a file is there): its inode, or undefined when another file is at `path`. A lock,
 * a takeover's claim (takeOver) and the run store's recovery marker (infra/store/recover.ts) are made so:
 * a process reading one never reads it empty. Before, a lock was opened with O_EXCL and the pid written
 * after, and a process reading it between the two read no holder.
 */
export function pidFileAt(path: string): number | undefined {
  const own = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(own, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
  try {
    const ino = statSync(own).ino;
    linkSync(own, path);
    return ino;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw e;
  } finally {
    rmSync(own, { force: true });
  }
}

/** Makes the lock file, whole (its pid in it) or not at all: true when this process now holds it. */
function makeLock(lock: string): boolean {
  return pidFileAt(lock) !== undefined;
}

/**
 * Removes the lock file `seen` (its inode), left by a holder that ended inside its section, and only it.
 * Several processes notice the dead holder at once: each used to remove the file at the lock's path, and
 * one that read the dead pid before another had removed it and made its own lock removed that live
 * lock, so two processes held it (three contenders at once could do so). Now the one process whose
 * claim is at `<lock>.dead-<ino>` may remove it: a file of its own naming its pid, linked there (which
 * fails when a claim is there). Right before it removes the lock's path it checks that its claim is still
 * the one at the claim's path and that the lock there is still the dead holder's (its inode and pid):
 * the lock at the path cannot be another while the claim is held, since only the claim's holder removes
 * a dead holder's lock (a live holder removes only its own). The claim is then removed.
 *
 * A claim is removed by anyone else only when the process it names has ended (it died inside this, a
 * few system calls), and only that claim: it is moved to a name of the remover's own and looked at
 * there, and put back when it turns out to be another, live, claim. Before, a claim older than 5 s was
 * removed whoever held it: a claimant stopped (or slowed down) for 5 s between its checks and its
 * removal of the lock removed the live lock of the process that took over meanwhile, and both were in.
 */
function takeOver(lock: string, seen: { pid: number; ino: number }): void {
  const claim = `${lock}.dead-${seen.ino}`;
  let mine: number | undefined;
  try {
    mine = pidFileAt(claim);
  } catch {
    return; // (the lock's folder gone, or no room: the next look tries again)
  }
  if (mine === undefined) {
    removeDeadClaim(claim);
    return;
  }
  try {
    // (a claimant stopped or killed here: test/integration/skills/lock-takeover.test.ts)
    testPause('TOOLSMITH_LOCK_CLAIM_PAUSE_MS');
    // Still this process's claim, and still the dead holder's lock (by its inode and pid: a freed inode
    // may be the number of a lock made since).
    const held = lockNow(claim);
    const now = lockNow(lock);
    if (held?.ino === mine && now?.ino === seen.ino && Object.is(now.pid, seen.pid)) unlinkSync(lock);
  } catch {
    /* the lock is gone already */
  } finally {
    if (lockNow(claim)?.ino === mine) rmSync(claim, { force: true });
  }
}

/**
 * The claim at `claim` removed when the process it names has ended (see takeOver), and only that one:
 * moved to a name of this process's own, looked at there, and put back when it is another claim (made
 * since by a live process).
 */
function removeDeadClaim(claim: string): void {
  const seen = lockNow(claim);
  if (!seen || !Number.isInteger(seen.pid) || seen.pid <= 0 || pidAlive(seen.pid)) return;
  const aside = `${claim}.${process.pid}.${randomBytes(6).toString('hex')}.gone`;
  try {
    renameSync(claim, aside);
  } catch {
    return; // (removed meanwhile)
  }
  const moved = lockNow(aside);
  if (moved && (moved.ino !== seen.ino || !Object.is(moved.pid, seen.pid)))
    try {
      linkSync(aside, claim);
    } catch {
      /* another claim was made meanwhile: that one holds it (this one's holder checks before it acts) */
    }
  rmSync(aside, { force: true });
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
      // (every contender in this window at once: test/integration/skills/lock-takeover.test.ts)
      testPause('TOOLSMITH_LOCK_TAKEOVER_PAUSE_MS');
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

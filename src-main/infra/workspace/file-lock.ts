/**
 * A lock between the processes of one workspace (the app, `serve`, MCP, CLI commands), for a
 * read-then-write of its files that must not interleave with another process's: a lock file made with
 * O_EXCL holding the holder's pid. Short sections only (a few file reads and writes): a process waits for
 * another's section to end, and one that ended without removing its lock (killed) is noticed by its pid
 * and its lock removed. Held by this process already, it is entered again (nested sections).
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { WorkspaceFileError, fileWriteError } from './atomic.ts';
import { pidAlive } from '../sandbox/installation.ts';

/** How long a section waits for another process's before it is refused (theirs are milliseconds long). */
const WAIT_MS = 30_000;

/** Locks this process holds (path -> depth). */
const held = new Map<string, number>();

const nap = new Int32Array(new SharedArrayBuffer(4));

/** The pid a lock file names (NaN when it cannot be read: being written, or gone). */
function holderOf(lock: string): number {
  try {
    return Number(readFileSync(lock, 'utf8').trim());
  } catch {
    return NaN;
  }
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
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx', 0o600);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !madeFolder) {
        // The lock's folder (a workspace's .toolsmith/, not made yet): made once, in a folder that is
        // there (never a whole path: a workspace moved away gets no ghost of itself).
        madeFolder = true;
        try {
          mkdirSync(dirname(lock));
        } catch {
          /* there meanwhile, or its parent is gone: the next open says which */
        }
        continue;
      }
      if (code !== 'EEXIST') throw fileWriteError(lock, e);
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    }
    const pid = holderOf(lock);
    if (Number.isInteger(pid) && pid > 0 && !pidAlive(pid) && holderOf(lock) === pid) {
      // Its holder ended inside the section (killed): what it wrote was whole (each file is written
      // through a rename), so the lock goes.
      rmSync(lock, { force: true });
      continue;
    }
    // (a lock file still empty is being written; one that stays unreadable is taken for a dead holder's)
    if (!Number.isInteger(pid) || pid <= 0) {
      if (++unread > 200) {
        rmSync(lock, { force: true });
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

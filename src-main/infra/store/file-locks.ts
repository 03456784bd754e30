/**
 * Who holds a lock on a file, from the kernel's table of locks (`/proc/locks`; Linux). SQLite's locks
 * are POSIX advisory locks: a connection in WAL mode holds a shared lock on its database file for as
 * long as it is open, and one on its `-shm` (the "DMS" byte) while it uses that WAL index. The table
 * tells a `-wal`/`-shm` at the store's path that a live process uses for another database file (the
 * file at the path was replaced under it) from one left by a process that ended.
 */
// Builtins by process.getBuiltinModule, not an ES import (see connection.ts).
const { readFileSync, statSync } = process.getBuiltinModule('node:fs');

/** Linux's encoding of a device number (glibc's `major`/`minor`), as /proc/locks prints it. */
function majorMinor(dev: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
}

/**
 * The ids of the processes holding a lock on `path` (0 or -1 for a lock of no one process: an
 * open-file-description lock); undefined when the file or the table cannot be read (not Linux).
 */
export function lockHolders(path: string): number[] | undefined {
  let key: string;
  let table: string;
  try {
    const s = statSync(path, { bigint: true });
    key = `${majorMinor(s.dev)}:${s.ino}`;
    table = readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const line of table.split('\n')) {
    // "1: POSIX  ADVISORY  READ 18609 fe:00:2326713 1073741826 1073742335"; a waiter's line has "->".
    const f = line
      .replace(/^\s*\d+:\s*(->\s*)?/, '')
      .trim()
      .split(/\s+/);
    if (f.length >= 5 && f[4] === key) pids.push(Number(f[3]));
  }
  return pids;
}

/**
 * A process by its id and command line as /proc tells it, each path by its last part (`node
 * toolsmith.mjs serve --port 0`); its id alone where it cannot be read.
 */
function processWords(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((a) => (a.includes('/') && !a.endsWith('/') ? a.slice(a.lastIndexOf('/') + 1) : a))
      .join(' ')
      // (on one line: an argument may hold line breaks, `node -e` a script's)
      .replace(/\s+/g, ' ');
    return argv ? `pid ${pid}: ${argv.length > 120 ? `${argv.slice(0, 119)}…` : argv}` : `pid ${pid}`;
  } catch {
    return `pid ${pid}`;
  }
}

/**
 * The other processes that have the store open (SQLite's lock on the file, which every connection in
 * WAL mode holds while it lives: serve, mcp, the workbench, a run), named; empty when none, or when the
 * kernel's lock table cannot be read (not Linux).
 */
export function openElsewhere(file: string): string[] {
  const pids = [...new Set(lockHolders(file) ?? [])].filter((p) => p > 0 && p !== process.pid);
  return pids.map(processWords);
}

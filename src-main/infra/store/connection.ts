/**
 * The run store's connection: the SQLite file opened in WAL (read-only when a full disk leaves no room
 * for the WAL), its schema and migrations, and what every store write shares: a full disk named in
 * words (storeWrite, DiskFullError) and whether a run's owning process still lives (pidAlive).
 * Migrations are only ever appended: a store written by an older version opens and is brought up to
 * date in order, each step in its own transaction.
 */
import type { Stats } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { steadyNow } from '../clock.ts';
import { dropGroupAndOtherBits } from '../workspace/atomic.ts';
import { lockHolders, openElsewhere } from './file-locks.ts';
import { guardConnection, stmt } from './statements.ts';
import type { Guard } from './statements.ts';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the builtin's namespace
// (node:fs's `promises` with readline and streams), ~4 ms of CPU of `runs list` answered before main
// (cli/store-verbs.ts; docs/scaling.md, issue 29).
const {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statfsSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} = process.getBuiltinModule('node:fs');

export class RunStoreError extends Error {
  override name = 'RunStoreError';
}

/** A write refused because the disk (or the file system holding the store) is full. */
export class DiskFullError extends RunStoreError {
  override name = 'DiskFullError';
  readonly file: string;
  constructor(file: string, what: string, cause: string) {
    super(`disk full: ${what} could not be written to ${file} (${cause}); free space on that disk`);
    this.file = file;
  }
}

/**
 * A write refused because the store's files cannot be written now (made immutable, a read-only
 * mount, permissions taken away). Held like a full disk's writes (a DiskFullError to the event log):
 * written when the files can be written again.
 */
export class StoreUnwritableError extends DiskFullError {
  override name = 'StoreUnwritableError';
  constructor(file: string, what: string, cause: string) {
    super(file, what, cause);
    this.message = `the run store cannot be written: ${what} could not be written to ${file} (${cause}); make it writable again`;
  }
}

/** A point of a connection's write-ahead log (see StoreConnection.walMark). */
export interface WalMark {
  generation: number;
  salt: string;
  frames: number;
}

/**
 * A statement refused at once because the store's file looks overwritten in place (a copy going on
 * over it: see StoreConnection.overwritten) and is not acted on yet: a write now would go to the old
 * content's write-ahead log, which the reopen empties. Held like a full disk's writes (a DiskFullError
 * to the event log: a run's events, template counts and a suite run's later writes are kept in memory
 * and written to the new content once the overwrite is acted on); any other write is refused with
 * this error, naming why.
 */
export class StoreOverwrittenError extends DiskFullError {
  override name = 'StoreOverwrittenError';
  /** Whether a read was refused (else a write): a read is said as one, never as "nothing was written". */
  readonly read: boolean;
  constructor(file: string, verdict: string, read = false) {
    super(file, read ? 'a read' : 'a write', verdict);
    this.read = read;
    this.message = read
      ? `the run store ${file} is being overwritten in place with ${verdict} while this process (pid ${process.pid}) has it open (a copy still going on?): nothing could be read, since the file is then neither the content before nor the whole new one; it can be read once the copy stays the same; try again in a moment (and never copy a store over one in use)`
      : `the run store ${file} is being overwritten in place with ${verdict} while this process (pid ${process.pid}) has it open (a copy still going on?): nothing was written, since a write now would go to the old content's write-ahead log and be lost; a run's events, template counts and a suite run's results are held and written to the new content once it stays the same; try anything else again in a moment (and never copy a store over one in use)`;
  }
}

/**
 * Why a failed SQLite write is the files refusing writes (SQLITE_IOERR, READONLY, PERM or CANTOPEN
 * while the database, its WAL or its folder is not writable: `chattr +i`, a read-only mount, a mode
 * changed), or undefined.
 */
export function unwritableCause(e: unknown, file: string): string | undefined {
  const c = (e as { errcode?: unknown })?.errcode;
  if (typeof c !== 'number' || ![10, 8, 3, 14].includes(c & 0xff) || file === ':memory:') return undefined;
  for (const f of [`${file}-wal`, file, dirname(file)]) {
    try {
      accessSync(f, constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      const words: Record<string, string> = {
        EPERM: 'not permitted: immutable or locked',
        EACCES: 'permission denied',
        EROFS: 'read-only file system',
      };
      return `${f} cannot be written: ${code}: ${words[code ?? ''] ?? 'refused'}`;
    }
  }
  return undefined;
}

/**
 * SQLITE_FULL (13, any extended code), ENOSPC/EDQUOT, or an SQLite I/O error (10: growing the WAL or
 * its shared-memory file) while the file system of `file` has no space left.
 */
export function isDiskFull(e: unknown, file?: string): boolean {
  const err = e as { errcode?: unknown; code?: unknown; message?: unknown };
  if (e instanceof DiskFullError) return true;
  if (file && unwritableCause(e, file)) return true;
  if (typeof err?.errcode === 'number' && (err.errcode & 0xff) === 13) return true;
  if (err?.code === 'ENOSPC' || err?.code === 'EDQUOT') return true;
  if (typeof err?.errcode === 'number' && (err.errcode & 0xff) === 10 && file) return noSpaceLeft(file);
  return (
    typeof err?.message === 'string' && /database or disk is full|ENOSPC|no space left/i.test(err.message)
  );
}

/** Whether the file system holding `file` has no block left for this user. */
function noSpaceLeft(file: string): boolean {
  try {
    return statfsSync(dirname(file)).bavail === 0;
  } catch {
    return false;
  }
}

/** The cause of a disk-full error in words: the SQLite code or the errno, and what it means. */
function fullCause(e: unknown): string {
  const err = e as { errcode?: unknown; code?: unknown };
  if (typeof err?.errcode === 'number' && (err.errcode & 0xff) === 10)
    return 'SQLITE_IOERR with no space left on the device';
  if (typeof err?.errcode === 'number') return 'SQLITE_FULL: database or disk is full';
  if (err?.code === 'EDQUOT') return 'EDQUOT: disk quota exceeded';
  return 'ENOSPC: no space left on device';
}

/**
 * Runs one store write, naming a full disk in words (with the file) instead of SQLite's bare message.
 * Other errors pass through unchanged.
 */
export function storeWrite<T>(file: string, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    const unwritable = e instanceof DiskFullError ? undefined : unwritableCause(e, file);
    if (unwritable) throw new StoreUnwritableError(file, what, unwritable);
    if (isDiskFull(e, file) && !(e instanceof DiskFullError))
      throw new DiskFullError(file, what, fullCause(e));
    if (readOnlyStores.has(file) && (e as { errcode?: number }).errcode === SQLITE_READONLY)
      throw new DiskFullError(file, what, readOnlyStores.get(file) as string);
    throw e;
  }
}

const SQLITE_READONLY = 8;
/** Stores opened read-only because the disk was full (see openFile), with the reason. */
const readOnlyStores = new Map<string, string>();

export const MIGRATIONS: string[] = [
  `CREATE TABLE runs (
     id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, status TEXT NOT NULL,
     task TEXT NOT NULL, sandbox TEXT NOT NULL, kit TEXT, mode TEXT NOT NULL, model TEXT, tier TEXT, provider TEXT,
     attempts INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0, duration_ms INTEGER NOT NULL DEFAULT 0,
     error TEXT, owner_pid INTEGER, origin_run TEXT, next_seq INTEGER NOT NULL DEFAULT 0);
   CREATE INDEX runs_created ON runs(created_at DESC);
   CREATE INDEX runs_status ON runs(status, created_at DESC);
   CREATE INDEX runs_sandbox ON runs(sandbox, created_at DESC);
   CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, v INTEGER NOT NULL,
     ts INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
   CREATE VIRTUAL TABLE runs_fts USING fts5(run_id UNINDEXED, task, scripts, errors, tokenize='trigram');`,
  `CREATE TABLE template_stats (name TEXT PRIMARY KEY, successes INTEGER NOT NULL DEFAULT 0,
     failures INTEGER NOT NULL DEFAULT 0, last_used INTEGER);`,
  // v3: each run knows its full-text row (fts5 rowids are stable): appending a script or an error updates
  // one row by rowid instead of scanning the whole index for an UNINDEXED run_id (O(runs) per event).
  `ALTER TABLE runs ADD COLUMN fts_id INTEGER;
   CREATE TEMP TABLE fts_map AS SELECT run_id, rowid AS fid FROM runs_fts;
   CREATE INDEX temp.fts_map_run ON fts_map(run_id);
   UPDATE runs SET fts_id = (SELECT fid FROM fts_map WHERE fts_map.run_id = runs.id);
   DROP TABLE temp.fts_map;`,
  // v4: the list's order is (created_at DESC, id); indexes without the id tiebreak made SQLite sort every
  // row before the OFFSET (a page at offset 99,900 of 100k runs: ~100 ms, now ~4 ms; bench:ui).
  `DROP INDEX IF EXISTS runs_created;
   CREATE INDEX runs_created ON runs(created_at DESC, id);
   DROP INDEX IF EXISTS runs_status;
   CREATE INDEX runs_status ON runs(status, created_at DESC, id);
   DROP INDEX IF EXISTS runs_sandbox;
   CREATE INDEX runs_sandbox ON runs(sandbox, created_at DESC, id);`,
  // Test suites: each case's run is tagged with its suite run; a suite run's results are one row per
  // case instance x column x repeat (see infra/store/suite-store.ts).
  `ALTER TABLE runs ADD COLUMN suite_run TEXT;
   CREATE INDEX runs_suite ON runs(suite_run, created_at DESC, id);
   CREATE TABLE suite_runs (id TEXT PRIMARY KEY, suite TEXT NOT NULL, created_at INTEGER NOT NULL,
     finished_at INTEGER, status TEXT NOT NULL, owner_pid INTEGER, spec TEXT NOT NULL, error TEXT);
   CREATE INDEX suite_runs_suite ON suite_runs(suite, created_at DESC);
   CREATE TABLE suite_results (suite_run TEXT NOT NULL, case_id TEXT NOT NULL, col TEXT NOT NULL,
     rep INTEGER NOT NULL, run_id TEXT, data TEXT NOT NULL, PRIMARY KEY (suite_run, case_id, col, rep)) WITHOUT ROWID;`,
  // Sortable run list: one index per sort column (see orderBy), so a page deep in a sorted list of 100k
  // runs is an index walk, not a sort of every row.
  `CREATE INDEX runs_sort_status ON runs(status, created_at, id);
   CREATE INDEX runs_sort_task ON runs(task, created_at, id);
   CREATE INDEX runs_sort_sandbox ON runs(sandbox, created_at, id);
   CREATE INDEX runs_sort_mode ON runs(mode, created_at, id);
   CREATE INDEX runs_sort_model ON runs(model, created_at, id);
   CREATE INDEX runs_sort_tier ON runs(tier, created_at, id);
   CREATE INDEX runs_sort_attempts ON runs(attempts, created_at, id);
   CREATE INDEX runs_sort_tokens ON runs(tokens, created_at, id);
   CREATE INDEX runs_sort_duration ON runs(duration_ms, created_at, id);`,
  // Run counts per status, kept by triggers: the unfiltered list and a status-only filter know their exact
  // total without a COUNT(*) over every run (O(runs) per page; issue 14).
  `CREATE TABLE run_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
   INSERT INTO run_counts (status, n) SELECT status, COUNT(*) FROM runs GROUP BY status;
   CREATE TRIGGER runs_count_insert AFTER INSERT ON runs BEGIN
     INSERT INTO run_counts (status, n) VALUES (new.status, 1) ON CONFLICT(status) DO UPDATE SET n = n + 1;
   END;
   CREATE TRIGGER runs_count_delete AFTER DELETE ON runs BEGIN
     UPDATE run_counts SET n = n - 1 WHERE status = old.status;
   END;
   CREATE TRIGGER runs_count_status AFTER UPDATE OF status ON runs WHEN old.status IS NOT new.status BEGIN
     UPDATE run_counts SET n = n - 1 WHERE status = old.status;
     INSERT INTO run_counts (status, n) VALUES (new.status, 1) ON CONFLICT(status) DO UPDATE SET n = n + 1;
   END;`,
  // Text search in the list's default order streams full-text matches by rowid (run-queries.ts, streamText): runs by their
  // full-text row, and whether full-text rowids still follow the start times (an import or a clock set
  // back clears it for good; the search then collects every match as before).
  `CREATE INDEX runs_fts_id ON runs(fts_id);
   INSERT INTO meta (key, value) SELECT 'fts_in_created_order',
     CASE WHEN EXISTS (SELECT 1 FROM (SELECT created_at, LAG(created_at) OVER (ORDER BY fts_id) AS prev FROM runs)
       WHERE created_at < prev) THEN '0' ELSE '1' END
   ON CONFLICT(key) DO UPDATE SET value = excluded.value;`,
  // Run kinds (RUN_KINDS): a template test is its own kind, hidden from the list by default. Runs
  // recorded before are `run`, but for template tests that named the template's run as their origin
  // (origin kind `test`), found by primary key from the runs that have an origin. The per-status counts
  // become per kind and status, so a list that hides a kind still knows its exact total. No index on
  // kind: the list's sort indexes keep serving its order (an index on kind would win the plan for the
  // default `kind IN ('run')` and sort every row), and the kind is tested on the rows they walk.
  `ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'run';
   UPDATE runs SET kind = 'template_test' WHERE origin_run IS NOT NULL
     AND (SELECT json_extract(data, '$.origin.kind') FROM events WHERE run_id = runs.id AND seq = 0) = 'test';
   DROP TRIGGER runs_count_insert;
   DROP TRIGGER runs_count_delete;
   DROP TRIGGER runs_count_status;
   DROP TABLE run_counts;
   CREATE TABLE run_counts (kind TEXT NOT NULL, status TEXT NOT NULL, n INTEGER NOT NULL,
     PRIMARY KEY (kind, status)) WITHOUT ROWID;
   INSERT INTO run_counts (kind, status, n) SELECT kind, status, COUNT(*) FROM runs GROUP BY kind, status;
   CREATE TRIGGER runs_count_insert AFTER INSERT ON runs BEGIN
     INSERT INTO run_counts (kind, status, n) VALUES (new.kind, new.status, 1)
       ON CONFLICT(kind, status) DO UPDATE SET n = n + 1;
   END;
   CREATE TRIGGER runs_count_delete AFTER DELETE ON runs BEGIN
     UPDATE run_counts SET n = n - 1 WHERE kind = old.kind AND status = old.status;
   END;
   CREATE TRIGGER runs_count_status AFTER UPDATE OF status, kind ON runs
     WHEN old.status IS NOT new.status OR old.kind IS NOT new.kind BEGIN
     UPDATE run_counts SET n = n - 1 WHERE kind = old.kind AND status = old.status;
     INSERT INTO run_counts (kind, status, n) VALUES (new.kind, new.status, 1)
       ON CONFLICT(kind, status) DO UPDATE SET n = n + 1;
   END;`,
];

export const pidAlive = (pid: number | null): boolean => {
  if (!pid) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Why a run reads as interrupted: the process that owned it ended before its run_finished event (killed,
 * crashed, the machine stopped), with the pid, this host and when the run last wrote an event.
 */
export function interruptedReason(pid: number | null, lastSeen: number): string {
  return pid === null
    ? `no process owns the run and it never finished (last event ${new Date(lastSeen).toISOString()})`
    : `its process (pid ${pid} on ${hostname()}) ended before the run finished; last seen ${new Date(lastSeen).toISOString()}`;
}

/**
 * The marker `toolsmith runs recover` holds (recover.ts) from its last look for another process with
 * the store open until the recovered file is in place: made whole at once, naming the recovery's pid.
 */
export const recoveryMarker = (file: string): string => `${file}.recovering`;

/** The pid of a live recovery holding the marker of `file` (see recoveryMarker), or undefined. */
export function recoveryGoingOn(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(recoveryMarker(file), 'utf8').trim();
  } catch {
    return undefined;
  }
  const pid = Number(text);
  // (one left by a recovery that was killed there is no recovery going on)
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid) ? pid : undefined;
}

/** How long an open waits, at most, for a recovery to put its file in place (its renames: milliseconds). */
const RECOVERY_WAIT_MS = 30_000;

/** Waits while a live recovery holds the marker of `file`; refused, naming it, past RECOVERY_WAIT_MS. */
function awaitRecovery(file: string): void {
  const until = performance.now() + RECOVERY_WAIT_MS;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (let pid = recoveryGoingOn(file); pid !== undefined; pid = recoveryGoingOn(file)) {
    if (performance.now() > until)
      throw new RunStoreError(
        `the run store ${file} is being recovered by another process (pid ${pid}: \`toolsmith runs recover\`) for more than ${RECOVERY_WAIT_MS / 1000} s; try again once it ends, or remove ${recoveryMarker(file)} if no recovery runs`,
      );
    Atomics.wait(nap, 0, 0, 20);
  }
}

/**
 * Opens (creating its folder) and migrates the store at `file` (or `:memory:`). A recovery putting its
 * new file in place (`toolsmith runs recover`, recover.ts) is waited for, before the open and after it:
 * an open that met the recovery (the marker there after it, or the file it opened no longer the one at
 * the path, as the kernel's lock table tells) gives that connection up and opens the file now there.
 * Before, a process that opened the store between the recovery's last look and its renames wrote to the
 * damaged file moved aside: a run it made and ended meanwhile was never in the recovered store.
 */
export function openStore(
  file: string,
  warn: (line: string) => void = (line) => process.stderr.write(`toolsmith: ${line}\n`),
): DatabaseSync {
  if (file === ':memory:') return migrated(openFile(file), file);
  for (let tries = 1; ; tries++) {
    awaitRecovery(file);
    const before = fileId(file);
    const db = openAt(file, warn);
    if (tries === 5 || !metRecovery(file, before)) return db;
    // (never closed: closing checkpoints its log into the file it opened and deletes the log at the path)
    abandon(db);
    dropOwnSideFiles(file);
  }
}

/**
 * Whether an open of `file` just made met a recovery: its marker is there (it may have looked for
 * other processes before this one had the file locked), or the file at the path is not the one there
 * before the open and this process holds no lock on it (the one it opened was moved aside). A store
 * opened read-only takes no lock.
 */
function metRecovery(file: string, before: FileId | undefined): boolean {
  if (recoveryGoingOn(file) !== undefined) return true;
  if (readOnlyStores.has(file) || sameFile(fileId(file), before)) return false;
  const holders = lockHolders(file);
  return holders !== undefined && !holders.includes(process.pid);
}

/**
 * The `-wal`/`-shm` at the path when only this process holds them and it holds no lock on the file
 * there: a connection given up (see openStore) made them for the file moved aside, removed so the file
 * at the path never reads them.
 */
function dropOwnSideFiles(file: string): void {
  const shm = lockHolders(`${file}-shm`);
  if (!shm?.length || shm.some((p) => p !== process.pid)) return;
  if (lockHolders(file)?.length) return;
  for (const side of ['-wal', '-shm']) removeIfSame(`${file}${side}`, undefined);
}

function openAt(file: string, warn: (line: string) => void): DatabaseSync {
  mkdirSync(dirname(file), { recursive: true });
  refuseNonFile(file);
  const fixed = repairSideFiles(file);
  if (fixed) warn(`the run store ${file} was repaired: ${fixed}`);
  keepPrivate(file);
  try {
    return migrated(openFile(file), file);
  } catch (e) {
    // A disk I/O error at open: side files that stopped matching since (another process's WAL
    // deleted) are repaired once more and the open tried again.
    if (sqliteCode(e) === SQLITE_IOERR) {
      const again = repairSideFiles(file);
      if (again) {
        warn(`the run store ${file} was repaired: ${again}`);
        return migrated(openFile(file), file);
      }
    }
    throw damaged(e, file) ?? e;
  }
}

/**
 * The store holds every script, prompt, tool result and log of the workspace's runs: readable by its
 * owner only (docs/security.md, "Who is trusted": other users of the machine are not trusted with it).
 * With the default umask SQLite made `runs.db` 0644, so any user who could reach the folder read every
 * run. A new store is created 0600 (SQLite gives its `-wal` and `-shm` the database's mode); an existing
 * one, and its side files, lose their group and other bits. A file this user may not chmod (another
 * user's) is left as it is: opening it says what is wrong, if anything.
 */
function keepPrivate(file: string): void {
  // Only a new file is made here: opening and closing an existing one would drop the locks this
  // process's SQLite holds on it (POSIX locks go with any descriptor of the file that is closed), and
  // a store opened again in the same process (after its WAL was lost) shares them.
  if (!existsSync(file))
    try {
      closeSync(openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600));
    } catch {
      return; // (opening the store names the cause)
    }
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) dropGroupAndOtherBits(f);
}

function migrated(db: DatabaseSync, file: string): DatabaseSync {
  try {
    migrate(db, file);
    if (file !== ':memory:' && !readOnlyStores.has(file)) stampStoreId(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * Gives a store without one its own id (SQLite's `application_id`, in the database file's header):
 * the file's header is read directly by StoreConnection, so a `runs.db` overwritten in place (`cp
 * other.db runs.db`, `cat other.db > runs.db`: the same file, another content) is told from this
 * store. Set inside the write lock (two processes opening an older store at once agree on one id)
 * and checkpointed at once, so the header on disk holds it.
 */
function stampStoreId(db: DatabaseSync, checkpoint = true): void {
  const read = () => (db.prepare('PRAGMA application_id').get() as { application_id: number }).application_id;
  if (read() !== 0) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    if (read() === 0) db.exec(`PRAGMA application_id = ${1 + Math.floor(Math.random() * 0x7ffffffe)}`);
    db.exec('COMMIT');
  } catch (e) {
    db.exec('ROLLBACK');
    throw e;
  }
  if (!checkpoint) return;
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // Busy: a later checkpoint writes it.
  }
}

/** The first bytes of every SQLite database file. */
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** A store path that is a folder (or not a regular file) is refused, naming it. */
function refuseNonFile(file: string): void {
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw new RunStoreError(
      `the run store ${file} cannot be opened (${code}: ${code === 'ELOOP' ? 'a symbolic link loop' : errorText(e)})`,
    );
  }
  if (!st.isFile())
    throw new RunStoreError(
      `the run store ${file} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}; move it away so a new store can be created`,
    );
}

const SQLITE_IOERR = 10;
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;
const sqliteCode = (e: unknown): number | undefined => {
  const c = (e as { errcode?: unknown })?.errcode;
  return typeof c === 'number' ? c & 0xff : undefined;
};

/** A store file that SQLite finds damaged (not a database, malformed, cut short). */
export class StoreDamagedError extends RunStoreError {
  override name = 'StoreDamagedError';
  readonly file: string;
  constructor(file: string, cause: string) {
    super(
      `the run store ${file} is damaged (${cause}); \`toolsmith runs recover\` keeps every run that can be read and moves the damaged file aside`,
    );
    this.file = file;
  }
}

/** The damage SQLite reports, as a StoreDamagedError naming the file, or undefined for other errors. */
export function damaged(e: unknown, file: string): StoreDamagedError | undefined {
  if (e instanceof StoreDamagedError) return e;
  const code = sqliteCode(e);
  const msg = errorText(e);
  if (code === SQLITE_CORRUPT) return new StoreDamagedError(file, `SQLITE_CORRUPT: ${msg}`);
  if (code === SQLITE_NOTADB) return new StoreDamagedError(file, `SQLITE_NOTADB: ${msg}`);
  // A file cut short reads as a short read (SQLITE_IOERR_SHORT_READ, 522).
  if ((e as { errcode?: unknown })?.errcode === 522) return new StoreDamagedError(file, `cut short: ${msg}`);
  return undefined;
}

/**
 * Opens the file (WAL). When the disk is too full for SQLite to create the WAL's shared-memory file,
 * an existing store opens read-only and immutable (no WAL is live then: no other process has it open),
 * so listing and reading runs goes on; every write says the disk is full.
 */
function openFile(file: string): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file);
    // A new (empty) file gets its store id before it turns to WAL: written to the file itself, with no
    // checkpoint (one would leave the WAL's space free for later writes, which a full disk then no
    // longer refuses). An older store gets it at its first open (migrated).
    if (file !== ':memory:' && statSync(file, { throwIfNoEntry: false })?.size === 0) {
      db.exec('PRAGMA busy_timeout = 5000');
      stampStoreId(db, false);
    }
    // The busy timeout first: switching a new file to WAL takes a lock another process opening the same
    // store may hold for a moment ("database is locked" without a wait).
    db.exec(
      'PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;',
    );
    readOnlyStores.delete(file);
    return db;
  } catch (e) {
    db?.close();
    if (file === ':memory:' || !existsSync(file) || !isDiskFull(e, file)) throw e;
    const ro = new DatabaseSync(new URL(`${pathToFileURL(file).href}?immutable=1`), { readOnly: true });
    readOnlyStores.set(
      file,
      `${fullCause(e)}: the store was opened read-only because the disk was full when it was opened`,
    );
    return ro;
  }
}

function migrate(db: DatabaseSync, file: string): void {
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const row = stmt<[], { value: string }>(db, "SELECT value FROM meta WHERE key = 'schema_version'").get();
  const current = row ? Number(row.value) : 0;
  if (current > MIGRATIONS.length) {
    throw new RunStoreError(
      `${file} has schema version ${current}, newer than this Toolsmith (${MIGRATIONS.length}); upgrade Toolsmith`,
    );
  }
  if (current === MIGRATIONS.length) return;
  const setVersion = stmt<[version: string], never>(
    db,
    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  );
  const versionNow = stmt<[], { value: string }>(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  for (;;) {
    // The version is read again inside the write lock: two processes opening a new store at once
    // would otherwise both apply the same migration.
    db.exec('BEGIN IMMEDIATE');
    try {
      const row = versionNow.get();
      const v = row ? Number(row.value) : 0;
      if (v >= MIGRATIONS.length) {
        db.exec('COMMIT');
        break;
      }
      db.exec(MIGRATIONS[v] as string);
      setVersion.run(String(v + 1));
      db.exec('COMMIT');
    } catch (e) {
      db.exec('ROLLBACK');
      throw e;
    }
  }
}

/** A file's identity: a file replaced (renamed over, deleted and created again) has another. */
interface FileId {
  dev: number;
  ino: number;
}

function fileId(path: string): FileId | undefined {
  try {
    const s = statSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

function fdId(fd: number): FileId | undefined {
  try {
    const s = fstatSync(fd);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

const sameFile = (a: FileId | undefined, b: FileId | undefined) =>
  a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;

/**
 * Connections given up because their file was removed or replaced under them. They are never closed:
 * SQLite checkpoints a connection's WAL into its database file on close and then deletes the WAL by
 * name, which would write an orphaned WAL over a newer file or delete another process's WAL. Kept
 * referenced (never collected) and, once there is one, the process leaves through `process.exit`
 * (Node closes open connections when its event loop ends, not on `process.exit`).
 */
const abandoned: DatabaseSync[] = [];
function abandon(db: DatabaseSync): void {
  if (abandoned.length === 0) process.once('beforeExit', (code) => process.exit(process.exitCode ?? code));
  abandoned.push(db);
}

/** What a store's owner does when its file was replaced: read what to keep, then write it anew. */
export type OnReplaced = (old: DatabaseSync, why: ReplacedWhy) => (() => string | undefined) | undefined;
export type ReplacedWhy =
  'deleted' | 'replaced' | 'overwritten' | 'wal deleted' | 'wal replaced' | 'shm lost';

/**
 * How often statements check the file's identity at most. Before a checkpoint the check is always
 * made: a checkpoint is the one write that could put an orphaned WAL into a live file.
 */
const CHECK_MS = 50;
/** How often an open store checks its files when no statement asks (see StoreConnection.watch). */
const WATCH_MS = 250;
/** How long an overwritten file must stay unchanged before it is acted on (a copy still going on). */
const STABLE_MS = 300;
/** The WAL is checkpointed by the store (not by SQLite's auto-checkpoint) past this many frames. */
const CHECKPOINT_FRAMES = 1000;

/**
 * The frames in the WAL (its index's header in `-shm`: mxFrame), 0 when it cannot be read. It is read
 * through `fd`, a descriptor the connection keeps open on its `-shm` for as long as it lives: closing
 * any descriptor of a file drops every POSIX lock this process holds on it, and SQLite's lock on the
 * `-shm` is how other processes know a live process uses that WAL index. Opened and closed here at
 * each check (as before), it dropped that lock after the first 16 writes: the next process to open
 * the store took itself for the first, cut the `-shm` to 3 bytes and rebuilt it under the live
 * process, and a `runs.db` replaced under `serve` read serve's old WAL into itself (below).
 */
function walFrames(fd: number | undefined): number {
  if (fd === undefined) return 0;
  try {
    const hdr = Buffer.alloc(20);
    return readSync(fd, hdr, 0, 20, 0) === 20 ? hdr.readUInt32LE(16) : 0;
  } catch {
    return 0;
  }
}

/** The database file's schema cookie (header bytes 40-43, big-endian: bumped by a VACUUM), 0 if unread. */
function schemaCookie(fd: number | undefined): number {
  if (fd === undefined) return 0;
  try {
    const b = Buffer.alloc(4);
    return readSync(fd, b, 0, 4, 40) === 4 ? b.readUInt32BE(0) : 0;
  } catch {
    return 0;
  }
}

/**
 * What the WAL index (`-shm`) says: `mark`, the checkpoints done, as one string (the log's salt, new
 * each time the log starts over, and how far it was written into the database file, nBackfill, or is
 * being written, nBackfillAttempted, set before a checkpoint writes a page); `bytes`, the database's
 * size as of its last commit (nPage x the page size); `page`, the page size; `backfilled`, the frames
 * written into the database file (nBackfill); `attempted`, the frames a checkpoint set out to write
 * (nBackfillAttempted). Undefined when it cannot be read.
 */
function walIndex(fd: number | undefined): WalIndex | undefined {
  if (fd === undefined) return undefined;
  try {
    const hdr = Buffer.alloc(136);
    if (readSync(fd, hdr, 0, 136, 0) !== 136) return undefined;
    const page = hdr.readUInt16LE(14);
    return {
      mark: `${hdr.readUInt32LE(32)}.${hdr.readUInt32LE(36)}.${hdr.readUInt32LE(96)}.${hdr.readUInt32LE(128)}`,
      bytes: hdr.readUInt32LE(20) * (page === 1 ? 65536 : page),
      page: page === 1 ? 65536 : page,
      backfilled: hdr.readUInt32LE(96),
      attempted: hdr.readUInt32LE(128),
      frames: hdr.readUInt32LE(16),
      commits: hdr.readUInt32LE(8),
      // (the log's own bytes, big-endian as in its header: one more at each start over)
      restarts: hdr.readUInt32BE(32),
    };
  } catch {
    return undefined;
  }
}

/**
 * What walIndex reads, and more: `frames`, the log's last frame (mxFrame); `commits`, the index's change
 * counter (iChange: one more at each commit, kept when the log starts over); `restarts`, the log's first
 * salt (one more each time the log starts over).
 */
interface WalIndex {
  mark: string;
  bytes: number;
  page: number;
  backfilled: number;
  attempted: number;
  frames: number;
  commits: number;
  restarts: number;
}

/**
 * Whether the WAL index moved from `then` to `now` only because the log started over, with no checkpoint
 * since (so SQLite wrote nothing to the database file): the log started over once, every frame of the
 * log `then` had been written into the file by then (so none was left to checkpoint before the start
 * over), no checkpoint has started in the new log, and every commit since `then` is in the new log (its
 * commit frames, read from `wal`, are as many as the commits counted since; a commit that went to the
 * old log because a reader held it, and a checkpoint of it, would leave fewer). Anything that cannot be
 * read is taken for a checkpoint (false), as every move of the index was before.
 */
function onlyStartedOver(then: WalIndex | undefined, now: WalIndex, wal: string): boolean {
  if (!then || now.restarts !== (then.restarts + 1) >>> 0) return false;
  if (then.backfilled !== then.frames || then.attempted !== then.frames) return false;
  if (now.backfilled !== 0 || now.attempted !== 0 || now.frames === 0) return false;
  const since = (now.commits - then.commits) >>> 0;
  if (since === 0 || since > now.frames) return false;
  let fd: number | undefined;
  try {
    fd = openSync(wal, 'r');
    const hdr = Buffer.alloc(32);
    if (readSync(fd, hdr, 0, 32, 0) !== 32 || hdr.readUInt32BE(16) !== now.restarts) return false;
    const salts = hdr.subarray(16, 24);
    const frame = Buffer.alloc(24);
    let commits = 0;
    for (let i = 0; i < now.frames; i++) {
      if (readSync(fd, frame, 0, 24, 32 + i * (24 + now.page)) !== 24) return false;
      if (!frame.subarray(8, 16).equals(salts)) return false;
      if (frame.readUInt32BE(4) !== 0) commits++;
    }
    return commits === since;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** dbMark before the connection's first look (no WAL index has this mark). */
const NOT_SEEN = 'not seen';

/** The frames of the WAL index's first block (its aPgno array after the 136-byte header). */
const INDEX_FIRST_BLOCK_FRAMES = 4062;
/** How many pages of the database file are kept as the sample a write by another program is told by. */
const SAMPLE_PAGES = 12;

/**
 * The numbers of the pages the last checkpoint wrote into the database file (at most the last
 * SAMPLE_PAGES frames it copied, read from the WAL index's page array, in this machine's byte order as
 * SQLite writes it), or [] when the log has started over since (its frames are then other pages).
 */
function checkpointedPages(fd: number | undefined, backfilled: number): number[] {
  if (fd === undefined || backfilled <= 0 || backfilled > INDEX_FIRST_BLOCK_FRAMES) return [];
  try {
    const from = Math.max(1, backfilled - SAMPLE_PAGES + 1);
    const b = Buffer.alloc((backfilled - from + 1) * 4);
    if (readSync(fd, b, 0, b.length, 136 + (from - 1) * 4) !== b.length) return [];
    const pages: number[] = [];
    for (let i = 0; i < b.length; i += 4) pages.push(b.readUInt32LE(i));
    return pages;
  } catch {
    return [];
  }
}

/**
 * Whether the `-wal` at `wal` is the log the WAL index read through `shmFd` describes: its header's salts
 * (bytes 16-23, which SQLite copies as they are into the index header's aSalt, bytes 32-39) are the
 * index's, and it is long enough to hold the frames the index counts. A copy of another log written over
 * it in place (`cp backup/runs.db* .toolsmith/`: the same inode) has salts of its own, or, an older copy
 * of the same log, fewer frames. An empty file, or one that cannot be read, is taken for this one's.
 */
function walIsIndexed(shmFd: number | undefined, wal: string): boolean {
  if (shmFd === undefined) return true;
  let fd: number | undefined;
  try {
    const idx = Buffer.alloc(40);
    if (readSync(shmFd, idx, 0, 40, 0) !== 40) return true;
    fd = openSync(wal, 'r');
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const hdr = Buffer.alloc(32);
    if (readSync(fd, hdr, 0, 32, 0) !== 32) return false;
    if (!hdr.subarray(16, 24).equals(idx.subarray(32, 40))) return false;
    const page = idx.readUInt16LE(14);
    const frames = idx.readUInt32LE(16);
    return size >= 32 + frames * (24 + (page === 1 ? 65536 : page));
  } catch {
    return true;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The content of `pages` of the database file (`page` bytes each; a page past its end reads short). */
function readPages(fd: number, pages: readonly number[], page: number): Buffer[] {
  return pages.map((n) => {
    const b = Buffer.alloc(page);
    const got = readSync(fd, b, 0, page, (n - 1) * page);
    return got === page ? b : b.subarray(0, got);
  });
}

/**
 * The store's connection with its file's identity: before each write transaction (and each read, at
 * most every READ_CHECK_MS) the database file and its WAL are checked to be the ones it opened. A file
 * removed or replaced (deleted by hand, restored from a backup, its `-wal` deleted) is never written
 * again: the connection is given up (see `abandon`), what this process wrote is read from it (its view
 * of the old file), the store is opened again at the same path (a new file when there is none; stale
 * `-wal`/`-shm` repaired) and the runs of this process are written there, with a line on stderr.
 */
export class StoreConnection implements Guard {
  db: DatabaseSync;
  /** Bumped at each reopen: statements prepared on an older connection are prepared again. */
  generation = 0;
  readonly file: string;
  onReplaced: OnReplaced | undefined;
  warn: (line: string) => void = (line) => process.stderr.write(`toolsmith: ${line}\n`);
  private dbId: FileId | undefined;
  private walId: FileId | undefined;
  private shmId: FileId | undefined;
  /** A descriptor on this connection's `-shm`, kept open while the connection lives (see walFrames). */
  private shmFd: number | undefined;
  /**
   * A descriptor on the database file, kept open (closing any descriptor of the file would drop this
   * process's SQLite locks on it): its header is read at each check (see overwritten).
   */
  private dbFd: number | undefined;
  /** The store's id (`application_id`, see stampStoreId) and the file's size at the last check. */
  private storeId = 0;
  private dbSize = 0;
  /**
   * walIndex's mark when dbSize was last seen (see overwriteOf); NOT_SEEN until the first look, so the
   * sample is read then, and after that only when the mark moves.
   */
  private dbMark: string | undefined = NOT_SEEN;
  /** The WAL index as read when dbMark was last seen (see onlyStartedOver). */
  private dbIndex: WalIndex | undefined;
  /** The file's schema cookie (its header's bytes 40-43) when dbSize was last seen (see overwriteOf). */
  private dbCookie = 0;
  /** The file's modification and change times when dbSize was last seen (see overwriteOf). */
  private dbTimes = '';
  /**
   * Pages of the file as they were when dbMark was last seen (`samplePages`: page 1, the last page and
   * the pages the last checkpoint wrote): with no checkpoint since, only another program can change
   * them (see overwriteOf).
   */
  private samplePages: number[] = [];
  private sample: Buffer[] = [];
  /** An overwrite seen and not yet acted on: the file's size and time, and since when (see overwritten). */
  private suspect: { size: number; mtime: number; at: number; verdict: string } | undefined;
  /** What the file was overwritten with, in words (see overwritten), for the reopen's line. */
  private overwrittenWith = '';
  /** The periodic check (see watch). */
  private timer: ReturnType<typeof setInterval> | undefined;
  /** The workspace folder (the store's folder's parent) as opened: a move is told from a deleted `.toolsmith`. */
  private rootId: FileId | undefined;
  private lastCheck = 0;
  /**
   * When the files were last found to be the ones opened (steadyNow, ms): what this process wrote
   * after it may have gone to a file already replaced, and is carried to the new one whatever its state.
   */
  okAt = steadyNow();

  /**
   * Where this connection's write-ahead log ends now: its salt (new each time the log starts over, which
   * it does only after every frame was checkpointed) and its frames, with the connection's generation.
   * A run's mark after its end was committed tells whether that end is in the database file yet, or
   * only in the log (see checkpointed). Undefined when the WAL index cannot be read.
   */
  walMark(): WalMark | undefined {
    this.keepShm();
    const w = walIndex(this.shmFd);
    if (!w) return undefined;
    return { generation: this.generation, salt: w.mark.split('.').slice(0, 2).join('.'), frames: w.frames };
  }

  /**
   * A test of whether what was committed up to a mark (see walMark) is in the database file, the WAL
   * index read once for every mark it is asked about: the log started over
   * since (every frame checkpointed), or its checkpoints wrote that far (nBackfill). A mark of a
   * connection given up or closed (an earlier generation) is no longer this connection's: true.
   */
  checkpointedTest(): (mark: WalMark) => boolean {
    const w = walIndex(this.shmFd);
    const salt = w?.mark.split('.').slice(0, 2).join('.');
    return (mark) =>
      mark.generation !== this.generation || (!!w && (salt !== mark.salt || w.backfilled >= mark.frames));
  }

  /** What the file was last found overwritten in place with, in words (see overwritten); '' if never. */
  get overwriteVerdict(): string {
    return this.overwrittenWith;
  }

  /** Whether the file looks overwritten in place and is not acted on yet (a copy still going on). */
  get beingOverwritten(): boolean {
    return this.suspect !== undefined;
  }
  private checking = false;
  private commits = 0;
  /** The folder-gone line was written (see folderGone); cleared when the folder is back. */
  private awayWarned = false;

  constructor(file: string) {
    this.file = file;
    this.db = openStore(file);
    this.remember();
    this.watch();
  }

  /**
   * Checks the files every WATCH_MS even when no statement runs (an idle `serve`): a `runs.db`
   * overwritten in place is noticed, and this process's write-ahead log removed from beside it, before
   * another process opens the store and reads that log into the new content.
   */
  private watch(): void {
    // TOOLSMITH_STORE_WATCH_MS=0 turns it off (a test of what another process meets before the check).
    const ms = Number(process.env['TOOLSMITH_STORE_WATCH_MS'] || WATCH_MS);
    if (this.file === ':memory:' || !(ms > 0)) return;
    this.timer = setInterval(() => {
      if (this.db.isTransaction || this.checking || !this.dbId) return;
      try {
        // Only the overwrite: a file deleted or replaced is noticed at the next statement, as before
        // (a check here would race a `.toolsmith` being removed file by file).
        if (!sameFile(fileId(this.file), this.dbId)) return;
        const over = this.overwritten();
        if (over) {
          this.overwrittenWith = over;
          this.reopen('overwritten');
        }
      } catch (e) {
        this.warn(`could not check the run store's files: ${errorText(e)}`);
      }
    }, ms);
    this.timer.unref();
  }

  /** Errors of a statement: a damaged file named as such (StoreDamagedError). */
  failed(e: unknown): unknown {
    return damaged(e, this.file) ?? e;
  }

  private remember(): void {
    if (this.file === ':memory:' || readOnlyStores.has(this.file)) return;
    // SQLite's own checkpoints are off: a checkpoint writes the WAL into the database file, and this
    // connection checks first that both are still the files it opened (see afterCommit).
    this.db.exec('PRAGMA wal_autocheckpoint = 0');
    this.okAt = steadyNow();
    this.dbId = fileId(this.file);
    this.walId = fileId(`${this.file}-wal`);
    this.keepShm();
    this.keepDbFd();
    try {
      this.storeId = (
        this.db.prepare('PRAGMA application_id').get() as { application_id: number }
      ).application_id;
    } catch {
      this.storeId = 0;
    }
    const wal = walIndex(this.shmFd);
    const st = this.dbFd === undefined ? undefined : fstatSync(this.dbFd);
    this.samplePages = [];
    this.sample = [];
    this.dbMark = NOT_SEEN;
    this.seen(st?.size ?? 0, wal, st ? `${st.mtimeMs}/${st.ctimeMs}` : '', schemaCookie(this.dbFd));
    this.rootId ??= fileId(dirname(dirname(this.file)));
    guardConnection(this.db, this);
  }

  /**
   * Opens the descriptor walFrames reads, on the `-shm` SQLite opened for this connection (none yet:
   * at the next check). The descriptor of a connection given up stays open with it: closing it would
   * drop the locks of that connection, which may share its `-shm` with the new one.
   */
  private keepShm(): void {
    if (this.shmFd !== undefined) return;
    try {
      const shm = `${this.file}-shm`;
      try {
        this.shmFd = openSync(shm, 'r+');
      } catch {
        this.shmFd = openSync(shm, 'r');
      }
      const st = fstatSync(this.shmFd);
      this.shmId = { dev: st.dev, ino: st.ino };
    } catch {
      this.shmFd = undefined;
    }
  }

  /**
   * Opens the descriptor the header is read through, on the database file now opened (one on another
   * file, of a connection given up, stays open with it: see keepShm).
   */
  private keepDbFd(): void {
    if (this.dbFd !== undefined && sameFile(fdId(this.dbFd), this.dbId)) return;
    try {
      this.dbFd = openSync(this.file, 'r');
      if (!sameFile(fdId(this.dbFd), this.dbId)) this.dbFd = undefined;
    } catch {
      this.dbFd = undefined;
    }
  }

  /**
   * What the database file (the same file: not deleted nor renamed over) was overwritten with, in
   * words, or undefined: its header is no longer SQLite's, it names another store's id, or it
   * shrank (an older copy put back with `cp`). SQLite cannot tell it: it reads this process's
   * write-ahead log over whatever the file now holds, and a checkpoint writes that log into it.
   */
  private overwritten(): string | undefined {
    if (this.dbFd === undefined) return undefined;
    // The WAL index first: a checkpoint marks it before it writes a page of the file, so a write seen
    // below with the mark unchanged since the last look is another program's.
    const wal = walIndex(this.shmFd);
    let st: Stats;
    const hdr = Buffer.alloc(100);
    let n: number;
    try {
      st = fstatSync(this.dbFd);
      n = st.size === 0 ? 0 : readSync(this.dbFd, hdr, 0, 100, 0);
    } catch {
      return undefined;
    }
    const size = st.size;
    const times = `${st.mtimeMs}/${st.ctimeMs}`;
    const verdict = this.overwriteOf(size, hdr, n, wal, times);
    if (!verdict) {
      this.seen(size, wal, times, n >= 100 ? hdr.readUInt32BE(40) : 0);
      this.suspect = undefined;
      return undefined;
    }
    // A copy is written in pieces (`cp` cuts the file, then writes it): acted on only once the file
    // has stayed the same (size and modification time) for STABLE_MS, never on a half-copied file.
    // Meanwhile nothing is checkpointed (see afterCommit).
    const mtime = st.mtimeMs;
    const t = performance.now();
    const s = this.suspect;
    if (!s || s.size !== size || s.mtime !== mtime) {
      this.suspect = { size, mtime, at: t, verdict };
      return undefined;
    }
    if (t - s.at < STABLE_MS) return undefined;
    this.suspect = undefined;
    this.dbSize = size;
    return verdict;
  }

  /**
   * The file as seen whole at a check: its size, the WAL index's mark (read before the file), its
   * times and cookie, and (when the mark moved: a checkpoint wrote the file) its sample of pages read again.
   */
  private seen(size: number, wal: WalIndex | undefined, times: string, cookie: number): void {
    // Read again only when the mark moved: a file with no whole page yet (an empty sample) is not read
    // again at every look, since only a checkpoint (which moves the mark) or another program writes it.
    if (this.dbFd !== undefined && wal?.mark !== this.dbMark) {
      const written = checkpointedPages(this.shmFd, wal?.backfilled ?? 0);
      const page = wal?.page ?? 4096;
      const last = Math.floor(size / page);
      // The pages the last checkpoint wrote; when the log has started over since, the last sample's.
      const pages = written.length ? written : this.samplePages.filter((p) => p > 1 && p < last);
      this.samplePages = [...new Set([1, ...(last > 1 ? [last] : []), ...pages])].filter((p) => p <= last);
      try {
        this.sample = readPages(this.dbFd, this.samplePages, page);
      } catch {
        this.samplePages = [];
        this.sample = [];
      }
    }
    this.dbSize = size;
    this.dbMark = wal?.mark;
    this.dbIndex = wal;
    this.dbCookie = cookie;
    this.dbTimes = times;
  }

  /** What the file's size and header say it was overwritten with, or undefined (see overwritten). */
  private overwriteOf(
    size: number,
    hdr: Buffer,
    n: number,
    wal: WalIndex | undefined,
    times: string,
  ): string | undefined {
    const before = this.dbSize;
    if (size === 0) return before > 0 ? 'nothing: it was emptied (0 bytes)' : undefined;
    if (n < 100 || !hdr.subarray(0, 16).equals(SQLITE_MAGIC))
      return "something that is not an SQLite database (its first bytes are not SQLite's)";
    const id = hdr.readInt32BE(68);
    if (this.storeId !== 0 && id !== 0 && id !== this.storeId)
      return `another run store (its id ${id} is not this store's, ${this.storeId})`;
    if (wal === undefined) return undefined;
    // A checkpoint sets nBackfillAttempted before it writes a page and nBackfill only once the pages are
    // written and the file synced, which can take seconds: while the two differ, SQLite may be writing
    // the file (or a checkpoint was killed there, or the log was recovered, which marks its frames as
    // attempted), so no change of the file is taken for another program's until a checkpoint ends.
    // Before, a look between another process's page writes and its mark took them for an overwrite and
    // emptied the log every process shares under that checkpoint.
    if (wal.attempted !== wal.backfilled) return undefined;
    // No checkpoint since the last look: the WAL index's mark is the same, or it moved only because the
    // log started over (another process's first write after a checkpoint of the whole log), which writes
    // nothing to the file. Before, any move of the mark was taken for a checkpoint: an older copy of the
    // same size put back, then another process's write, went unseen, and a run in flight whose rows the
    // copy lacked failed at its next event ("no run ...").
    const noCheckpoint = wal.mark === this.dbMark || onlyStartedOver(this.dbIndex, wal, `${this.file}-wal`);
    // A shrink is SQLite's own after the database got smaller (a VACUUM; runs deleted with auto_vacuum
    // on), written by a checkpoint: in WAL mode only a checkpoint writes the file. So a file that shrank
    // is an older copy when no checkpoint ran since it was last seen (the WAL index's mark is the same),
    // or when the database is still at least as large as the file was. Before, any shrink was: a VACUUM
    // emptied the log every process shares, and the runs other processes had committed were lost.
    // A VACUUM also bumps the schema cookie, which the checkpoint that shrank the file wrote there: with a
    // checkpoint since, that shrink is SQLite's even when another process has meanwhile committed more
    // than the VACUUM took back (the database larger again than the file was; taken for an older copy,
    // those commits were emptied out of the shared log). An older copy never has a newer cookie.
    if (size < before) {
      const vacuumed = n >= 100 && hdr.readUInt32BE(40) > this.dbCookie;
      if (!noCheckpoint && (wal.bytes < before || vacuumed)) return undefined;
      return `an older copy of it (the file shrank from ${before} to ${size} bytes, ${noCheckpoint ? 'with no checkpoint' : `the database being ${wal.bytes} bytes`})`;
    }
    // With no checkpoint since the last look, SQLite has not written the file: a file that grew, or whose
    // pages changed (an older copy of the same size put back, `cp -p` or not), was written by another
    // program. Its times alone say nothing (`touch`): the pages kept in the sample are compared.
    if (!noCheckpoint || times === this.dbTimes || this.dbFd === undefined) return undefined;
    if (size > before)
      return `another copy of it (the file grew from ${before} to ${size} bytes with no checkpoint)`;
    let now: Buffer[];
    try {
      now = readPages(this.dbFd, this.samplePages, wal.page);
    } catch {
      return undefined;
    }
    const differ = now.filter((b, i) => !b.equals(this.sample[i] ?? Buffer.alloc(0))).length;
    if (differ === 0) return undefined;
    return `an older copy of it (the same size, ${differ} of ${now.length} pages compared changed with no checkpoint)`;
  }

  /** Why the files at the path are no longer the ones this connection opened, or undefined. */
  private changed(): ReplacedWhy | undefined {
    const now = fileId(this.file);
    if (!now && !existsSync(dirname(this.file))) {
      // Only the store's folder went (`.toolsmith` deleted or renamed), in a workspace that is still the
      // folder opened at its path: not a move, so the folder is made again and the store goes on there
      // as after a deleted `runs.db` (its runs in flight written there). Before, it went on in the
      // deleted file, saying the workspace was deleted, and every run after that was lost.
      if (sameFile(fileId(dirname(dirname(this.file))), this.rootId)) {
        try {
          mkdirSync(dirname(this.file));
          this.warn(
            `the run store's folder ${dirname(this.file)} was deleted or renamed while this process (pid ${process.pid}) had it open; the workspace ${dirname(dirname(this.file))} is still there, so the folder is made again`,
          );
          this.awayWarned = false;
          return 'deleted';
        } catch {
          // Made by another process meanwhile, or not writable: the checks below (or the next) say it.
          if (!existsSync(dirname(this.file))) return this.folderGone();
        }
      } else return this.folderGone();
    }
    this.awayWarned = false;
    if (!now) return 'deleted';
    if (!sameFile(now, this.dbId)) return 'replaced';
    const over = this.overwritten();
    if (over) {
      this.overwrittenWith = over;
      return 'overwritten';
    }
    const wal = fileId(`${this.file}-wal`);
    if (this.walId === undefined) {
      this.walId = wal;
      this.keepShm();
      return undefined;
    }
    if (!wal) return 'wal deleted';
    if (!sameFile(wal, this.walId)) return 'wal replaced';
    // The WAL index (`-shm`) deleted or replaced: the next process to open the store builds another
    // index of the same WAL, and two writers with two indexes write over each other's frames (the
    // store was "malformed" after a second serve's runs).
    if (this.shmId && !sameFile(fileId(`${this.file}-shm`), this.shmId)) return 'shm lost';
    return undefined;
  }

  /**
   * The store's folder is gone with the file: the workspace was moved (renamed, dragged elsewhere) or
   * deleted while this process runs. No new store is made at the old path: that made a ghost
   * `.toolsmith/runs.db` there (so moving the workspace back nested it inside) and split its runs
   * between two stores. The connection goes on in the file it opened, wherever the folder now is,
   * so a moved workspace keeps every run; a line on stderr says where, once.
   */
  private folderGone(): undefined {
    if (this.awayWarned) return undefined;
    this.awayWarned = true;
    const now = openPathOf(this.dbId);
    const where =
      now && !now.endsWith(' (deleted)')
        ? `the workspace was moved: it goes on writing to the run store it opened, now ${now}`
        : 'the workspace was deleted: the runs this process records from now on cannot be kept on disk';
    this.warn(
      `the run store's folder ${dirname(this.file)} is gone while this process (pid ${process.pid}) had it open; ` +
        `${where}; no new store is made at the old path (start Toolsmith again on the workspace where it is now)`,
    );
    return undefined;
  }

  /**
   * Checks the files (at most every CHECK_MS unless `force`: a write to a file replaced within that
   * window is written again to the new file with the rest of this process's runs). A write (`write`)
   * looks at the database file's header even within CHECK_MS (see lookBeforeWrite). A file that looks
   * overwritten and is not acted on yet refuses the statement (see refuseWhileOverwritten) unless
   * `statement` is false (a look alone, as the watch's).
   */
  check(force: boolean, statement = true, write = false): void {
    if (!this.dbId || this.checking) return;
    const t = performance.now();
    if (!force && !this.suspect && t - this.lastCheck < CHECK_MS) {
      if (write) this.lookBeforeWrite(statement);
      return;
    }
    this.lastCheck = t;
    const why = this.changed();
    if (why) this.reopen(why);
    // While the file looks overwritten (waiting for it to stay the same), it is not seen whole: a run
    // that ends meanwhile is still carried to the content there once acted on.
    else if (!this.suspect) this.okAt = steadyNow();
    else if (statement) this.refuseWhileOverwritten(write);
  }

  /**
   * A write within CHECK_MS of the last check: the database file's header and size are looked at all
   * the same (a stat and two reads through the descriptors kept). Before, a write within 50 ms of a
   * check that had not yet seen an overwrite went to the old content's write-ahead log, which the reopen
   * empties, and was lost without a word (an import, a suite result, a template count). What is left is
   * the time between this look and the commit.
   */
  private lookBeforeWrite(statement: boolean): void {
    const over = this.overwritten();
    if (over) {
      this.overwrittenWith = over;
      this.reopen('overwritten');
    } else if (this.suspect && statement) this.refuseWhileOverwritten(true);
  }

  /**
   * A statement while the file looks overwritten and is not yet acted on (see overwritten: it must stay
   * the same STABLE_MS, a copy may still be going on) is refused at once with a StoreOverwrittenError:
   * the event log holds a run's events, template counts and a suite run's later writes, written to the
   * new content once the overwrite is acted on (by the watch, or the first statement after the file
   * stayed the same); any other write is refused, naming why. Before, the statement waited for it in a
   * loop of synchronous sleeps, up to 10 s while a copy went on: the process (serve, the MCP server, the
   * workbench) answered nothing meanwhile.
   */
  private refuseWhileOverwritten(write: boolean): void {
    const s = this.suspect;
    if (s) throw new StoreOverwrittenError(this.file, s.verdict, !write);
  }

  /**
   * After a committed write: the WAL checkpointed past CHECKPOINT_FRAMES (SQLite's own threshold),
   * the files checked first.
   */
  afterCommit(): void {
    if (!this.dbId || ++this.commits % 16 !== 0) return;
    this.keepShm();
    // The file looks overwritten and is not yet acted on: its old WAL is never written into it.
    if (this.suspect) return;
    if (walFrames(this.shmFd) < CHECKPOINT_FRAMES) return;
    this.check(true, false);
    if (this.suspect) return;
    try {
      this.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch {
      // A busy or failed checkpoint is tried again later; the data is in the WAL.
    }
  }

  private reopen(why: ReplacedWhy): void {
    if (why === 'shm lost' && this.closeForNewIndex()) return;
    if (why === 'overwritten') return this.reopenOverwritten();
    this.checking = true;
    const old = this.db;
    try {
      let restore: (() => string | undefined) | undefined;
      // This process's view of the old store: its connection, or (the WAL lost) a copy of the file and
      // of the deleted WAL it still holds open: the shared `-shm` may already describe another WAL,
      // and reading through the old connection would rebuild it from the orphan.
      const copy = why === 'deleted' || why === 'replaced' ? undefined : this.copyOfOwnView();
      try {
        const view = why === 'deleted' || why === 'replaced' ? old : copy?.db;
        if (view && this.onReplaced) restore = this.onReplaced(view, why);
        else if (this.onReplaced)
          this.warn(
            `the runs this process wrote since the last checkpoint could not be read again (no copy of its WAL)`,
          );
      } catch (e) {
        this.warn(`could not read this process's runs from the replaced store: ${errorText(e)}`);
      } finally {
        copy?.dispose();
      }
      abandon(old);
      if (why === 'deleted' || why === 'replaced') {
        // Our `-wal` and `-shm` belong to the old file: the new one must not read them. Only ours: another
        // process may already use the new file's (before, any `-shm` at the path was removed).
        removeIfSame(`${this.file}-wal`, this.walId);
        if (this.shmId) removeIfSame(`${this.file}-shm`, this.shmId);
        else if (!existsSync(`${this.file}-wal`)) removeIfSame(`${this.file}-shm`, undefined);
      }
      // The new connection's own descriptor on its `-shm` (this one stays with the connection given up).
      this.shmFd = undefined;
      this.shmId = undefined;
      this.db = openStore(this.file, this.warn);
      this.generation++;
      this.remember();
      const kept = restore?.();
      const what = {
        deleted: 'was deleted',
        replaced: 'was replaced by another file',
        'wal deleted': `lost its write-ahead log (${this.file}-wal was deleted)`,
        'wal replaced': `had its write-ahead log (${this.file}-wal) replaced`,
        'shm lost': `lost its WAL index (${this.file}-shm was deleted or replaced)`,
      }[why];
      this.warn(
        `the run store ${this.file} ${what} while this process (pid ${process.pid}) had it open; ` +
          `it stopped writing to the old file and goes on in ${this.file}${kept ? ` (${kept})` : ''}`,
      );
    } finally {
      this.checking = false;
    }
  }

  /**
   * The database file was overwritten in place (see overwritten): its pages before are gone, and this
   * connection's write-ahead log describes them, not the content now there. The log is never read into
   * the new content: it is emptied (the file cut to nothing, its index's header cleared through the
   * descriptor kept on it) before the connection is closed, so closing checkpoints nothing, and the
   * store at the path is opened again (in the same file: SQLite shares one lock state and one WAL index
   * per file in a process, so the old connection is closed, not given up). A file that is no database
   * any more is moved aside first, and a new store made. The runs this process has in flight are
   * written there again from memory (nothing can be read back from the old content).
   */
  private reopenOverwritten(): void {
    this.checking = true;
    try {
      let restore: (() => string | undefined) | undefined;
      try {
        if (this.onReplaced) restore = this.onReplaced(this.db, 'overwritten');
      } catch (e) {
        this.warn(`could not gather this process's runs in flight: ${errorText(e)}`);
      }
      const wal = `${this.file}-wal`;
      // The copy may have come with its own log, written over this one in place (`cp other/runs.db*`):
      // its frames are part of the new content, so they are kept and read with it (the close, or the
      // next open, rebuilds the index from them). Before, that log was emptied and removed as this
      // process's, and every run the copy held only in it was lost.
      const copysLog = !walIsIndexed(this.shmFd, wal);
      const held = copysLog ? '' : this.othersInLog();
      this.emptyLog();
      try {
        this.db.close();
      } catch {
        // Closed already.
      }
      if (this.shmFd !== undefined) closeSync(this.shmFd);
      if (this.shmId) removeIfSame(`${this.file}-shm`, this.shmId);
      if (!copysLog) removeIfSame(wal, this.walId);
      this.shmFd = undefined;
      this.shmId = undefined;
      let aside = '';
      if (this.overwrittenWith.startsWith('something that is not')) {
        aside = `${this.file}.overwritten-${new Date().toISOString().replace(/[:.]/g, '-')}`;
        try {
          renameSync(this.file, aside);
          // No connection is left on the file moved aside: its descriptor goes too.
          if (this.dbFd !== undefined) closeSync(this.dbFd);
          this.dbFd = undefined;
        } catch {
          aside = '';
        }
      }
      this.db = openStore(this.file, this.warn);
      this.generation++;
      this.remember();
      const kept = restore?.();
      this.warn(
        `the run store ${this.file} was overwritten in place with ${this.overwrittenWith} while this process (pid ${process.pid}) had it open; ` +
          (copysLog
            ? `the write-ahead log there (${wal}) is the copy's own (it replaced the one that held this process's writes to the content before), and was kept with it; `
            : `its write-ahead log (${wal}) held this process's writes to the content before, and was emptied so it is never read into the new content; `) +
          (aside ? `that file was moved aside to ${aside} and a new store made; ` : '') +
          `it goes on in ${this.file}${kept ? ` (${kept})` : ''}; the runs that were only in the overwritten content are not in it: ` +
          `to keep them, stop every Toolsmith process on this workspace and put back a copy of the file from before (never copy a store over one in use)${held}`,
      );
    } finally {
      this.checking = false;
    }
  }

  /**
   * What the log about to be emptied held of other processes, in words (empty when it held nothing not
   * yet checkpointed): the log is shared, and every commit since the last checkpoint is in it, whichever
   * process made it. This process keeps its own runs in memory (RunEvents.inFlight) and writes them
   * again; each other process that has the store open does the same with its own once it sees the
   * overwrite; a process that has ended since (a one-shot `toolsmith run`, `runs import`) kept nothing,
   * and what it committed since the last checkpoint is lost with the content before. Before, the line
   * said only that "the runs that were only in the overwritten content" were lost.
   */
  private othersInLog(): string {
    const idx = walIndex(this.shmFd);
    const unchecked = idx ? Math.max(0, idx.frames - idx.backfilled) : 0;
    if (unchecked === 0) return '';
    const others = openElsewhere(this.file);
    const theirs = others.length
      ? `${others.length} other process(es) with the store open (${others.join('; ')}) write their own again once they see the overwrite (their runs in flight, and those that ended since that checkpoint)`
      : 'no other process has the store open';
    return (
      `; that log held ${unchecked} frame(s) not yet checkpointed, the commits since the last checkpoint of every process on this store: ` +
      `this process's runs among them are kept as said, ${theirs}, and the runs that a process that has ended since (a one-shot \`toolsmith run\`, \`runs import\`) committed since that checkpoint are lost with the content before`
    );
  }

  /**
   * Empties this connection's write-ahead log (the file cut to nothing, its index's header cleared
   * through the descriptor kept on it), so that closing the connection checkpoints nothing into a
   * database file that was overwritten.
   */
  private emptyLog(): void {
    const wal = `${this.file}-wal`;
    // Only this connection's log: one written over it in place by a copy is the copy's (walIsIndexed).
    if (sameFile(fileId(wal), this.walId) && walIsIndexed(this.shmFd, wal))
      try {
        truncateSync(`${this.file}-wal`);
      } catch {
        // Gone meanwhile: nothing to read into the new content.
      }
    if (this.shmFd !== undefined)
      try {
        writeSync(this.shmFd, Buffer.alloc(136), 0, 136, 0);
      } catch {
        // A read-only -shm: the log is empty anyway.
      }
  }

  /**
   * The `-shm` this connection maps is no longer at the path. SQLite keeps one index per database file
   * in a process, so a connection opened beside this one would map the lost index too: this one is
   * closed (not given up) and the store opened again maps the index at the path, the one other
   * processes use. Closing checkpoints only when no other process has the store open; it is done then
   * only when this connection's index knows every frame the index at the path knows (another process
   * that built one and wrote through it, then closed, could not checkpoint while this process held the
   * file: its frames are only in the WAL, and a checkpoint through this index would lose them). Else
   * the store is opened again beside this connection (false), as after a lost WAL. The WAL holds every
   * frame of this process, so nothing is written again.
   */
  private closeForNewIndex(): boolean {
    const others = lockHolders(this.file)?.filter((p) => p !== process.pid);
    if (others === undefined) return false;
    if (others.length === 0 && !indexCovers(this.shmFd, `${this.file}-shm`)) return false;
    this.checking = true;
    try {
      this.db.close();
      if (this.shmFd !== undefined) closeSync(this.shmFd);
      this.shmFd = undefined;
      this.shmId = undefined;
      this.db = openStore(this.file, this.warn);
      this.generation++;
      this.remember();
      this.warn(
        `the run store ${this.file} lost its WAL index (${this.file}-shm was deleted or replaced) while this process (pid ${process.pid}) had it open; ` +
          `it closed its connection and goes on with the index at the path (every run it wrote is in the write-ahead log)`,
      );
      return true;
    } finally {
      this.checking = false;
    }
  }

  /**
   * Before the store closes: a file that looks overwritten is waited for (a copy going on), at most a
   * second, so it is acted on (see overwritten) before what the event log holds is written and before
   * the close, which may checkpoint. The one wait on the event loop, as the process stops.
   */
  settle(): void {
    if (!this.dbId) return;
    this.check(true, false);
    for (let i = 0; this.suspect && i < 20; i++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      this.check(true, false);
    }
  }

  /**
   * Closes the store, checking its files first: writes made within CHECK_MS of the last check to a
   * file that was replaced since are written again to the file now at the path before the process goes.
   */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    try {
      this.settle();
      // Still changing after a second (a long copy going on over it): it is not this store's content,
      // and closing would write this connection's log into it. The log is emptied instead.
      if (this.suspect) {
        const held = this.othersInLog();
        this.emptyLog();
        this.warn(
          `the run store ${this.file} was being overwritten while this process (pid ${process.pid}) closed it; its write-ahead log was emptied so it is never read into the new content${held}`,
        );
      }
    } catch (e) {
      this.warn(`could not check the run store's files before closing: ${errorText(e)}`);
    }
    this.db.close();
    if (this.shmFd !== undefined) {
      try {
        closeSync(this.shmFd);
      } catch {
        // Closed already.
      }
      this.shmFd = undefined;
    }
    if (this.dbFd !== undefined) {
      try {
        closeSync(this.dbFd);
      } catch {
        // Closed already.
      }
      this.dbFd = undefined;
    }
  }

  /**
   * A private copy of what this connection saw: the database file and the WAL it holds open (found
   * by identity among the process's open files, /proc/self/fd; Linux), opened on their own. SQLite
   * rebuilds the copy's index from the WAL's own frames.
   */
  private copyOfOwnView(): { db: DatabaseSync; dispose: () => void } | undefined {
    let fds: string[];
    try {
      fds = readdirSync('/proc/self/fd');
    } catch {
      return undefined;
    }
    const find = (id: FileId | undefined) =>
      fds.map(Number).find((fd) => sameFile(fileId(`/proc/self/fd/${fd}`), id));
    const dbFd = find(this.dbId);
    const walFd = find(this.walId);
    if (dbFd === undefined || walFd === undefined) return undefined;
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-store-view-'));
    try {
      // Read through SQLite's own descriptors: a copy from `/proc/self/fd/N` opens the file anew, and
      // closing that drops this process's locks on the database, which the store opened again next
      // shares (another process then took itself for the last user and checkpointed under it).
      copyFromFd(dbFd, join(dir, 'runs.db'));
      copyFromFd(walFd, join(dir, 'runs.db-wal'));
      const db = new DatabaseSync(join(dir, 'runs.db'));
      return {
        db,
        dispose: () => {
          try {
            db.close();
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      };
    } catch {
      rmSync(dir, { recursive: true, force: true });
      return undefined;
    }
  }
}

/** The first header of a WAL index (`-shm`): initialised, its last frame and its WAL's salts. */
function indexHeader(fd: number): { init: boolean; mxFrame: number; salt: Buffer } | undefined {
  const hdr = Buffer.alloc(48);
  try {
    if (readSync(fd, hdr, 0, 48, 0) < 48) return undefined;
  } catch {
    return undefined;
  }
  return { init: hdr[12] === 1, mxFrame: hdr.readUInt32LE(16), salt: hdr.subarray(32, 40) };
}

/**
 * Whether the index read through `fd` knows every frame the index at `path` knows (none there, one
 * not built, or one of the same WAL ending at or before this one's last frame): a checkpoint through
 * the first then loses nothing another process wrote.
 */
function indexCovers(fd: number | undefined, path: string): boolean {
  let other: number;
  try {
    other = openSync(path, 'r');
  } catch {
    return true;
  }
  try {
    const theirs = indexHeader(other);
    if (!theirs || !theirs.init || theirs.mxFrame === 0) return true;
    const mine = fd === undefined ? undefined : indexHeader(fd);
    return !!mine && mine.salt.equals(theirs.salt) && mine.mxFrame >= theirs.mxFrame;
  } finally {
    closeSync(other);
  }
}

/** The whole of the open file `fd` copied to `dest` (positional reads: the descriptor is not moved). */
function copyFromFd(fd: number, dest: string): void {
  const out = openSync(dest, 'w', 0o600);
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let pos = 0; ;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      writeSync(out, buf, 0, n);
      pos += n;
    }
  } finally {
    closeSync(out);
  }
}

/**
 * A descriptor this process already holds on the file at `path` (its SQLite's, or a connection's
 * kept one), or undefined: reading and writing through it, where opening and closing another would
 * drop this process's locks on the file.
 */
function heldFd(path: string): number | undefined {
  const id = fileId(path);
  if (!id) return undefined;
  try {
    for (const fd of readdirSync('/proc/self/fd'))
      if (sameFile(fileId(`/proc/self/fd/${fd}`), id)) return Number(fd);
  } catch {
    // No /proc: opened anew.
  }
  return undefined;
}

/** Where the open file `id` is now (its link in /proc/self/fd, "... (deleted)" when unlinked; Linux). */
function openPathOf(id: FileId | undefined): string | undefined {
  try {
    for (const fd of readdirSync('/proc/self/fd')) {
      const link = `/proc/self/fd/${fd}`;
      if (sameFile(fileId(link), id)) return readlinkSync(link);
    }
  } catch {
    // No /proc: the line says only that the folder is gone.
  }
  return undefined;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Removes `path` when it is the file `id` (undefined: whatever it is). */
function removeIfSame(path: string, id: FileId | undefined): void {
  const now = fileId(path);
  if (!now || (id && !sameFile(now, id))) return;
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

/**
 * Side files that no longer match the database, repaired before SQLite reads them (it would fail with
 * `disk I/O error` on every open, or mix them into the wrong file):
 * - `-wal`/`-shm` without their database (it was deleted): removed;
 * - a `-shm` whose header counts frames its `-wal` does not hold (the WAL was deleted or replaced):
 *   its header is cleared, so the next reader rebuilds it from the WAL that is there (what SQLite does
 *   after a crash);
 * - a `-wal`/`-shm` a live process uses for another database file (its `-shm` locked, the database at
 *   the path locked by no one: `runs.db` was replaced, renamed over, under that process): removed.
 *   SQLite has no way to tell a WAL's database; it read that process's WAL into the new file, and the
 *   first process to close it wrote the WAL over it: a workspace's store moved in under a live `serve`
 *   lost every run it held to serve's old ones after one `runs list`. The live process keeps its own
 *   (open) files and moves to the new store at its next write (StoreConnection).
 * Returns what was repaired, in words, or undefined.
 */
export function repairSideFiles(file: string): string | undefined {
  if (file === ':memory:') return undefined;
  const wal = `${file}-wal`;
  const shm = `${file}-shm`;
  if (!existsSync(file)) {
    const stale = [wal, shm].filter((f) => existsSync(f));
    for (const f of stale) removeIfSame(f, undefined);
    return stale.length ? `removed ${stale.join(' and ')} left without their database` : undefined;
  }
  const foreign = foreignSideFiles(file);
  if (foreign) return foreign;
  if (!existsSync(shm)) return undefined;
  let fd: number | undefined;
  const held = heldFd(shm);
  try {
    fd = held ?? openSync(shm, 'r+');
    const hdr = Buffer.alloc(48);
    if (readSync(fd, hdr, 0, 48, 0) < 48) return undefined;
    const isInit = hdr[12];
    const mxFrame = hdr.readUInt32LE(16);
    if (!isInit || mxFrame === 0) return undefined;
    const pageRaw = hdr.readUInt16LE(14);
    const page = pageRaw === 1 ? 65536 : pageRaw;
    const salt = hdr.subarray(32, 40);
    let walOk = false;
    try {
      const size = statSync(wal).size;
      if (size >= 32 + mxFrame * (24 + page)) {
        const walHdr = Buffer.alloc(32);
        const wfd = openSync(wal, 'r');
        try {
          readSync(wfd, walHdr, 0, 32, 0);
        } finally {
          closeSync(wfd);
        }
        // The index keeps the log's salts as the log's own bytes (SQLite copies them), so the bytes
        // are compared, not numbers read in one byte order.
        walOk = walHdr.subarray(16, 24).equals(salt);
      }
    } catch {
      walOk = false;
    }
    if (walOk) return undefined;
    writeSync(fd, Buffer.alloc(136), 0, 136, 0);
    return `cleared ${shm}: it described a write-ahead log that is no longer there`;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined && fd !== held) closeSync(fd);
  }
}

/**
 * The `-wal`/`-shm` at the path removed when a live process uses them for another database file: the
 * `-shm` is locked (a process has that WAL index open) and nothing holds the database file at the
 * path, which every connection to it in WAL mode locks while it is open. What was removed, or
 * undefined (no such files; no lock table to read: not Linux).
 */
function foreignSideFiles(file: string): string | undefined {
  const shm = `${file}-shm`;
  // This process's own locks are of a connection it gave up (StoreConnection removes its own files).
  const shmHolders = lockHolders(shm)?.filter((p) => p !== process.pid);
  if (!shmHolders?.length) return undefined;
  const dbHolders = lockHolders(file);
  if (dbHolders === undefined || dbHolders.length > 0) return undefined;
  const removed = [`${file}-wal`, shm].filter((f) => existsSync(f));
  for (const f of removed) removeIfSame(f, undefined);
  const pids = [...new Set(shmHolders.filter((p) => p > 0))];
  const who = pids.length ? `process${pids.length > 1 ? 'es' : ''} ${pids.join(', ')}` : 'another process';
  return (
    `removed ${removed.join(' and ')}: they are the write-ahead log of the database that was at this path ` +
    `before it was replaced, still open in ${who}; read into this file, they would have put that ` +
    `database's runs over this one's`
  );
}

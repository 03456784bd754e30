/**
 * The run store's connection: the SQLite file opened in WAL (read-only when a full disk leaves no room
 * for the WAL), its schema and migrations, and what every store write shares: a full disk named in
 * words (storeWrite, DiskFullError) and whether a run's owning process still lives (pidAlive).
 * Migrations are only ever appended: a store written by an older version opens and is brought up to
 * date in order, each step in its own transaction.
 */
import { existsSync, mkdirSync, statfsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { stmt } from './statements.ts';

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
 * SQLITE_FULL (13, any extended code), ENOSPC/EDQUOT, or an SQLite I/O error (10: growing the WAL or
 * its shared-memory file) while the file system of `file` has no space left.
 */
export function isDiskFull(e: unknown, file?: string): boolean {
  const err = e as { errcode?: unknown; code?: unknown; message?: unknown };
  if (e instanceof DiskFullError) return true;
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
 * Opens (creating its folder) and migrates the store at `file` (or `:memory:`).
 */
export function openStore(file: string): DatabaseSync {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = openFile(file);
  migrate(db, file);
  return db;
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

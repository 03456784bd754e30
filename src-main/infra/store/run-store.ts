/**
 * The run store: SQLite through node:sqlite (WAL). A run is an append-only list of typed, versioned events
 * written as they happen; `runs` is a summary index for listing and filtering (rebuildable from events),
 * and `runs_fts` a trigram full-text index over task, scripts and errors. A run whose owning process died
 * before its run_finished event reads as interrupted.
 */
import { knownSecrets } from '../../core/records/redact.ts';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, statfsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import type { SQLInputValue } from 'node:sqlite';
import { DEFAULT_RUN_KINDS, EVENT_VERSION, RUN_KINDS, upgradeEvent } from '../../core/records/events.ts';
import type {
  EventPayloads,
  EventType,
  RunEvent,
  RunKind,
  RunMode,
  RunStartedData,
  RunStatus,
  Tier,
} from '../../core/records/events.ts';
import { foldSummary, startSummary } from '../../core/records/summary.ts';
import { deriveRun } from '../../core/records/records.ts';
import { checkRunExport } from '../../core/records/schemas.ts';
import type { RunSortKey } from '../../core/records/sort.ts';
import type { RunRecord } from '../../core/records/records.ts';
import type { RunPage, RunSummary } from '../../core/records/summary.ts';
import { StatementCache, stmt } from './statements.ts';
import { errorMessage } from '../../core/errors.ts';

export const EXPORT_FORMAT = 'toolsmith-run';

export type { RunPage, RunSummary };

export interface RunFilter {
  status?: RunStatus | RunStatus[];
  /** The kinds of run listed; by default DEFAULT_RUN_KINDS (template tests are hidden). */
  kind?: RunKind | RunKind[];
  sandbox?: string;
  mode?: RunMode;
  model?: string;
  tier?: Tier;
  /** Epoch ms bounds on the start time. */
  from?: number;
  to?: number;
  /** Free text over task, scripts and errors (case-insensitive substring). */
  text?: string;
  /** Only the runs of this suite run. */
  suiteRun?: string;
  limit?: number;
  offset?: number;
  /** Sort column (default `created`, the start time) and direction (default `desc`). */
  sort?: RunSortKey;
  dir?: 'asc' | 'desc';
  /** Count the matching runs exactly (O(matches)); by default a filtered list counts only up to its page. */
  count?: boolean;
}

const SORT_COLUMNS: Record<Exclude<RunSortKey, 'created'>, string> = {
  status: 'status',
  task: 'task',
  sandbox: 'sandbox',
  mode: 'mode',
  model: 'model',
  tier: 'tier',
  attempts: 'attempts',
  tokens: 'tokens',
  duration: 'duration_ms',
};

/**
 * ORDER BY for a sort: the column, then the start time and id, all in one direction so that SQLite walks
 * one index (`runs_sort_<col>`, or `runs_created` backwards for the oldest first) instead of sorting every
 * row before the OFFSET.
 */
export function orderBy(sort: RunSortKey | undefined, dir: 'asc' | 'desc' | undefined): string {
  if (!sort || sort === 'created')
    return dir === 'asc' ? 'r.created_at ASC, r.id DESC' : 'r.created_at DESC, r.id';
  const d = dir === 'desc' ? 'DESC' : 'ASC';
  return `r.${SORT_COLUMNS[sort]} ${d}, r.created_at ${d}, r.id ${d}`;
}

/** Runs (in list order) a text search walks for its page before it collects every match instead. */
const TEXT_WINDOW = 20_000;
/** Full-text matches below which a text search collects them all (sorting a few is cheap). */
const FEW_MATCHES = 2_000;

/** Pages from this offset on remember where they end (see pageAt); above it an OFFSET walk is cheap. */
const ANCHOR_FROM = 1_000;
/** List queries (filter and order) and anchors per query kept (least recently used out first). */
const ANCHOR_LISTS = 16;
const ANCHORS_PER_LIST = 256;

/**
 * The WHERE term for "at or after `row` in this order" (the list's order is total: it ends with the id),
 * written so that the sort index seeks to it. Undefined where a NULL would need an OR (model and tier
 * may be NULL: first ascending, last descending).
 */
function seekFrom(
  filter: Pick<RunFilter, 'sort' | 'dir'>,
  row: RunRow,
): { sql: string; args: SQLInputValue[] } | undefined {
  const { sort, dir } = filter;
  const c = row.created_at;
  if (!sort || sort === 'created')
    return dir === 'asc'
      ? { sql: '(r.created_at >= ? AND (r.created_at > ? OR r.id <= ?))', args: [c, c, row.id] }
      : { sql: '(r.created_at <= ? AND (r.created_at < ? OR r.id >= ?))', args: [c, c, row.id] };
  const col = SORT_COLUMNS[sort];
  const v = row[col as keyof RunRow] as SQLInputValue | undefined;
  if (v === null || v === undefined) return undefined;
  if (dir === 'desc') {
    if (sort === 'model' || sort === 'tier') return undefined;
    return { sql: `(r.${col}, r.created_at, r.id) <= (?, ?, ?)`, args: [v, c, row.id] };
  }
  return { sql: `(r.${col}, r.created_at, r.id) >= (?, ?, ?)`, args: [v, c, row.id] };
}

export interface RunExport {
  format: typeof EXPORT_FORMAT;
  version: number;
  exportedAt: number;
  events: RunEvent[];
}

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
/** Stores opened read-only because the disk was full (see RunStore's constructor), with the reason. */
const readOnlyStores = new Map<string, string>();

/** Events held in memory while the disk is full, at most this many bytes (JSON) over all runs. */
export const MAX_PENDING_BYTES = 32 * 1024 * 1024;
/** How often held events are tried again while the disk is full. */
export const FLUSH_EVERY_MS = 1_000;

interface PendingRun {
  /** The events not yet on disk, in order, with the seq each will have. */
  events: RunEvent[];
  bytes: number;
}

const MIGRATIONS: string[] = [
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
  // Text search in the list's default order streams full-text matches by rowid (see list): runs by their
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

interface RunRow {
  id: string;
  created_at: number;
  updated_at: number;
  status: RunStatus;
  task: string;
  sandbox: string;
  kit: string | null;
  mode: RunMode;
  kind: RunKind;
  model: string | null;
  tier: Tier | null;
  provider: string | null;
  attempts: number;
  tokens: number;
  duration_ms: number;
  error: string | null;
  owner_pid: number | null;
  origin_run: string | null;
  next_seq: number;
  suite_run?: string | null;
}

const toSummary = (r: RunRow): RunSummary => ({
  id: r.id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  status: r.status,
  task: r.task,
  sandbox: r.sandbox,
  kit: r.kit,
  mode: r.mode,
  kind: r.kind ?? 'run',
  model: r.model,
  tier: r.tier,
  provider: r.provider,
  attempts: r.attempts,
  tokens: r.tokens,
  durationMs: r.duration_ms,
  error: r.error,
  originRun: r.origin_run,
  suiteRun: r.suite_run ?? null,
});

interface EventRow {
  run_id: string;
  seq: number;
  type: EventType;
  v: number;
  ts: number;
  data: string;
}

interface TemplateStatRow {
  name: string;
  successes: number;
  failures: number;
  last_used: number | null;
}

type Id = [id: string];

/** Every fixed statement of the run store, prepared once per store (after the migrations). */
const runStatements = (db: DatabaseSync) => ({
  begin: stmt(db, 'BEGIN IMMEDIATE'),
  commit: stmt(db, 'COMMIT'),
  rollback: stmt(db, 'ROLLBACK'),
  running: stmt<[], { id: string; owner_pid: number | null; updated_at: number }>(
    db,
    "SELECT id, owner_pid, updated_at FROM runs WHERE status = 'running'",
  ),
  markInterrupted: stmt<[error: string, id: string], never>(
    db,
    "UPDATE runs SET status = 'interrupted', error = COALESCE(error, ?) WHERE id = ? AND status = 'running'",
  ),
  newest: stmt<[], { t: number | null }>(db, 'SELECT MAX(created_at) AS t FROM runs'),
  clearFtsOrder: stmt(db, "UPDATE meta SET value = '0' WHERE key = 'fts_in_created_order'"),
  ftsInCreatedOrder: stmt<[], { value: string }>(
    db,
    "SELECT value FROM meta WHERE key = 'fts_in_created_order'",
  ),
  insertFts: stmt<[runId: string, task: string, scripts: string, errors: string], never>(
    db,
    'INSERT INTO runs_fts (run_id, task, scripts, errors) VALUES (?, ?, ?, ?)',
  ),
  insertRun: stmt<
    [
      id: string,
      createdAt: number,
      updatedAt: number,
      task: string,
      sandbox: string,
      kit: string | null,
      mode: RunMode,
      kind: RunKind,
      model: string | null,
      provider: string | null,
      ownerPid: number,
      originRun: string | null,
      ftsId: number | bigint,
    ],
    never
  >(
    db,
    `INSERT INTO runs (id, created_at, updated_at, status, task, sandbox, kit, mode, kind, model, provider, owner_pid, origin_run, next_seq, fts_id)
     VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
  ),
  insertEvent: stmt<
    [runId: string, seq: number, type: EventType, v: number, ts: number, data: string],
    never
  >(db, 'INSERT INTO events (run_id, seq, type, v, ts, data) VALUES (?, ?, ?, ?, ?, ?)'),
  // The row as it is after the bump: the summary the next event folds into.
  bumpSeq: stmt<[ts: number, id: string], RunRow>(
    db,
    'UPDATE runs SET next_seq = next_seq + 1, updated_at = ? WHERE id = ? RETURNING *',
  ),
  startedModel: stmt<Id, { model: string | null }>(
    db,
    "SELECT json_extract(data, '$.model') AS model FROM events WHERE run_id = ? AND seq = 0",
  ),
  // The summary fields an event may change (core/records/summary.ts, foldSummary).
  setSummary: stmt<
    [
      status: RunStatus,
      model: string | null,
      tier: Tier | null,
      provider: string | null,
      attempts: number,
      tokens: number,
      durationMs: number,
      error: string | null,
      id: string,
    ],
    never
  >(
    db,
    'UPDATE runs SET status = ?, model = ?, tier = ?, provider = ?, attempts = ?, tokens = ?, duration_ms = ?, error = ? WHERE id = ?',
  ),
  appendScript: stmt<[body: string, id: string], never>(
    db,
    'UPDATE runs_fts SET scripts = scripts || char(10) || ? WHERE rowid = (SELECT fts_id FROM runs WHERE id = ?)',
  ),
  appendError: stmt<[text: string, id: string], never>(
    db,
    'UPDATE runs_fts SET errors = errors || char(10) || ? WHERE rowid = (SELECT fts_id FROM runs WHERE id = ?)',
  ),
  useTemplate: stmt<[name: string, successes: number, failures: number, lastUsed: number], never>(
    db,
    `INSERT INTO template_stats (name, successes, failures, last_used) VALUES (?, ?, ?, ?)
     ON CONFLICT(name) DO UPDATE SET successes = successes + excluded.successes, failures = failures + excluded.failures, last_used = excluded.last_used`,
  ),
  templateStats: stmt<[], TemplateStatRow>(db, 'SELECT * FROM template_stats'),
  resetTemplate: stmt<[name: string], never>(db, 'DELETE FROM template_stats WHERE name = ?'),
  events: stmt<Id, EventRow>(db, 'SELECT * FROM events WHERE run_id = ? ORDER BY seq'),
  getRun: stmt<Id, RunRow>(db, 'SELECT * FROM runs WHERE id = ?'),
  hasRun: stmt<Id, { one: 1 }>(db, 'SELECT 1 AS one FROM runs WHERE id = ?'),
  // A range on the primary key: no LIKE (whose wildcards a prefix could hold) and no scan.
  idsFrom: stmt<[from: string, to: string, limit: number], { id: string }>(
    db,
    'SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT ?',
  ),
  // What changed since: rows written on this connection, commits by any other.
  version: stmt<[], { c: number; v: number }>(
    db,
    'SELECT total_changes() AS c, data_version AS v FROM pragma_data_version',
  ),
  runCounts: stmt<[], { kind: RunKind; status: RunStatus; n: number }>(
    db,
    'SELECT kind, status, n FROM run_counts',
  ),
  fewMatches: stmt<[match: string, limit: number], { n: number }>(
    db,
    'SELECT COUNT(*) AS n FROM (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ? LIMIT ?)',
  ),
  countFts: stmt<[match: string], { n: number }>(
    db,
    'SELECT COUNT(*) AS n FROM runs_fts WHERE runs_fts MATCH ?',
  ),
  deleteFts: stmt<Id, never>(db, 'DELETE FROM runs_fts WHERE rowid = (SELECT fts_id FROM runs WHERE id = ?)'),
  deleteRun: stmt<Id, never>(db, 'DELETE FROM runs WHERE id = ?'),
  deleteEvents: stmt<Id, never>(db, 'DELETE FROM events WHERE run_id = ?'),
  importedUnfinished: stmt<Id, never>(
    db,
    "UPDATE runs SET status = 'interrupted', owner_pid = NULL, error = COALESCE(error, 'imported without a run_finished event: its process ended before the run finished') WHERE id = ?",
  ),
  importedFinished: stmt<Id, never>(db, 'UPDATE runs SET owner_pid = NULL WHERE id = ?'),
});

/**
 * Why a run reads as interrupted: the process that owned it ended before its run_finished event (killed,
 * crashed, the machine stopped), with the pid, this host and when the run last wrote an event.
 */
export function interruptedReason(pid: number | null, lastSeen: number): string {
  return pid === null
    ? `no process owns the run and it never finished (last event ${new Date(lastSeen).toISOString()})`
    : `its process (pid ${pid} on ${hostname()}) ended before the run finished; last seen ${new Date(lastSeen).toISOString()}`;
}

/** A LIKE pattern (with `ESCAPE '\'`) matching text that contains `text` literally. */
export const likeContaining = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class RunStore {
  readonly file: string;
  /** The connection, shared with SuiteStore (same file, same transactions). */
  readonly db: DatabaseSync;
  private readonly stmts: ReturnType<typeof runStatements>;
  /** The run list's statements (their WHERE and ORDER BY depend on the filter), by SQL text. */
  private readonly dynamic: StatementCache;
  private readonly now: () => number;
  private readonly textWindow: number;
  /** Keyset anchors of deep pages, per list query (see pageAt). */
  private readonly anchors = new Map<string, { version: string; at: Map<number, RunRow> }>();
  private readonly fewMatches: number;

  /**
   * `textWindow` and `fewMatches` tune the windowed text search (see windowText; tests make them small).
   */
  constructor(file: string, opts: { now?: () => number; textWindow?: number; fewMatches?: number } = {}) {
    this.file = file;
    this.now = opts.now ?? Date.now;
    this.textWindow = opts.textWindow ?? TEXT_WINDOW;
    this.fewMatches = opts.fewMatches ?? FEW_MATCHES;
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = this.open(file);
    this.migrate();
    this.stmts = runStatements(this.db);
    this.dynamic = new StatementCache(this.db);
    this.markInterrupted();
  }

  /**
   * Opens the file (WAL). When the disk is too full for SQLite to create the WAL's shared-memory file,
   * an existing store opens read-only and immutable (no WAL is live then: no other process has it open),
   * so listing and reading runs goes on; every write says the disk is full.
   */
  private open(file: string): DatabaseSync {
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

  private migrate(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const row = stmt<[], { value: string }>(
      this.db,
      "SELECT value FROM meta WHERE key = 'schema_version'",
    ).get();
    const current = row ? Number(row.value) : 0;
    if (current > MIGRATIONS.length) {
      throw new RunStoreError(
        `${this.file} has schema version ${current}, newer than this Toolsmith (${MIGRATIONS.length}); upgrade Toolsmith`,
      );
    }
    if (current === MIGRATIONS.length) return;
    const setVersion = stmt<[version: string], never>(
      this.db,
      "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    );
    const versionNow = stmt<[], { value: string }>(
      this.db,
      "SELECT value FROM meta WHERE key = 'schema_version'",
    );
    for (;;) {
      // The version is read again inside the write lock: two processes opening a new store at once
      // would otherwise both apply the same migration.
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const row = versionNow.get();
        const v = row ? Number(row.value) : 0;
        if (v >= MIGRATIONS.length) {
          this.db.exec('COMMIT');
          break;
        }
        this.db.exec(MIGRATIONS[v] as string);
        setVersion.run(String(v + 1));
        this.db.exec('COMMIT');
      } catch (e) {
        this.db.exec('ROLLBACK');
        throw e;
      }
    }
  }

  /**
   * Runs left `running` by a process that no longer exists become `interrupted`. On a full disk the
   * rows stay as they are (reads derive the same status; see liveStatus): opening the store to read
   * must not fail for want of space.
   */
  private markInterrupted(): void {
    for (const r of this.stmts.running.all()) {
      if (pidAlive(r.owner_pid)) continue;
      try {
        storeWrite(this.file, 'an interrupted run', () =>
          this.stmts.markInterrupted.run(interruptedReason(r.owner_pid, r.updated_at), r.id),
        );
      } catch (e) {
        if (!isDiskFull(e, this.file)) throw e;
        return;
      }
    }
  }

  /** Events held in memory while the disk is full, by run (see append). */
  private readonly pending = new Map<string, PendingRun>();
  private pendingBytes = 0;
  /** Template uses not yet counted on disk (disk full). */
  private readonly pendingTemplateUses: [name: string, success: boolean, at: number][] = [];
  private flushTimer: ReturnType<typeof setInterval> | undefined;

  /** How many events are held in memory, not yet on disk (the disk was full). */
  pendingEvents(): number {
    let n = 0;
    for (const p of this.pending.values()) n += p.events.length;
    return n;
  }

  /**
   * Writes every held event and template count (in order, one transaction per run). Returns whether
   * nothing is left held; a disk still full leaves them held.
   */
  flush(): boolean {
    for (const runId of [...this.pending.keys()]) {
      try {
        this.flushRun(runId);
      } catch (e) {
        if (!isDiskFull(e, this.file)) throw e;
        return false;
      }
    }
    while (this.pendingTemplateUses.length) {
      const [name, success, at] = this.pendingTemplateUses[0] as [string, boolean, number];
      try {
        this.stmts.useTemplate.run(name, success ? 1 : 0, success ? 0 : 1, at);
      } catch (e) {
        if (!isDiskFull(e, this.file)) throw e;
        return false;
      }
      this.pendingTemplateUses.shift();
    }
    this.stopFlushTimer();
    return true;
  }

  private flushRun(runId: string): void {
    const p = this.pending.get(runId);
    if (!p) return;
    this.tx('events of a run', () => {
      for (const e of p.events) this.write(e);
    });
    this.pending.delete(runId);
    this.pendingBytes -= p.bytes;
  }

  private startFlushTimer(): void {
    if (this.flushTimer) return;
    this.flushTimer = setInterval(() => {
      try {
        this.flush();
      } catch {
        // Not a full disk: the next append of that run reports it.
      }
    }, FLUSH_EVERY_MS);
    this.flushTimer.unref();
  }

  private stopFlushTimer(): void {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
  }

  /**
   * Closes the store after one last try at writing held events; when the disk is still full they
   * cannot be kept, and the error says how many of which runs are lost.
   */
  close(): void {
    this.stopFlushTimer();
    let lost: string | undefined;
    if (!this.flush()) {
      const runs = [...this.pending.keys()];
      lost = `${this.pendingEvents()} event(s) of run(s) ${runs.join(', ')} were never written (disk full) and are lost`;
    }
    this.db.close();
    if (lost) throw new DiskFullError(this.file, 'run events', lost);
  }

  /** Starts a run: writes its run_started event and summary row. Returns the new run id. */
  createRun(data: RunStartedData, id: string = randomUUID(), ts: number = this.now()): string {
    // No known secret is ever written (see core/records/redact.ts).
    data = knownSecrets.value(data);
    const s = startSummary({ v: EVENT_VERSION, runId: id, seq: 0, ts, type: 'run_started', data });
    this.tx('a new run', () => {
      const newest = this.stmts.newest.get()?.t ?? null;
      if (newest !== null && ts < newest) this.stmts.clearFtsOrder.run();
      const ftsId = this.stmts.insertFts.run(id, data.task, '', '').lastInsertRowid;
      this.stmts.insertRun.run(
        id,
        s.createdAt,
        s.updatedAt,
        s.task,
        s.sandbox,
        s.kit,
        s.mode,
        s.kind,
        s.model,
        s.provider,
        process.pid,
        s.originRun,
        ftsId,
      );
      this.stmts.insertEvent.run(id, 0, 'run_started', EVENT_VERSION, ts, JSON.stringify(data));
    });
    return id;
  }

  /**
   * Appends one event and updates the run's summary; durable when it returns, unless the disk is full:
   * then the event (and every later one of the run) is held in memory, in order, and written when space
   * returns (tried at each append of the run and every FLUSH_EVERY_MS), so a run goes on and loses
   * nothing while its process lives. Beyond MAX_PENDING_BYTES held, the append throws DiskFullError
   * (the run ends with that error). A run's reads (`events`, `get`) include its held events.
   */
  append<T extends EventType>(
    runId: string,
    type: T,
    data: EventPayloads[T],
    ts: number = this.now(),
  ): RunEvent {
    // No known secret is ever written (see core/records/redact.ts).
    data = knownSecrets.value(data);
    const held = this.pending.get(runId);
    if (held) {
      const last = held.events[held.events.length - 1] as RunEvent;
      const event = { v: EVENT_VERSION, runId, seq: last.seq + 1, ts, type, data } as RunEvent;
      this.hold(held, event);
      try {
        this.flushRun(runId);
      } catch (e) {
        if (!isDiskFull(e, this.file)) throw e;
      }
      return event;
    }
    let event: RunEvent | undefined;
    try {
      this.tx('a run event', () => {
        const bumped = this.stmts.bumpSeq.get(ts, runId);
        if (!bumped) throw new RunStoreError(`no run ${runId}`);
        event = { v: EVENT_VERSION, runId, seq: bumped.next_seq - 1, ts, type, data } as RunEvent;
        this.write(event, bumped);
      });
    } catch (e) {
      if (!isDiskFull(e, this.file) || this.depth > 0) throw e;
      const row = this.stmts.getRun.get(runId);
      if (!row) throw e;
      event = { v: EVENT_VERSION, runId, seq: row.next_seq, ts, type, data } as RunEvent;
      const p: PendingRun = { events: [], bytes: 0 };
      this.hold(p, event, e);
      this.pending.set(runId, p);
      this.startFlushTimer();
    }
    return event as RunEvent;
  }

  /** Holds `event` in memory, within MAX_PENDING_BYTES (else throws the disk-full error). */
  private hold(p: PendingRun, event: RunEvent, cause?: unknown): void {
    const bytes = JSON.stringify(event.data).length;
    if (this.pendingBytes + bytes > MAX_PENDING_BYTES)
      throw cause instanceof DiskFullError
        ? cause
        : new DiskFullError(
            this.file,
            'run events',
            `SQLITE_FULL; ${this.pendingEvents()} events already held in memory, up to the limit of ${MAX_PENDING_BYTES / 1024 / 1024} MB`,
          );
    p.events.push(event);
    p.bytes += bytes;
    this.pendingBytes += bytes;
  }

  /**
   * Writes one event (inside a transaction) and folds it into the run's summary row. `row` is the run's
   * row with its next seq already past the event; without it the seq is advanced here.
   */
  private write(event: RunEvent, row?: RunRow): void {
    if (!row) {
      row = this.stmts.bumpSeq.get(event.ts, event.runId);
      if (!row) throw new RunStoreError(`no run ${event.runId}`);
      if (row.next_seq - 1 !== event.seq)
        throw new RunStoreError(
          `run ${event.runId}: held event ${event.seq} does not follow the stored ones (${row.next_seq - 1})`,
        );
    }
    this.stmts.insertEvent.run(
      event.runId,
      event.seq,
      event.type,
      EVENT_VERSION,
      event.ts,
      JSON.stringify(event.data),
    );
    this.summarize(event, row);
  }

  /**
   * The run's summary row after `e` (core/records/summary.ts, foldSummary: the one place it is
   * computed), and the event's text in the search index.
   */
  private summarize(e: RunEvent, row: RunRow): void {
    const before = toSummary(row);
    const s = foldSummary(before, e, () => {
      const model = this.stmts.startedModel.get(e.runId)?.model;
      return typeof model === 'string' ? { model } : {};
    });
    if (
      s.status !== before.status ||
      s.model !== before.model ||
      s.tier !== before.tier ||
      s.provider !== before.provider ||
      s.attempts !== before.attempts ||
      s.tokens !== before.tokens ||
      s.durationMs !== before.durationMs ||
      s.error !== before.error
    )
      this.stmts.setSummary.run(
        s.status,
        s.model,
        s.tier,
        s.provider,
        s.attempts,
        s.tokens,
        s.durationMs,
        s.error,
        e.runId,
      );
    switch (e.type) {
      case 'script':
        this.stmts.appendScript.run(e.data.body, e.runId);
        break;
      case 'execution':
        if (e.data.result.error)
          this.appendError(e.runId, `${e.data.result.error.type}: ${e.data.result.error.message}`);
        break;
      case 'validation':
        if (!e.data.valid)
          this.appendError(e.runId, e.data.violations.map((v) => `${v.rule}: ${v.message}`).join('\n'));
        break;
      case 'run_finished':
        if (e.data.error) this.appendError(e.runId, e.data.error);
        break;
      default:
        break;
    }
  }

  private appendError(runId: string, text: string): void {
    this.stmts.appendError.run(text, runId);
  }

  private depth = 0;

  /**
   * One transaction. A failed COMMIT (a full disk) may already have rolled back inside SQLite: the
   * ROLLBACK runs only while a transaction is open, and its own failure never hides the cause.
   * A full disk is thrown as DiskFullError naming the file and `what` was being written.
   */
  private tx(what: string, fn: () => void): void {
    if (this.depth > 0) return fn();
    storeWrite(this.file, what, () => {
      this.stmts.begin.run();
      this.depth++;
      try {
        fn();
        this.stmts.commit.run();
      } catch (e) {
        if (this.db.isTransaction) {
          try {
            this.stmts.rollback.run();
          } catch {
            // The cause is `e`; SQLite rolls an unfinished transaction back on its own.
          }
        }
        throw e;
      } finally {
        this.depth--;
      }
    });
  }

  /** Runs many writes in one transaction (imports, seeding); each append inside is not durable alone. */
  batch(fn: () => void): void {
    this.tx('a batch of runs', fn);
  }

  /** Counts one use of a template (the ratchet's counters); held in memory while the disk is full. */
  recordTemplateUse(name: string, success: boolean): void {
    const at = this.now();
    if (this.pendingTemplateUses.length) {
      this.pendingTemplateUses.push([name, success, at]);
      return;
    }
    try {
      this.stmts.useTemplate.run(name, success ? 1 : 0, success ? 0 : 1, at);
    } catch (e) {
      if (!isDiskFull(e, this.file)) throw e;
      this.pendingTemplateUses.push([name, success, at]);
      this.startFlushTimer();
    }
  }

  templateStats(): Map<string, { successes: number; failures: number; lastUsed: number | null }> {
    return new Map(
      this.stmts.templateStats
        .all()
        .map((r) => [r.name, { successes: r.successes, failures: r.failures, lastUsed: r.last_used }]),
    );
  }

  resetTemplateStats(name: string): void {
    storeWrite(this.file, "a template's counters", () => this.stmts.resetTemplate.run(name));
  }

  /** A run's events, with those held in memory (disk full) after the stored ones. */
  events(runId: string): RunEvent[] {
    const stored = this.storedEvents(runId);
    const held = this.pending.get(runId);
    return held ? [...stored, ...held.events] : stored;
  }

  private storedEvents(runId: string): RunEvent[] {
    return this.stmts.events.all(runId).map((r) =>
      upgradeEvent({
        v: r.v,
        runId: r.run_id,
        seq: r.seq,
        ts: r.ts,
        type: r.type,
        data: JSON.parse(r.data),
      }),
    );
  }

  summary(runId: string): RunSummary | undefined {
    const row = this.stmts.getRun.get(runId);
    return row ? toSummary(this.liveStatus(row)) : undefined;
  }

  private liveStatus(row: RunRow): RunRow {
    return row.status === 'running' && !pidAlive(row.owner_pid)
      ? {
          ...row,
          status: 'interrupted',
          error: row.error ?? interruptedReason(row.owner_pid, row.updated_at),
        }
      : row;
  }

  has(runId: string): boolean {
    return this.stmts.hasRun.get(runId) !== undefined;
  }

  /** Up to `limit` run ids starting with `prefix` (a short id as the workbench shows it). */
  idsStartingWith(prefix: string, limit: number): string[] {
    return this.stmts.idsFrom.all(prefix, `${prefix}\uffff`, limit).map((r) => r.id);
  }

  /** One run whole, derived from its events. */
  get(runId: string): RunRecord | undefined {
    const row = this.stmts.getRun.get(runId);
    if (!row) return undefined;
    const rec = deriveRun(this.events(runId), row.status === 'running' && pidAlive(row.owner_pid));
    // An interrupted run has no run_finished event: the reason is the store's (its process died).
    if (rec.status === 'interrupted' && rec.error === undefined)
      rec.error = this.liveStatus(row).error ?? interruptedReason(row.owner_pid, row.updated_at);
    return rec;
  }

  /**
   * A page of runs, O(page) by default: the page is fetched with one row more (is there a next page?)
   * and the total is exact only when that is cheap (no filter but status, or the last page);
   * `count: true` counts every match.
   */
  list(filter: RunFilter = {}): RunPage {
    const where: string[] = [];
    const args: SQLInputValue[] = [];
    const statuses =
      filter.status === undefined ? [] : Array.isArray(filter.status) ? filter.status : [filter.status];
    if (statuses.length) {
      where.push(`r.status IN (${statuses.map(() => '?').join(', ')})`);
      args.push(...statuses);
    }
    const counts = this.stmts.runCounts.all();
    const kinds = this.kindTerm(filter, counts);
    if (kinds.term) {
      where.push(kinds.term);
      args.push(...kinds.kinds);
    }
    for (const [col, v] of [
      ['sandbox', filter.sandbox],
      ['mode', filter.mode],
      ['model', filter.model],
      ['tier', filter.tier],
      ['suite_run', filter.suiteRun],
    ] as const) {
      if (v !== undefined) {
        where.push(`r.${col} = ?`);
        args.push(v);
      }
    }
    if (filter.from !== undefined) {
      where.push('r.created_at >= ?');
      args.push(filter.from);
    }
    if (filter.to !== undefined) {
      where.push('r.created_at <= ?');
      args.push(filter.to);
    }
    const text = filter.text?.trim();
    let ftsText: string | undefined;
    // The filters but text (the windowed text search adds its own test; see windowText).
    const plain = { where: where.length, args: args.length };
    let match: string | undefined;
    if (text) {
      // Trigram FTS needs 3+ characters; shorter text falls back to a scan with LIKE.
      // Matched by the FTS rowid each run keeps (fts_id): the index answers with rowids alone, without
      // reading the run_id column of every match.
      if ([...text].length >= 3) {
        where.push('r.fts_id IN (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ?)');
        match = `"${text.replace(/"/g, '""')}"`;
        args.push(match);
        if (!filter.sort || filter.sort === 'created') ftsText = match;
      } else {
        where.push(
          "r.fts_id IN (SELECT rowid FROM runs_fts WHERE task LIKE ? ESCAPE '\\' OR scripts LIKE ? ESCAPE '\\' OR errors LIKE ? ESCAPE '\\')",
        );
        const like = likeContaining(text);
        args.push(like, like, like);
      }
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const limit = Math.min(Math.max(filter.limit ?? 100, 1), 10_000);
    const offset = Math.max(filter.offset ?? 0, 0);
    // One row more than the page: whether any run matches after it, without counting them all.
    const rows =
      (ftsText &&
        this.streamText(where.slice(0, -1), args.slice(0, -1), ftsText, filter.dir, offset, limit + 1)) ||
      (text &&
        filter.suiteRun === undefined &&
        this.windowText(
          where.slice(0, plain.where),
          args.slice(0, plain.args),
          text,
          match,
          filter,
          offset,
          limit + 1,
        )) ||
      (text
        ? this.dynamic
            .get<SQLInputValue[], RunRow>(
              `SELECT r.* FROM runs r ${clause} ORDER BY ${orderBy(filter.sort, filter.dir)} LIMIT ? OFFSET ?`,
            )
            .all(...args, limit + 1, offset)
        : this.pageAt(where, args, filter, offset, limit + 1));
    const more = rows.length > limit;
    const runs = rows.slice(0, limit).map((r) => toSummary(this.liveStatus(r)));
    const page = (total: number, totalExact: boolean): RunPage => ({ total, totalExact, runs });
    // No filter but status and kind: the trigger-kept counts answer exactly in O(kinds x statuses).
    if (where.length === (statuses.length ? 1 : 0) + (kinds.term ? 1 : 0) && !text && !filter.count) {
      const keep = new Set<string>(statuses);
      const kept = new Set<string>(kinds.kinds);
      return page(
        counts.reduce(
          (sum, c) => sum + ((keep.size === 0 || keep.has(c.status)) && kept.has(c.kind) ? c.n : 0),
          0,
        ),
        true,
      );
    }
    if (!filter.count) {
      // More after this page: a lower bound. The last page (or the only one) tells the exact total.
      if (more) return page(offset + runs.length, false);
      if (runs.length > 0 || offset === 0) return page(offset + runs.length, true);
      // Past the end (runs deleted since the list was shown): counted below.
    }
    // With text as the only filter the full-text index counts alone (each of its rows is one run; they
    // are deleted together); otherwise the runs table counts with the same clause.
    const ftsOnly = text !== undefined && text !== '' && where.length === 1 && [...text].length >= 3;
    // (A kind term, when there is one, is in `where`: then the runs table counts.)
    const total = ftsOnly
      ? (this.stmts.countFts.get(args[0] as string)?.n ?? 0)
      : (this.dynamic
          .get<SQLInputValue[], { n: number }>(`SELECT COUNT(*) AS n FROM runs r ${clause}`)
          .get(...args)?.n ?? 0);
    return page(total, true);
  }

  /**
   * The list's kind term: the kinds asked for (DEFAULT_RUN_KINDS when none), and the WHERE term that
   * keeps them, undefined when it would keep every run (all kinds asked for, or no run of a kind left
   * out: then the queries are those of a store without kinds, and their plans too).
   */
  private kindTerm(
    filter: RunFilter,
    counts: { kind: RunKind; n: number }[],
  ): { kinds: RunKind[]; term?: string } {
    const asked = filter.kind === undefined ? DEFAULT_RUN_KINDS : [filter.kind].flat();
    const kinds = RUN_KINDS.filter((k) => asked.includes(k));
    const hidesSome = counts.some((c) => c.n > 0 && !kinds.includes(c.kind));
    return hidesSome ? { kinds, term: `r.kind IN (${kinds.map(() => '?').join(', ')})` } : { kinds };
  }

  /**
   * Text search in the default order (start time) without collecting every match: full-text rowids
   * follow the start times (checked at every createRun), so FTS5 streams the matches newest (or oldest)
   * first and stops after the page. Runs started in the same millisecond are contiguous in that stream
   * and are put in the list's id order here. Undefined when the rowids do not follow the start times.
   */
  private streamText(
    where: string[],
    args: SQLInputValue[],
    match: string,
    dir: 'asc' | 'desc' | undefined,
    offset: number,
    count: number,
  ): RunRow[] | undefined {
    if (this.stmts.ftsInCreatedOrder.get()?.value !== '1') return undefined;
    const asc = dir === 'asc';
    const sql = `SELECT r.* FROM runs_fts f JOIN runs r ON r.fts_id = f.rowid
      WHERE runs_fts MATCH ?${where.map((w) => ` AND ${w}`).join('')} ORDER BY f.rowid ${asc ? 'ASC' : 'DESC'}`;
    const need = offset + count;
    const got: RunRow[] = [];
    for (const row of this.dynamic.get<SQLInputValue[], RunRow>(sql).iterate(match, ...args)) {
      // Past the page and the millisecond of its last row: nothing after can come before them.
      if (got.length >= need && row.created_at !== got[got.length - 1]?.created_at) break;
      got.push(row);
    }
    const byId = (a: RunRow, b: RunRow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    got.sort((a, b) =>
      asc ? a.created_at - b.created_at || byId(b, a) : b.created_at - a.created_at || byId(a, b),
    );
    return got.slice(offset, need);
  }

  /**
   * A page deep in the list (no text) from the nearest page already fetched for the same filter and
   * order while nothing was written since (no change on this connection, `total_changes()`, nor on any
   * other, `data_version`): the row that ended that page is a keyset anchor, and the OFFSET walk starts
   * there instead of at the top. A virtualized list scrolled page by page asks each page once, one page
   * after the last: O(page) at any depth. A first jump deep into the list still walks its OFFSET.
   */
  private pageAt(
    where: string[],
    args: SQLInputValue[],
    filter: RunFilter,
    offset: number,
    count: number,
  ): RunRow[] {
    const order = orderBy(filter.sort, filter.dir);
    const sql = (seek?: string) =>
      `SELECT r.* FROM runs r ${seek || where.length ? `WHERE ${[...where, ...(seek ? [seek] : [])].join(' AND ')}` : ''} ORDER BY ${order} LIMIT ? OFFSET ?`;
    if (offset < ANCHOR_FROM)
      return this.dynamic.get<SQLInputValue[], RunRow>(sql()).all(...args, count, offset);
    const key = `${sql()}\n${JSON.stringify(args)}`;
    const v = this.stmts.version.get();
    const version = `${v?.c}:${v?.v}`;
    let anchors = this.anchors.get(key);
    this.anchors.delete(key);
    if (anchors?.version !== version) anchors = { version, at: new Map() };
    this.anchors.set(key, anchors);
    if (this.anchors.size > ANCHOR_LISTS) this.anchors.delete(this.anchors.keys().next().value as string);
    let from: number | undefined;
    for (const at of anchors.at.keys()) if (at <= offset && (from === undefined || at > from)) from = at;
    const seek = from === undefined ? undefined : seekFrom(filter, anchors.at.get(from) as RunRow);
    const rows = seek
      ? this.dynamic
          .get<SQLInputValue[], RunRow>(sql(seek.sql))
          .all(...args, ...seek.args, count, offset - (from as number))
      : this.dynamic.get<SQLInputValue[], RunRow>(sql()).all(...args, count, offset);
    const last = rows[rows.length - 1];
    if (last && seekFrom(filter, last)) {
      anchors.at.delete(offset + rows.length - 1);
      anchors.at.set(offset + rows.length - 1, last);
      if (anchors.at.size > ANCHORS_PER_LIST) anchors.at.delete(anchors.at.keys().next().value as number);
    }
    return rows;
  }

  /**
   * Text search in any order without collecting every match: walks the list's order (its sort index,
   * rowids only) through a window of at most `textWindow` runs and tests each run's text where it is
   * stored (the full-text index's content table, by rowid) with LIKE, until the page is full.
   * Undefined, and the caller collects every match as before, when that would not be cheaper: few
   * full-text matches (counted up to `fewMatches`, streamed) or few runs of the statuses asked for (the
   * trigger-kept counts) or of any other filter alone (counted up to `fewMatches` along its index), a
   * page deeper than the window, text with
   * non-ASCII characters (the index folds case beyond ASCII), or a window that ends before the page does.
   *
   * The same runs as the full-text search: for ASCII text the trigram index matches a case-insensitive
   * substring, which LIKE matches too, except through the two non-ASCII characters the index folds to
   * ASCII letters (K U+212A to k, ſ U+017F to s); a run holding one is asked of the index itself.
   */
  private windowText(
    where: string[],
    args: SQLInputValue[],
    text: string,
    match: string | undefined,
    filter: RunFilter,
    offset: number,
    count: number,
  ): RunRow[] | undefined {
    if (offset + count > this.textWindow) return undefined;
    const counts = this.stmts.runCounts.all();
    // Few runs of the statuses and kinds asked for: collect them.
    const kind = this.kindTerm(filter, counts);
    const kinds = new Set<string>(kind.kinds);
    const statuses =
      filter.status === undefined
        ? undefined
        : new Set<string>(Array.isArray(filter.status) ? filter.status : [filter.status]);
    if (statuses || kind.term) {
      const runs = counts.reduce(
        (sum, c) => sum + ((!statuses || statuses.has(c.status)) && kinds.has(c.kind) ? c.n : 0),
        0,
      );
      if (runs < this.fewMatches) return undefined;
    }
    // Each other filter alone, counted up to `fewMatches` along its index: few runs, collect them.
    const narrow: [string, SQLInputValue][][] = [];
    for (const [col, v] of [
      ['sandbox', filter.sandbox],
      ['mode', filter.mode],
      ['model', filter.model],
      ['tier', filter.tier],
    ] as const)
      if (v !== undefined) narrow.push([[`${col} = ?`, v]]);
    const range: [string, SQLInputValue][] = [];
    if (filter.from !== undefined) range.push(['created_at >= ?', filter.from]);
    if (filter.to !== undefined) range.push(['created_at <= ?', filter.to]);
    if (range.length) narrow.push(range);
    for (const terms of narrow) {
      const few = this.dynamic
        .get<SQLInputValue[], { n: number }>(
          `SELECT COUNT(*) AS n FROM (SELECT 1 FROM runs WHERE ${terms.map((t) => t[0]).join(' AND ')} LIMIT ?)`,
        )
        .get(...terms.map((t) => t[1]), this.fewMatches);
      if ((few?.n ?? 0) < this.fewMatches) return undefined;
    }
    if (match !== undefined) {
      if (!/^\p{ASCII}*$/u.test(text)) return undefined;
      if ((this.stmts.fewMatches.get(match, this.fewMatches)?.n ?? 0) < this.fewMatches) return undefined;
    }
    const like = likeContaining(text);
    const folded = match !== undefined && /[ks]/i.test(text);
    const probe = `(c.c1 LIKE ? ESCAPE '\\' OR c.c2 LIKE ? ESCAPE '\\' OR c.c3 LIKE ? ESCAPE '\\'${
      folded
        ? ` OR ((instr(c.c1, '\u212a') OR instr(c.c1, '\u017f') OR instr(c.c2, '\u212a') OR instr(c.c2, '\u017f') OR instr(c.c3, '\u212a') OR instr(c.c3, '\u017f')) AND c.id IN (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ?))`
        : ''
    })`;
    // The window is read in the sort order of its ORDER BY ... LIMIT subquery: SQLite runs it as a
    // co-routine and the joins keep its order (no outer ORDER BY, which would sort the rows again).
    // `run-list-window.test.ts` compares every sort, both ways, with the collecting query: a planner that
    // stopped keeping that order fails it.
    // runs_fts_content is FTS5's own table of the indexed text (c1..c3: task, scripts, errors), one
    // B-tree lookup by rowid; the virtual table's rowid lookup costs about twice as much.
    const sql = `SELECT r.* FROM (SELECT r.rowid AS rid FROM runs r ORDER BY ${orderBy(filter.sort, filter.dir)} LIMIT ?) w
      CROSS JOIN runs r ON r.rowid = w.rid CROSS JOIN runs_fts_content c ON c.id = r.fts_id
      WHERE ${[...where, probe].join(' AND ')} LIMIT ? OFFSET ?`;
    const rows = this.dynamic
      .get<SQLInputValue[], RunRow>(sql)
      .all(this.textWindow, ...args, like, like, like, ...(folded ? [match] : []), count, offset);
    if (rows.length < count && counts.reduce((sum, c) => sum + c.n, 0) > this.textWindow) return undefined;
    return rows;
  }

  delete(runId: string): boolean {
    let deleted = false;
    this.tx('a run deletion', () => {
      this.stmts.deleteFts.run(runId);
      deleted = Number(this.stmts.deleteRun.run(runId).changes) > 0;
      this.stmts.deleteEvents.run(runId);
    });
    // Its events held in memory (a full disk) go with it.
    const held = this.pending.get(runId);
    if (held) {
      this.pending.delete(runId);
      this.pendingBytes -= held.bytes;
    }
    return deleted;
  }

  export(runId: string): RunExport {
    // Redacted again: a key learnt after the run was recorded is not exported either.
    const events = knownSecrets.value(this.events(runId));
    if (events.length === 0) throw new RunStoreError(`no run ${runId}`);
    return { format: EXPORT_FORMAT, version: EVENT_VERSION, exportedAt: this.now(), events };
  }

  /**
   * Imports an exported run (keeping its id unless that id exists here, then under a new id). The events
   * are replayed through `append`, so the summary and the search index are rebuilt, not trusted.
   */
  /**
   * Imports an exported run: every event is checked first (core/records/schemas.ts), then all are written
   * in one transaction. A bad file changes nothing and the error names the run, the event's index and
   * the field at fault.
   */
  import(doc: unknown): string {
    const checked = checkRunExport(doc);
    if ('error' in checked) throw new RunStoreError(checked.error);
    const [first, ...rest] = checked.events.map(upgradeEvent);
    if (!first || first.type !== 'run_started')
      throw new RunStoreError('an exported run must start with run_started');
    const id = this.summary(first.runId) ? randomUUID() : first.runId;
    try {
      this.tx('an imported run', () => {
        this.createRun(first.data, id, first.ts);
        for (const e of rest) this.append(id, e.type, e.data, e.ts);
        const finished = rest.some((e) => e.type === 'run_finished');
        // An imported run is never live here: without run_finished it reads as interrupted.
        if (!finished) this.stmts.importedUnfinished.run(id);
        else this.stmts.importedFinished.run(id);
      });
    } catch (e) {
      throw new RunStoreError(
        `run ${first.runId}: the import was rolled back, nothing was written: ${errorMessage(e)}`,
      );
    }
    return id;
  }
}

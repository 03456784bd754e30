/**
 * The run store's rows and fixed statements: a run's summary row as SQLite holds it (RunRow, and
 * toSummary into the contract's RunSummary), its events' rows, and every statement that does not
 * depend on a list filter, prepared once per store.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { EventType, RunKind, RunMode, RunStatus, Tier } from '../../core/records/events.ts';
import type { RunSummary } from '../../core/records/summary.ts';
import { interruptedReason, isDiskFull, pidAlive, storeWrite } from './connection.ts';
import { stmt } from './statements.ts';

export interface RunRow {
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

export const toSummary = (r: RunRow): RunSummary => ({
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

export interface EventRow {
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
export const runStatements = (db: DatabaseSync) => ({
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
  templateStat: stmt<[name: string], TemplateStatRow>(db, 'SELECT * FROM template_stats WHERE name = ?'),
  resetTemplate: stmt<[name: string], never>(db, 'DELETE FROM template_stats WHERE name = ?'),
  events: stmt<Id, EventRow>(db, 'SELECT * FROM events WHERE run_id = ? ORDER BY seq'),
  // A range on the primary key (run_id, seq): a catch-up reads only the events it missed.
  eventsAfter: stmt<[id: string, afterSeq: number], EventRow>(
    db,
    'SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq',
  ),
  // One attempt's events of one type: SQLite looks into each row of that type, JavaScript parses only these.
  eventsOfAttempt: stmt<[id: string, type: string, n: number], EventRow>(
    db,
    "SELECT * FROM events WHERE run_id = ? AND type = ? AND json_extract(data, '$.n') = ? ORDER BY seq",
  ),
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

export type RunStatements = ReturnType<typeof runStatements>;

export function liveStatus(row: RunRow): RunRow {
  return row.status === 'running' && !pidAlive(row.owner_pid)
    ? {
        ...row,
        status: 'interrupted',
        error: row.error ?? interruptedReason(row.owner_pid, row.updated_at),
      }
    : row;
}

/**
 * Runs left `running` by a process that no longer exists become `interrupted`. On a full disk the
 * rows stay as they are (reads derive the same status; see liveStatus): opening the store to read
 * must not fail for want of space.
 */
export function markInterrupted(file: string, stmts: RunStatements): void {
  for (const r of stmts.running.all()) {
    if (pidAlive(r.owner_pid)) continue;
    try {
      storeWrite(file, 'an interrupted run', () =>
        stmts.markInterrupted.run(interruptedReason(r.owner_pid, r.updated_at), r.id),
      );
    } catch (e) {
      if (!isDiskFull(e, file)) throw e;
      return;
    }
  }
}

/**
 * Suite runs in the run store's database: one row per suite run (its spec: columns, case instances and
 * thresholds), one row per finished case result, written as each case ends. A suite run left `running`
 * by a process that no longer exists reads as interrupted, with every finished case kept.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { CaseResult } from '../../core/suites/matrix.ts';
import { pidAlive, storeWrite } from './run-store.ts';
import type { RunStore } from './run-store.ts';
import { stmt } from './statements.ts';
import type { SuiteRunSpec, SuiteRunStatus, SuiteRunSummary } from '../../core/suites/run.ts';

// node:crypto when an id is made, not an ES import (its namespace loads webcrypto; the builtin ~6-10 ms
// of CPU a store that only lists never needs: see connection.ts).
const randomUUID = (): string => process.getBuiltinModule('node:crypto').randomUUID();

export type { SuiteRunSpec, SuiteRunStatus };
/** A suite run as this store reads it (the shape is defined once, in core/suites/run.ts). */
export type SuiteRunRow = SuiteRunSummary;

interface Row {
  id: string;
  suite: string;
  created_at: number;
  finished_at: number | null;
  status: SuiteRunStatus;
  owner_pid: number | null;
  spec: string;
  error: string | null;
  done?: number;
  passed?: number;
}

const COUNTS = `(SELECT COUNT(*) FROM suite_results x WHERE x.suite_run = s.id) AS done,
    (SELECT COUNT(*) FROM suite_results x WHERE x.suite_run = s.id AND json_extract(x.data, '$.passed')) AS passed`;

/** Every statement of the suite store, prepared once per store. */
const suiteStatements = (db: DatabaseSync) => ({
  create: stmt<[id: string, suite: string, createdAt: number, ownerPid: number, spec: string], never>(
    db,
    `INSERT INTO suite_runs (id, suite, created_at, status, owner_pid, spec) VALUES (?, ?, ?, 'running', ?, ?)`,
  ),
  tagRun: stmt<[suiteRun: string, runId: string], never>(db, 'UPDATE runs SET suite_run = ? WHERE id = ?'),
  addResult: stmt<
    [suiteRun: string, caseId: string, col: string, rep: number, runId: string | null, data: string],
    never
  >(
    db,
    `INSERT OR REPLACE INTO suite_results (suite_run, case_id, col, rep, run_id, data) VALUES (?, ?, ?, ?, ?, ?)`,
  ),
  finish: stmt<[status: SuiteRunStatus, finishedAt: number, error: string | null, id: string], never>(
    db,
    'UPDATE suite_runs SET status = ?, finished_at = ?, error = ? WHERE id = ?',
  ),
  get: stmt<[id: string], Row>(db, `SELECT s.*, ${COUNTS} FROM suite_runs s WHERE s.id = ?`),
  // A range on the primary key, as for run ids: no LIKE (whose wildcards a prefix could hold).
  idsFrom: stmt<[from: string, to: string, limit: number], { id: string }>(
    db,
    'SELECT id FROM suite_runs WHERE id >= ? AND id < ? ORDER BY id LIMIT ?',
  ),
  listOf: stmt<[suite: string, limit: number], Row>(
    db,
    `SELECT s.*, ${COUNTS} FROM suite_runs s WHERE s.suite = ? ORDER BY s.created_at DESC, s.id LIMIT ?`,
  ),
  list: stmt<[limit: number], Row>(
    db,
    `SELECT s.*, ${COUNTS} FROM suite_runs s ORDER BY s.created_at DESC, s.id LIMIT ?`,
  ),
  results: stmt<[suiteRun: string], { data: string }>(
    db,
    'SELECT data FROM suite_results WHERE suite_run = ? ORDER BY case_id, col, rep',
  ),
});

export class SuiteStore {
  private readonly stmts: ReturnType<typeof suiteStatements>;
  private readonly now: () => number;

  constructor(runs: RunStore, now: () => number = Date.now) {
    this.stmts = suiteStatements(runs.db);
    this.now = now;
    this.file = runs.file;
    this.runs = runs;
  }

  private readonly runs: RunStore;
  /** The store's file, named by a disk-full error (see storeWrite). */
  private readonly file: string;

  // Each write is mirrored in the run store's memory once it is made (RunStore.mirrorSuite): a file
  // overwritten in place keeps nothing of it, and the suite run is written there again from memory.
  // A write after the first (a tag, a result, the end) made while the file takes no writes (a full disk,
  // a copy going on over it) is held and written once it does (RunStore.writeSuite), and the reads below
  // include it; a new suite run is refused then.

  create(spec: SuiteRunSpec, id: string = randomUUID()): string {
    const createdAt = this.now();
    const text = JSON.stringify(spec);
    storeWrite(this.file, 'a new suite run', () =>
      this.stmts.create.run(id, spec.suite, createdAt, process.pid, text),
    );
    this.runs.noteSuiteRun(id);
    this.runs.mirrorSuite(id, {
      row: {
        id,
        suite: spec.suite,
        created_at: createdAt,
        status: 'running',
        owner_pid: process.pid,
        spec: text,
      },
    });
    return id;
  }

  /** Tags a case's run with its suite run (the runs list filters by it). */
  tagRun(runId: string, suiteRun: string): void {
    this.runs.writeSuite(suiteRun, { tag: runId }, "a case run's suite tag", () =>
      this.stmts.tagRun.run(suiteRun, runId),
    );
  }

  addResult(suiteRun: string, r: CaseResult): void {
    const data = JSON.stringify(r);
    this.runs.writeSuite(
      suiteRun,
      {
        result: { suite_run: suiteRun, case_id: r.caseId, col: r.column, rep: r.rep, run_id: r.runId, data },
      },
      'a suite result',
      () => this.stmts.addResult.run(suiteRun, r.caseId, r.column, r.rep, r.runId, data),
    );
  }

  finish(id: string, status: Exclude<SuiteRunStatus, 'running' | 'interrupted'>, error?: string): void {
    const finishedAt = this.now();
    this.runs.writeSuite(
      id,
      { end: { status, finished_at: finishedAt, error: error ?? null } },
      "a suite run's end",
      () => this.stmts.finish.run(status, finishedAt, error ?? null, id),
    );
    // Its end is checked to have reached the file now at the path (see RunEvents.keepWritten).
    this.runs.checkFiles();
  }

  private view(r: Row): SuiteRunRow {
    const status = r.status === 'running' && !pidAlive(r.owner_pid) ? 'interrupted' : r.status;
    return {
      id: r.id,
      suite: r.suite,
      createdAt: r.created_at,
      finishedAt: r.finished_at,
      status,
      spec: JSON.parse(r.spec) as SuiteRunSpec,
      error: r.error,
      done: r.done ?? 0,
      passed: r.passed ?? 0,
    };
  }

  /**
   * The row with the writes of it this process holds in memory (a full disk: RunStore.writeSuite) over
   * it: its end, and its counts from its results held and stored.
   */
  private withHeld(r: Row): Row {
    const held = this.runs.heldSuite(r.id);
    if (held.length === 0) return r;
    const results = this.results(r.id);
    const row = { ...r, done: results.length, passed: results.filter((x) => x.passed).length };
    for (const c of held)
      if ('end' in c)
        Object.assign(row, {
          status: c.end.status as SuiteRunStatus,
          finished_at: c.end.finished_at,
          error: c.end.error,
        });
    return row;
  }

  get(id: string): SuiteRunRow | undefined {
    const r = this.stmts.get.get(id);
    return r ? this.view(this.withHeld(r)) : undefined;
  }

  /** Up to `limit` suite run ids starting with `prefix`. */
  idsStartingWith(prefix: string, limit: number): string[] {
    return this.stmts.idsFrom.all(prefix, `${prefix}\uffff`, limit).map((r) => r.id);
  }

  /** Suite runs, newest first; of one suite when given. */
  list(suite?: string, limit = 50): SuiteRunRow[] {
    const rows = suite ? this.stmts.listOf.all(suite, limit) : this.stmts.list.all(limit);
    return rows.map((r) => this.view(this.withHeld(r)));
  }

  /** Its results by case, column and repeat, with those this process holds in memory (a full disk). */
  results(suiteRun: string): CaseResult[] {
    const stored = this.stmts.results.all(suiteRun).map((r) => JSON.parse(r.data) as CaseResult);
    const held = this.runs.heldSuite(suiteRun).flatMap((c) => ('result' in c ? [c.result] : []));
    if (held.length === 0) return stored;
    const key = (r: { caseId: string; column: string; rep: number }) =>
      JSON.stringify([r.caseId, r.column, r.rep]);
    const all = new Map(stored.map((r) => [key(r), r]));
    for (const h of held) {
      const r = JSON.parse(h['data'] as string) as CaseResult;
      all.set(key(r), r);
    }
    const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...all.values()].sort(
      (a, b) => order(a.caseId, b.caseId) || order(a.column, b.column) || a.rep - b.rep,
    );
  }
}

/**
 * Suite runs in the run store's database: one row per suite run (its spec: columns, case instances and
 * thresholds), one row per finished case result, written as each case ends. A suite run left `running`
 * by a process that no longer exists reads as interrupted, with every finished case kept.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { CaseResult, SuiteColumn } from '../../core/suites/matrix.ts';
import { pidAlive } from './run-store.ts';
import type { RunStore } from './run-store.ts';

export type SuiteRunStatus = 'running' | 'passed' | 'failed' | 'cancelled' | 'interrupted' | 'error';

/** What a suite run set out to do: enough to draw its matrix without the suite file. */
export interface SuiteRunSpec {
  suite: string;
  sandbox: string;
  columns: SuiteColumn[];
  cases: { id: string; task: string; threshold: number; repeat: number }[];
  concurrency: number;
  /** Total case runs planned (instances x columns x repeats). */
  planned: number;
  /** A hash of the sandbox's tools.py at the start: tool versions compared run over run. */
  toolsHash: string;
}

export interface SuiteRunRow {
  id: string;
  suite: string;
  createdAt: number;
  finishedAt: number | null;
  status: SuiteRunStatus;
  spec: SuiteRunSpec;
  error: string | null;
  /** Finished case runs so far. */
  done: number;
  passed: number;
}

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

export class SuiteStore {
  private readonly db: DatabaseSync;
  private readonly now: () => number;

  constructor(runs: RunStore, now: () => number = Date.now) {
    this.db = runs.db;
    this.now = now;
  }

  create(spec: SuiteRunSpec, id: string = randomUUID()): string {
    this.db
      .prepare(
        `INSERT INTO suite_runs (id, suite, created_at, status, owner_pid, spec) VALUES (?, ?, ?, 'running', ?, ?)`,
      )
      .run(id, spec.suite, this.now(), process.pid, JSON.stringify(spec));
    return id;
  }

  /** Tags a case's run with its suite run (the runs list filters by it). */
  tagRun(runId: string, suiteRun: string): void {
    this.db.prepare('UPDATE runs SET suite_run = ? WHERE id = ?').run(suiteRun, runId);
  }

  addResult(suiteRun: string, r: CaseResult): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO suite_results (suite_run, case_id, col, rep, run_id, data) VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(suiteRun, r.caseId, r.column, r.rep, r.runId, JSON.stringify(r));
  }

  finish(id: string, status: Exclude<SuiteRunStatus, 'running' | 'interrupted'>, error?: string): void {
    this.db
      .prepare('UPDATE suite_runs SET status = ?, finished_at = ?, error = ? WHERE id = ?')
      .run(status, this.now(), error ?? null, id);
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

  private static readonly COUNTS = `(SELECT COUNT(*) FROM suite_results x WHERE x.suite_run = s.id) AS done,
    (SELECT COUNT(*) FROM suite_results x WHERE x.suite_run = s.id AND json_extract(x.data, '$.passed')) AS passed`;

  get(id: string): SuiteRunRow | undefined {
    const r = this.db.prepare(`SELECT s.*, ${SuiteStore.COUNTS} FROM suite_runs s WHERE s.id = ?`).get(id) as
      Row | undefined;
    return r ? this.view(r) : undefined;
  }

  /** Suite runs, newest first; of one suite when given. */
  list(suite?: string, limit = 50): SuiteRunRow[] {
    const rows = (suite
      ? this.db
          .prepare(
            `SELECT s.*, ${SuiteStore.COUNTS} FROM suite_runs s WHERE s.suite = ? ORDER BY s.created_at DESC, s.id LIMIT ?`,
          )
          .all(suite, limit)
      : this.db
          .prepare(
            `SELECT s.*, ${SuiteStore.COUNTS} FROM suite_runs s ORDER BY s.created_at DESC, s.id LIMIT ?`,
          )
          .all(limit)) as unknown as Row[];
    return rows.map((r) => this.view(r));
  }

  results(suiteRun: string): CaseResult[] {
    const rows = this.db
      .prepare('SELECT data FROM suite_results WHERE suite_run = ? ORDER BY case_id, col, rep')
      .all(suiteRun) as { data: string }[];
    return rows.map((r) => JSON.parse(r.data) as CaseResult);
  }
}

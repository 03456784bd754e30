/**
 * The run store: SQLite through node:sqlite (WAL). A run is an append-only list of typed, versioned events
 * written as they happen; `runs` is a summary index for listing and filtering (rebuildable from events),
 * and `runs_fts` a trigram full-text index over task, scripts and errors. A run whose owning process died
 * before its run_finished event reads as interrupted.
 *
 * RunStore (run-store.ts: this module's RunStoreCore and `import`) is the store's one face; the work is
 * in modules that each read in one sitting:
 * - connection.ts: opening the file, migrations, full-disk errors, process liveness;
 * - run-statements.ts: the rows and the fixed statements;
 * - run-events.ts: writing and reading a run's events (append, held events on a full disk, import,
 *   export, delete) and the template counters;
 * - run-queries.ts: reading runs (get, summary, the run list with its strategies and counts);
 * - suite-store.ts: suite runs and their cases, on the same connection.
 */
import type { DatabaseSync } from 'node:sqlite';
import type {
  EventOf,
  EventPayloads,
  EventType,
  RunEvent,
  RunStartedData,
} from '../../core/records/events.ts';
import { EVENT_VERSION } from '../../core/records/events.ts';
import type { RunPage, RunSummary } from '../../core/records/summary.ts';
import { steadyNow } from '../clock.ts';
import { DiskFullError, openStore, RunStoreError, StoreConnection } from './connection.ts';
import { RunEvents } from './run-events.ts';
import type { RunExport, SuiteChange } from './run-events.ts';
import { RunQueries } from './run-queries.ts';
import type { RunFilter } from './run-queries.ts';
import { markInterrupted, runStatements } from './run-statements.ts';
import { StatementCache } from './statements.ts';

export type { RunPage, RunSummary, RunExport, RunFilter, SuiteChange };
export {
  DiskFullError,
  interruptedReason,
  isDiskFull,
  pidAlive,
  RunStoreError,
  StoreDamagedError,
  StoreOverwrittenError,
  StoreUnwritableError,
  storeWrite,
} from './connection.ts';
export { EXPORT_FORMAT, FLUSH_EVERY_MS, MAX_PENDING_BYTES } from './run-events.ts';
export { likeContaining, orderBy } from './run-queries.ts';

/**
 * The run store but its `import` (run-store.ts's RunStore adds it): its reads are RunQueries' (summary,
 * has, idsStartingWith, get, list, inherited), its writes the event log's (RunEvents, below). Apart so
 * that a verb that only lists (`runs list`, `template list`: cli/store-verbs.ts) loads neither zod nor the
 * records' schemas, which only an import's check uses (~35 ms of CPU of a one-shot verb's start).
 */
export class RunStoreCore extends RunQueries {
  readonly file: string;
  /** The connection with its file's identity (see StoreConnection). */
  private readonly conn: StoreConnection | undefined;
  private readonly memoryDb: DatabaseSync | undefined;
  protected readonly log: RunEvents;
  private readonly now: () => number;

  /**
   * `textWindow` and `fewMatches` tune the windowed text search (see windowText; tests make them small).
   */
  constructor(file: string, opts: { now?: () => number; textWindow?: number; fewMatches?: number } = {}) {
    const conn = file === ':memory:' ? undefined : new StoreConnection(file);
    const db = conn?.db ?? openStore(file);
    const stmts = runStatements(db);
    const log = new RunEvents({ file, db, stmts, now: opts.now ?? steadyNow, ...(conn ? { conn } : {}) });
    super({
      stmts,
      dynamic: new StatementCache(db),
      events: (runId) => log.events(runId),
      heldTags: { runsOf: (id) => log.heldRunsOf(id), suiteRunOf: (runId) => log.heldSuiteRunOf(runId) },
      heldEvents: { runs: () => log.heldRuns(), of: (runId) => log.heldEventsOf(runId) },
      ...(opts.textWindow !== undefined ? { textWindow: opts.textWindow } : {}),
      ...(opts.fewMatches !== undefined ? { fewMatches: opts.fewMatches } : {}),
    });
    this.file = file;
    this.conn = conn;
    this.memoryDb = conn ? undefined : db;
    this.log = log;
    this.now = opts.now ?? steadyNow;
    markInterrupted(file, stmts);
  }

  /** The connection, shared with SuiteStore (same file, same transactions); a new one after a reopen. */
  get db(): DatabaseSync {
    return this.conn?.db ?? (this.memoryDb as DatabaseSync);
  }

  /**
   * Closes the store after one last try at writing what is held (events, suite runs' writes, template
   * counts); when the disk is still full they cannot be kept, and the error says how many of which runs
   * and suite runs are lost.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    // (an overwrite going on is acted on first: what the log holds is then written to the new content)
    try {
      this.conn?.settle();
    } catch {
      // The close below checks the files again and says what it finds.
    }
    // Still being overwritten after that wait: what this process keeps of its runs is written beside
    // the store, since the close empties the log that held their ends.
    if (this.conn?.beingOverwritten) this.log.keepAsideAtClose();
    const lost = this.log.release();
    if (this.conn) this.conn.close();
    else this.db.close();
    if (lost?.full) throw new DiskFullError(this.file, 'what this process held', lost.lost);
    if (lost)
      throw new RunStoreError(`what this process held could not be written to ${this.file}: ${lost.lost}`);
  }

  /**
   * Whether the store is closed. Events that land after that (a run still emitting while its process
   * stops: a tool call's trace, a log line, its run_finished) are dropped and counted, never written to a
   * closed connection: node:sqlite would throw "statement has been finalized" from inside whatever
   * callback delivered the event (a sandbox socket's reader), and that would end the process.
   */
  isClosed(): boolean {
    return this.closed;
  }

  /** How many events were dropped because they came after the store closed (see isClosed). */
  droppedAfterClose(): number {
    return this.dropped;
  }

  private closed = false;
  private dropped = 0;

  // Writing and reading events (run-events.ts).

  /** Starts a run: writes its run_started event and summary row. Returns the new run id. */
  createRun(data: RunStartedData, id?: string, ts?: number): string {
    if (this.closed) throw new RunStoreError(`the run store ${this.file} is closed: no new run is recorded`);
    return this.log.createRun(data, id, ts);
  }

  /** Appends one event and updates the run's summary (see RunEvents.append: a full disk holds it). */
  append<T extends EventType>(runId: string, type: T, data: EventPayloads[T], ts?: number): RunEvent {
    if (this.closed) {
      // A late event (see isClosed): handed back unrecorded (seq -1), never written.
      this.dropped++;
      return { v: EVENT_VERSION, runId, seq: -1, ts: ts ?? this.now(), type, data } as RunEvent;
    }
    return this.log.append(runId, type, data, ts);
  }

  /** A run's events, with those held in memory (disk full) after the stored ones. */
  events(runId: string): RunEvent[] {
    return this.log.events(runId);
  }

  /** A run's events after `afterSeq` (a live view's catch-up): reads only those, O(missed). */
  eventsAfter(runId: string, afterSeq: number): RunEvent[] {
    return this.log.eventsAfter(runId, afterSeq);
  }

  /** Attempt `n`'s events of one type, in order (no other event is parsed). */
  eventsOfAttempt<T extends EventType>(runId: string, type: T, n: number): EventOf<T>[] {
    return this.log.eventsOfAttempt(runId, type, n);
  }

  /** How many events are held in memory, not yet on disk (the disk was full). */
  pendingEvents(): number {
    return this.log.pendingEvents();
  }

  /** Writes every held event and template count; whether nothing is left held. */
  flush(): boolean {
    return this.log.flush();
  }

  /** Runs many writes in one transaction (imports, seeding); each append inside is not durable alone. */
  batch(fn: () => void): void {
    this.log.batch(fn);
  }

  delete(runId: string): boolean {
    return this.log.delete(runId);
  }

  export(runId: string): RunExport {
    return this.log.export(runId);
  }

  /**
   * Checks now that the store's files are still the ones opened (see StoreConnection.check), as each
   * look of its watch does: a file that looks overwritten is not waited for here (a statement waits).
   */
  checkFiles(): void {
    this.conn?.check(true, false);
  }

  /** A suite run this process started (SuiteStore): carried into a new file if this one is replaced. */
  noteSuiteRun(id: string): void {
    this.log.noteSuiteRun(id);
  }

  /**
   * A write of a suite run this process started (SuiteStore), kept in memory while the suite run goes
   * on: carried into the content now at the path if this file is overwritten in place.
   */
  mirrorSuite(id: string, change: SuiteChange): void {
    if (this.closed) return;
    this.log.mirrorSuite(id, change);
  }

  /**
   * A write of a suite run this process started (SuiteStore): made now, or held in memory while the
   * file takes no writes (a full disk, a copy going on over it) and written once it does (see
   * RunEvents.writeSuite).
   */
  writeSuite(id: string, change: SuiteChange, what: string, write: () => void): void {
    if (this.closed) throw new RunStoreError(`the run store ${this.file} is closed: ${what} is not recorded`);
    this.log.writeSuite(id, change, what, write);
  }

  /** The writes of suite run `id` held in memory, in order (see writeSuite): its reads include them. */
  heldSuite(id: string): SuiteChange[] {
    return this.log.heldSuite(id);
  }

  /** How many writes of suite runs are held in memory, not yet on disk (see writeSuite). */
  pendingSuiteWrites(): number {
    return this.log.pendingSuiteWrites();
  }

  /** Counts one use of a template (the ratchet's counters); held in memory while the disk is full. */
  recordTemplateUse(name: string, success: boolean): void {
    if (this.closed) return; // a run ending after the store closed (see isClosed)
    this.log.recordTemplateUse(name, success);
  }

  templateStats(): Map<string, { successes: number; failures: number; lastUsed: number | null }> {
    return this.log.templateStats();
  }

  resetTemplateStats(name: string): void {
    this.log.resetTemplateStats(name);
  }
}

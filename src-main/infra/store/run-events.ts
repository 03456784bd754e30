/**
 * A run's events: created with its run_started event, appended one by one as they happen (each folded
 * into the run's summary row by core/records/summary.ts and into the search index), read back in
 * order, exported and imported, deleted. While the disk is full, appends are held in memory and written
 * when space returns. Template counters (the ratchet's) are written here too, under the same rule.
 */
import type { DatabaseSync } from 'node:sqlite';
import { EVENT_VERSION, upgradeEvent } from '../../core/records/events.ts';
import type {
  EventOf,
  EventPayloads,
  EventType,
  RunEvent,
  RunStartedData,
} from '../../core/records/events.ts';
import { knownSecrets } from '../../core/records/redact.ts';
import type { checkRunExport } from '../../core/records/schemas.ts';
import { foldSummary, startSummary } from '../../core/records/summary.ts';
import { errorMessage } from '../../core/errors.ts';
import { DiskFullError, isDiskFull, RunStoreError, StoreOverwrittenError, storeWrite } from './connection.ts';
import type { ReplacedWhy, StoreConnection, WalMark } from './connection.ts';
import { steadyNow } from '../clock.ts';
import { insertRows } from './rows.ts';
import { toSummary } from './run-statements.ts';
import type { EventRow } from './run-statements.ts';
import type { RunRow, RunStatements } from './run-statements.ts';

// node:crypto when an id is made, not an ES import (its namespace loads webcrypto; the builtin ~6-10 ms
// of CPU a store that only lists never needs: see connection.ts).
const randomUUID = (): string => process.getBuiltinModule('node:crypto').randomUUID();

export const EXPORT_FORMAT = 'toolsmith-run';

export interface RunExport {
  format: typeof EXPORT_FORMAT;
  version: number;
  exportedAt: number;
  events: RunEvent[];
}

/** A suite run as this process wrote it, kept in memory (see RunEvents.suitesInFlight). */
interface SuiteMirror {
  /** Its `suite_runs` row, by column. */
  row: Record<string, unknown>;
  /** Its `suite_results` rows, by case, column and repeat. */
  results: Map<string, Record<string, unknown>>;
  /** Its case runs (their `runs.suite_run`). */
  tags: Set<string>;
  endedAt?: number;
}

/** One write of a suite run (SuiteStore), as the columns it wrote. */
export type SuiteChange =
  | { row: Record<string, unknown> }
  | { result: Record<string, unknown> }
  | { tag: string }
  | { end: { status: string; finished_at: number; error: string | null } };

/** Held writes of suite runs in words: how many case runs' tags, case results and ends. */
function suiteWrites(changes: SuiteChange[]): string {
  const n = (k: string) => changes.filter((c) => k in c).length;
  return [
    n('tag') ? `${n('tag')} case run tag(s)` : '',
    n('result') ? `${n('result')} case result(s)` : '',
    n('end') ? `${n('end')} end(s)` : '',
    n('row') ? `${n('row')} start(s)` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** Events held in memory while the disk is full, at most this many bytes (JSON) over all runs. */
export const MAX_PENDING_BYTES = 32 * 1024 * 1024;
/** How often held events are tried again while the disk is full. */
export const FLUSH_EVERY_MS = 1_000;

interface PendingRun {
  /** The events not yet on disk, in order, with the seq each will have. */
  events: RunEvent[];
  bytes: number;
}

/** An event as stored, upgraded to the current version. */
interface TemplateCounter {
  name: string;
  successes: number;
  failures: number;
  last_used: number | null;
}

/**
 * Template counters carried into the store now at the path (its file replaced or overwritten in place):
 * per template, the larger of each count (and the later use) of the two wins, so a use counted in both
 * (an older copy of the same store put back) is never counted twice. Returns how many were written.
 */
function mergeCounters(db: DatabaseSync, counters: readonly TemplateCounter[]): number {
  if (counters.length === 0) return 0;
  const merge = db.prepare(
    `INSERT INTO template_stats (name, successes, failures, last_used) VALUES (?, ?, ?, ?)
     ON CONFLICT(name) DO UPDATE SET successes = max(successes, excluded.successes),
       failures = max(failures, excluded.failures), last_used = max(coalesce(last_used, 0), coalesce(excluded.last_used, 0))`,
  );
  for (const t of counters) merge.run(t.name, t.successes, t.failures, t.last_used);
  return counters.length;
}

const fromRow = (r: EventRow): RunEvent =>
  upgradeEvent({ v: r.v, runId: r.run_id, seq: r.seq, ts: r.ts, type: r.type, data: JSON.parse(r.data) });

/** A run of this process kept in memory (see RunEvents.inFlight). */
/** What a keep aside wrote (see RunEvents.keepAside): its folder (none when nothing was kept), the runs kept and lost. */
interface KeptAside {
  dir?: string;
  kept: string[];
  lost: { id: string; cause: string }[];
}

/**
 * The words of a keep aside after what was being kept (`<n> run(s) ...`): where the kept runs are and
 * which were lost and why ("are kept in DIR (...): a, b" when all were kept, else after a colon "2 are
 * kept in DIR (...): a, c; 1 could not be kept aside (cause) and are lost: b").
 */
function keptAsideWords(r: KeptAside): string {
  const where = (n: string) =>
    `${n}kept in ${r.dir} (one export per run: \`toolsmith runs import FILE\` takes one into a store): ${r.kept.join(', ')}`;
  const causes = [...new Set(r.lost.map((l) => l.cause))].join('; ');
  const lost = (n: string) =>
    `${n}could not be kept aside (${causes}) and are lost: ${r.lost.map((l) => l.id).join(', ')}`;
  if (r.lost.length === 0) return where('are ');
  if (r.kept.length === 0) return lost(`${r.lost.length} `);
  return `${where(`${r.kept.length} are `)}; ${lost(`${r.lost.length} `)}`;
}

interface InFlightRun {
  events: RunEvent[];
  endedAt?: number;
  /** Where the write-ahead log ended once its end was committed (see RunEvents.markWritten). */
  mark?: WalMark;
  /** Its events' bytes, once it is kept only because its end may be in the log alone (see prune). */
  bytes?: number;
}

/** Runs kept in memory only because their end may be in the write-ahead log alone, at most (JSON). */
export const MAX_LOG_ONLY_BYTES = 32 * 1024 * 1024;

/** What the event log works on: the store's file and connection, its statements and clock. */
export interface StoreParts {
  file: string;
  db: DatabaseSync;
  stmts: RunStatements;
  now: () => number;
  /** The connection with its file's identity (a file store); its `db` changes when it is reopened. */
  conn?: StoreConnection;
}

export class RunEvents {
  private readonly file: string;
  private readonly db: DatabaseSync;
  private readonly stmts: RunStatements;
  private readonly now: () => number;
  private readonly conn: StoreConnection | undefined;
  /** The runs this process wrote (created, appended to, imported): kept when the file is replaced. */
  private readonly written = new Set<string>();

  constructor(parts: StoreParts) {
    this.file = parts.file;
    this.db = parts.db;
    this.stmts = parts.stmts;
    this.now = parts.now;
    this.conn = parts.conn;
    if (this.conn) this.conn.onReplaced = (old, why) => this.keepWritten(old, why);
  }

  /**
   * The store's file was removed or replaced (see StoreConnection): what this process wrote is read
   * from the old connection now (its view still holds it) and written to the new file once it is open.
   * A lost WAL keeps every run this process wrote (their last events may exist only there); a deleted
   * or replaced database keeps the runs still going (the others were deleted with it). The same holds
   * for this process's suite runs (with their results and their runs' tags), and the counters of the
   * templates it used are carried (the larger count wins: nothing is counted twice).
   */
  private keepWritten(old: DatabaseSync, why: ReplacedWhy): (() => string | undefined) | undefined {
    if (why === 'overwritten') return this.keepInFlight();
    const lostFile = why === 'deleted' || why === 'replaced';
    // The file lost: the runs and suite runs still going are carried, and those that ended after the
    // files were last seen whole (their end may have been written to the lost file). A run's or a suite
    // run's end is followed by a check, so an end written before the loss is never carried back.
    const since = this.conn?.okAt ?? steadyNow();
    const status = old.prepare('SELECT status, updated_at FROM runs WHERE id = ?');
    const events = old.prepare(
      'SELECT run_id, seq, type, v, ts, data FROM events WHERE run_id = ? ORDER BY seq',
    );
    const runs: RunEvent[][] = [];
    for (const id of this.written) {
      const row = status.get(id) as { status: string; updated_at: number } | undefined;
      if (!row || (lostFile && row.status !== 'running' && row.updated_at <= since)) continue;
      runs.push(
        (events.all(id) as unknown as EventRow[]).map((r) =>
          upgradeEvent({
            v: r.v,
            runId: r.run_id,
            seq: r.seq,
            ts: r.ts,
            type: r.type,
            data: JSON.parse(r.data),
          }),
        ),
      );
    }
    const suiteRuns = (
      old
        .prepare(
          `SELECT * FROM suite_runs WHERE owner_pid = ?${lostFile ? " AND (status = 'running' OR finished_at > ?)" : ''}`,
        )
        .all(...(lostFile ? [process.pid, since] : [process.pid])) as Record<string, unknown>[]
    ).filter((r) => this.ownSuiteRuns.has(r['id'] as string));
    const ofSuite = old.prepare('SELECT * FROM suite_results WHERE suite_run = ?');
    const tagsOf = old.prepare('SELECT id, suite_run FROM runs WHERE suite_run = ?');
    const suiteResults = suiteRuns.flatMap(
      (r) => ofSuite.all(r['id'] as string) as Record<string, unknown>[],
    );
    const tags = suiteRuns.flatMap((r) => tagsOf.all(r['id'] as string) as Record<string, unknown>[]);
    const counter = old.prepare(
      'SELECT name, successes, failures, last_used FROM template_stats WHERE name = ?',
    );
    const templates = [...this.templatesUsed]
      .map((name) => counter.get(name) as TemplateCounter | undefined)
      .filter((r): r is TemplateCounter => r !== undefined);
    if (runs.length === 0 && suiteRuns.length === 0 && templates.length === 0) return undefined;
    return () => {
      let kept = 0;
      for (const run of runs) if (this.writeAgain(run)) kept++;
      const db = this.conn?.db ?? this.db;
      let suites = 0;
      let counters = 0;
      this.tx('a suite run and template counters written again', () => {
        suites = insertRows(db, 'suite_runs', suiteRuns);
        insertRows(db, 'suite_results', suiteResults);
        const tag = db.prepare('UPDATE runs SET suite_run = ? WHERE id = ? AND suite_run IS NULL');
        for (const t of tags) tag.run(t['suite_run'] as string, t['id'] as string);
        counters = mergeCounters(db, templates);
      });
      const said = [
        kept ? `${kept} run(s)` : '',
        suites ? `${suites} suite run(s)` : '',
        counters ? `${counters} template counter(s)` : '',
      ].filter(Boolean);
      return said.length ? `${said.join(', ')} of this process written there again` : undefined;
    };
  }

  /**
   * The events of this process's runs in flight, of those that ended after the files were last seen
   * whole, and of those whose end is not yet checkpointed (only in the write-ahead log: see prune),
   * kept in memory: a `runs.db` overwritten in place keeps nothing of its old pages and the reopen
   * empties the log, so these runs are written to the content now at the path from here, or beside
   * it when that content is another store's (see keepInFlight, StoreConnection.reopenOverwritten).
   */
  private readonly inFlight = new Map<string, InFlightRun>();

  /**
   * Bytes of the runs kept in `inFlight` only because their end may be in the write-ahead log alone
   * (ended, seen whole, not yet checkpointed: see onlyInLog), at most MAX_LOG_ONLY_BYTES.
   */
  private logOnlyBytes = 0;

  /**
   * Runs of this process ended and no longer kept (past MAX_LOG_ONLY_BYTES) while their end may still
   * be only in the write-ahead log: named if an overwrite empties the log before a checkpoint (see
   * keepInFlight), forgotten once checkpointed.
   */
  private readonly notKept = new Map<string, WalMark>();

  /** An import is being written: an imported run is never in flight here, so it is not kept in memory. */
  private importing = false;

  private mirror(event: RunEvent): void {
    if (!this.conn || this.importing) return;
    if (event.type === 'run_started') this.inFlight.set(event.runId, { events: [event] });
    else {
      const m = this.inFlight.get(event.runId);
      if (!m) return;
      m.events.push(event);
      if (event.type === 'run_finished') m.endedAt = steadyNow();
    }
    // (at a run's start and end only: the runs kept until a checkpoint may be hundreds, and walking
    // them at every event cost an append O(runs kept))
    if (event.type === 'run_started' || event.type === 'run_finished') this.prune();
  }

  /**
   * Where the log ended once run `runId`'s end was committed (see StoreConnection.walMark): until a
   * checkpoint writes that far, the run is kept in memory after it was seen whole (see prune).
   */
  private markWritten(runId: string): void {
    const m = this.inFlight.get(runId);
    if (!this.conn || !m || m.endedAt === undefined || this.pending.has(runId)) return;
    m.mark = this.conn.walMark();
  }

  /**
   * Forgets the runs that ended before the files were last seen whole and whose end is in the database
   * file (checkpointed: see StoreConnection.checkpointed). One whose end is still only in the
   * write-ahead log is kept, up to MAX_LOG_ONLY_BYTES (the oldest past it forgotten and its id kept in
   * `notKept`): an overwrite in place empties that log, and the run is then written again where it
   * belongs (see keepInFlight). Before, a run was forgotten as soon as it was seen whole, and one that
   * ended a minute before a copy over the store, its end not yet checkpointed, was lost without a word.
   */
  private prune(): void {
    const conn = this.conn;
    if (!conn) return;
    const seen = conn.okAt;
    let index: ((mark: WalMark) => boolean) | undefined;
    const checkpointed = (mark: WalMark) => (index ??= conn.checkpointedTest())(mark);
    for (const [id, m] of this.inFlight) {
      // (a run whose end is held is not in the store: never forgotten, whenever it ended; before, one that
      // ended in the millisecond of the last look was forgotten and its held end refused at close)
      if (m.endedAt === undefined || m.endedAt > seen || this.pending.has(id)) continue;
      if (m.mark !== undefined && !checkpointed(m.mark)) {
        if (m.bytes === undefined) {
          m.bytes = m.events.reduce((n, e) => n + JSON.stringify(e.data).length, 0);
          this.logOnlyBytes += m.bytes;
        }
        continue;
      }
      this.forget(id, m);
    }
    for (const [id, m] of this.inFlight) {
      if (this.logOnlyBytes <= MAX_LOG_ONLY_BYTES) break;
      if (m.bytes === undefined || m.mark === undefined) continue;
      this.notKept.set(id, m.mark);
      this.forget(id, m);
    }
    for (const [id, mark] of this.notKept) if (checkpointed(mark)) this.notKept.delete(id);
  }

  private forget(id: string, m: InFlightRun): void {
    this.inFlight.delete(id);
    if (m.bytes !== undefined) this.logOnlyBytes -= m.bytes;
  }

  /**
   * This process's suite runs as it wrote them (the row, each result, its case runs' tags), kept in
   * memory for the same reason as its runs in flight (see inFlight) and under the same rule: those still
   * going, and those that ended after the files were last seen whole, are written to the content now at
   * the path after an overwrite. Before, an overwrite carried the case runs but not their suite run: the
   * suite run's later results and its end were written against a row that was no longer there, and it
   * was gone from the new content.
   */
  private readonly suitesInFlight = new Map<string, SuiteMirror>();

  /** A write of a suite run this process started (SuiteStore), mirrored (see suitesInFlight). */
  mirrorSuite(id: string, change: SuiteChange): void {
    if (!this.conn) return;
    if ('row' in change) {
      this.suitesInFlight.set(id, { row: { ...change.row }, results: new Map(), tags: new Set() });
    } else {
      const m = this.suitesInFlight.get(id);
      if (!m) return;
      if ('result' in change) {
        const r = change.result;
        m.results.set(JSON.stringify([r['case_id'], r['col'], r['rep']]), { ...r });
      } else if ('tag' in change) m.tags.add(change.tag);
      else {
        Object.assign(m.row, change.end);
        m.endedAt = steadyNow();
      }
    }
    const seen = this.conn.okAt;
    for (const [key, m] of this.suitesInFlight)
      if (m.endedAt !== undefined && m.endedAt <= seen) this.suitesInFlight.delete(key);
  }

  /** The runs and suite runs in flight (see inFlight, suitesInFlight), to be written to the store now at the path. */
  private keepInFlight(): (() => string | undefined) | undefined {
    const seen = this.conn?.okAt ?? steadyNow();
    const current = <T extends { endedAt?: number }>(m: T) => m.endedAt === undefined || m.endedAt > seen;
    // (and a run whose end is held, whenever it ended: it is not in the store)
    const carried = ([id, m]: [string, InFlightRun]) => current(m) || this.pending.has(id);
    const runs = [...this.inFlight.entries()].filter(carried).map(([, m]) => [...m.events]);
    // The runs that ended before the files were last seen whole but whose end is still only in the log
    // the reopen empties (see prune), and those no longer kept for want of room (named).
    const checkpointed = this.conn?.checkpointedTest() ?? (() => true);
    const logOnly = [...this.inFlight.entries()].filter(
      (e) => !carried(e) && e[1].mark !== undefined && !checkpointed(e[1].mark),
    );
    for (const [id, m] of logOnly) this.forget(id, m);
    const ended = logOnly.map(([, m]) => m.events);
    const lost = [...this.notKept.entries()].filter(([, mark]) => !checkpointed(mark)).map(([id]) => id);
    this.notKept.clear();
    // By the store id rules: a copy of this store (its id: an older copy put back, or another copy of
    // it) is where this store's runs belong; another store's content, or a new store made in place of
    // a file that was no store (or was emptied), is not.
    const another = !/^(an older copy|another copy) of it /.test(this.conn?.overwriteVerdict ?? '');
    const logSaid = (): string[] => {
      const out: string[] = [];
      if (ended.length && !another) {
        let again = 0;
        for (const run of ended) if (this.writeAgain(run)) again++;
        if (again)
          out.push(
            `${again} run(s) that ended before the copy, their end only in the emptied log (not yet checkpointed), written there again`,
          );
      } else if (ended.length) {
        const ids = ended.map((r) => r[0]?.runId).join(', ');
        try {
          const aside = this.keepAside(ended);
          out.push(
            `${ended.length} run(s) that ended before the copy, their end only in the emptied log (not yet checkpointed), belong to the store before, not to what is there now${aside.lost.length ? ': ' : ', and '}${keptAsideWords(aside)}`,
          );
        } catch (e) {
          out.push(
            `${ended.length} run(s) that ended before the copy, their end only in the emptied log, could not be kept aside (${errorMessage(e)}) and are lost: ${ids}`,
          );
        }
      }
      if (lost.length)
        out.push(
          `${lost.length} run(s) that ended before the copy, their end only in the emptied log, were no longer kept in memory (past ${MAX_LOG_ONLY_BYTES / 1024 / 1024} MB) and are lost: ${lost.join(', ')}`,
        );
      return out;
    };
    const suites = [...this.suitesInFlight.entries()]
      .filter(([, m]) => current(m))
      .map(([id, m]) => ({ id, row: { ...m.row }, results: [...m.results.values()], tags: [...m.tags] }));
    const counters = [...this.countersWritten.values()].map((c) => ({ ...c }));
    if (runs.length === 0 && suites.length === 0 && counters.length === 0 && !ended.length && !lost.length)
      return undefined;
    return () => {
      let kept = 0;
      for (const run of runs) {
        // Its events held while the file was being overwritten (see append) are in that copy: dropped
        // first, so the copy is written once. Before, they were dropped after: the copy's events went
        // through append, which found the run's held queue and wrote each held event again after them
        // (or, the held ones not following the run written so far, failed with "no run" or "does not
        // follow", and the run was not written again at all).
        const id = run[0]?.runId;
        const held = id === undefined ? undefined : this.pending.get(id);
        if (id !== undefined && held) {
          this.pending.delete(id);
          this.pendingBytes -= held.bytes;
        }
        if (this.writeAgain(run)) kept++;
      }
      const db = this.conn?.db ?? this.db;
      let suiteRuns = 0;
      let written = 0;
      if (suites.length || counters.length)
        this.tx('a suite run and template counters written again', () => {
          const tag = db.prepare('UPDATE runs SET suite_run = ? WHERE id = ? AND suite_run IS NULL');
          for (const s of suites) {
            suiteRuns += insertRows(db, 'suite_runs', [s.row]);
            insertRows(db, 'suite_results', s.results);
            for (const runId of s.tags) tag.run(s.id, runId);
          }
          // (the uses held while the file was being overwritten are added to these once written: see flush)
          written = mergeCounters(db, counters);
        });
      const said = [
        kept ? `${kept} run(s)` : '',
        suiteRuns ? `${suiteRuns} suite run(s)` : '',
        written ? `${written} template counter(s)` : '',
      ].filter(Boolean);
      const all = [
        ...(said.length ? [`${said.join(', ')} of this process written there again`] : []),
        ...logSaid(),
      ];
      return all.length ? all.join('; ') : undefined;
    };
  }

  /**
   * The store closes while a copy still goes on over its file (StoreConnection.close then empties its
   * log rather than checkpoint it into content not yet whole): every run this process keeps in memory,
   * in flight or ended with its end not yet checkpointed (held events included), is written beside the
   * store (keepAside), and its held events are no longer held. Says what was kept, or what was lost and
   * why. Before, they were lost with the log, and only the held events were named.
   */
  keepAsideAtClose(): void {
    const checkpointed = this.conn?.checkpointedTest() ?? (() => true);
    const runs = [...this.inFlight.values()]
      .filter((m) => m.mark === undefined || !checkpointed(m.mark))
      .map((m) => m.events);
    if (runs.length === 0) return;
    const ids = runs.map((r) => r[0]?.runId ?? '');
    const what = `${runs.length} run(s) of this process (in flight, or ended with their end only in its write-ahead log, which is emptied)`;
    try {
      const aside = this.keepAside(runs);
      // (the held events of a run kept are in its export; those of a run lost are named at the close)
      for (const id of aside.kept) {
        const held = this.pending.get(id);
        if (held) {
          this.pending.delete(id);
          this.pendingBytes -= held.bytes;
        }
      }
      this.warn(
        `the run store ${this.file} was still being overwritten in place as this process (pid ${process.pid}) closed it: ${what}${aside.lost.length ? ': ' : ' '}${keptAsideWords(aside)}`,
      );
    } catch (e) {
      this.warn(
        `the run store ${this.file} was still being overwritten in place as this process (pid ${process.pid}) closed it: ${what} could not be kept aside (${errorMessage(e)}) and are lost: ${ids.join(', ')}`,
      );
    }
  }

  /**
   * Runs of this process written beside the store, one export per run (`runs import` reads each), in a
   * new folder `runs.db.log-<time>-<6 random characters>` readable by its owner only, each redacted as
   * `export` redacts: the runs of the store before that an overwrite in place by another store would
   * lose (see keepInFlight). Each export is written to a temporary name in the folder and renamed to
   * `<run id>.json` once whole; one that fails (the disk fills between two runs' files) is removed and
   * its run named lost with the cause, and the others are still written. Before, the first failure
   * ended the keep aside: a truncated file was left, the runs after it were never tried, and every run,
   * the ones whose files were whole too, was said lost. Returns the folder (none when no run was kept:
   * the empty folder is removed), the runs kept and those lost; throws when no folder could be made.
   */
  private keepAside(runs: RunEvent[][]): KeptAside {
    const fs = process.getBuiltinModule('node:fs');
    const path = process.getBuiltinModule('node:path');
    // (mkdtemp: a folder of its own, 0700, even when another keep aside, of this process or another
    // one on the same store, made one in the same millisecond; before, the second was refused and its
    // runs said lost)
    const dir = fs.mkdtempSync(`${this.file}.log-${new Date().toISOString().replace(/[:.]/g, '-')}-`);
    const kept: string[] = [];
    const lost: { id: string; cause: string }[] = [];
    for (const events of runs) {
      const id = events[0]?.runId ?? 'run';
      const doc: RunExport = {
        format: EXPORT_FORMAT,
        version: EVENT_VERSION,
        exportedAt: this.now(),
        // Redacted again, as `export` does: a key learnt after the run was recorded is not kept aside.
        events: knownSecrets.value(events),
      };
      const tmp = path.join(dir, `.${id}.json.partial`);
      try {
        fs.writeFileSync(tmp, `${JSON.stringify(doc)}\n`, { mode: 0o600, flag: 'wx' });
        fs.renameSync(tmp, path.join(dir, `${id}.json`));
        kept.push(id);
      } catch (e) {
        fs.rmSync(tmp, { force: true });
        lost.push({ id, cause: errorMessage(e) });
      }
    }
    if (kept.length === 0) {
      fs.rmSync(dir, { recursive: true, force: true });
      return { kept, lost };
    }
    return { dir, kept, lost };
  }

  /**
   * One write of a suite run this process started (SuiteStore: a case run's tag, a result, its end),
   * made by `write` and mirrored (see mirrorSuite). While the disk is full (or the files take no writes,
   * or the file is being overwritten in place: every DiskFullError), or while earlier writes or run events
   * are held, it is held in memory in order after them, as a run's events are: written by `flush` (at the
   * next write, every FLUSH_EVERY_MS and at the close) once the file takes writes again, and after an
   * overwrite also carried from its mirror when the overwrite is acted on (the held write then writes
   * the same again). The suite run's reads include them (see heldSuite). Before, only a copy going on
   * held them: on a full disk a result or the end was refused, the runner's `done` failed with the
   * disk-full error, and the verdicts never reached the user (the suite run left `running`). A new suite
   * run is still refused. Held past MAX_PENDING_BYTES too (they count toward it, so run events are
   * refused sooner): a suite run's writes are one tag and one result per case and its end, a few KB
   * each, bounded by its plan, while refusing one failed the whole suite run (its runner's `done`
   * rejected with the disk-full error, every verdict lost, the runs still going untagged).
   */
  writeSuite(id: string, change: SuiteChange, what: string, write: () => void): void {
    const bytes = JSON.stringify(change).length;
    const hold = (cause?: DiskFullError) => {
      this.pendingSuite.push({ id, change, write, bytes });
      this.pendingBytes += bytes;
      this.startFlushTimer();
      if (cause) this.sayHeld(cause);
    };
    if (this.pendingSuite.length || this.pending.size) {
      // After what is held: in order with it, and written with it once the file takes writes.
      hold();
      this.flush();
    } else
      try {
        storeWrite(this.file, what, write);
      } catch (e) {
        if (!(e instanceof DiskFullError)) throw e;
        hold(e);
      }
    this.mirrorSuite(id, change);
  }

  /** The writes of suite run `id` held in memory, in order (its reads include them: SuiteStore). */
  heldSuite(id: string): SuiteChange[] {
    return this.pendingSuite.filter((w) => w.id === id).map((w) => w.change);
  }

  /** The case runs whose suite tag naming suite run `id` is held in memory (see writeSuite). */
  heldRunsOf(id: string): string[] {
    if (this.pendingSuite.length === 0) return [];
    return this.pendingSuite.flatMap((w) => (w.id === id && 'tag' in w.change ? [w.change.tag] : []));
  }

  /** The suite run of a case run whose suite tag is held in memory (see writeSuite), if any. */
  heldSuiteRunOf(runId: string): string | undefined {
    if (this.pendingSuite.length === 0) return undefined;
    return this.pendingSuite.find((w) => 'tag' in w.change && w.change.tag === runId)?.id;
  }

  /** Whether the line saying that writes are held was said (see sayHeld); again after they were written. */
  private heldSaid = false;

  /**
   * Says once, on stderr, that the store's file refused a write and that what this process records
   * there is held in memory (its file and cause in `cause`'s words), until everything held is written
   * (then that is said too, and a later refusal is said again). Not for a file being overwritten in
   * place: the connection says that itself.
   */
  private sayHeld(cause: DiskFullError): void {
    if (this.heldSaid || cause instanceof StoreOverwrittenError) return;
    this.heldSaid = true;
    this.warn(
      `${cause.message}; until then this process holds what it records there (run events, suite results and ends, template counts) in memory, in order, up to ${MAX_PENDING_BYTES / 1024 / 1024} MB, and writes it once the file takes writes again (what is still held when this process exits is lost, and said then)`,
    );
  }

  private warn(line: string): void {
    if (this.conn) this.conn.warn(line);
    else process.stderr.write(`toolsmith: ${line}\n`);
  }

  /** How many writes of suite runs are held in memory, not yet on disk (see writeSuite). */
  pendingSuiteWrites(): number {
    return this.pendingSuite.length;
  }

  /** The suite runs this process started (see noteSuiteRun): carried when the file is replaced. */
  private readonly ownSuiteRuns = new Set<string>();
  /** The templates this process counted a use of: their counters are carried when the file is replaced. */
  private readonly templatesUsed = new Set<string>();
  /**
   * The counters of the templates this process counted a use of, as read back after its last count was
   * written: a `runs.db` overwritten in place keeps nothing of its old pages, so they are carried to the
   * content now at the path from here (see keepInFlight, mergeCounters). Before, the uses counted before
   * the overwrite were gone from the new content, and only those held while it was being written came back.
   */
  private readonly countersWritten = new Map<string, TemplateCounter>();

  /** Reads back the counter of `name` just written (see countersWritten); a read refused leaves it as it was. */
  private noteCounter(name: string): void {
    if (!this.conn) return;
    try {
      const row = this.stmts.templateStat.get(name);
      if (row) this.countersWritten.set(name, { ...row });
    } catch {
      // (the file looks overwritten since the write: the last counter read stands)
    }
  }

  /** A suite run this process started (infra/store/suite-store.ts): kept if the file is replaced. */
  noteSuiteRun(id: string): void {
    this.ownSuiteRuns.add(id);
  }

  /** Writes a run's events that the store lacks (all of them when it lacks the run), in order. */
  private writeAgain(events: RunEvent[]): boolean {
    const [first] = events;
    if (!first || first.type !== 'run_started') return false;
    const row = this.stmts.getRun.get(first.runId);
    const have = row?.next_seq ?? 0;
    if (have >= events.length) return false;
    this.tx('a run written again', () => {
      if (!row) this.createRun(first.data, first.runId, first.ts);
      for (const e of events.slice(Math.max(have, 1))) this.append(e.runId, e.type, e.data, e.ts);
    });
    this.markWritten(first.runId);
    return true;
  }

  /** Events held in memory while the disk is full, by run (see append). */
  private readonly pending = new Map<string, PendingRun>();
  private pendingBytes = 0;
  /** Template uses not yet counted on disk (disk full). */
  private readonly pendingTemplateUses: [name: string, success: boolean, at: number][] = [];
  /** Writes of suite runs held while the file took no writes, in order (see writeSuite). */
  private readonly pendingSuite: { id: string; change: SuiteChange; write: () => void; bytes: number }[] = [];
  private flushTimer: ReturnType<typeof setInterval> | undefined;

  /** The runs whose events are held in memory, not yet on disk (see append): the run list folds them in. */
  heldRuns(): string[] {
    return this.pending.size ? [...this.pending.keys()] : [];
  }

  /** The events of run `runId` held in memory, in order (see append). */
  heldEventsOf(runId: string): readonly RunEvent[] {
    return this.pending.get(runId)?.events ?? [];
  }

  /** How many events are held in memory, not yet on disk (the disk was full). */
  pendingEvents(): number {
    let n = 0;
    for (const p of this.pending.values()) n += p.events.length;
    return n;
  }

  /**
   * Writes every held event, suite run write and template count (in order, one transaction per run).
   * Returns whether nothing is left held; a disk still full (or files that take no writes) leaves them
   * held. A held write the store refuses for another reason (its run deleted by another process, a
   * constraint, SQLite's own error) stays held and is tried again at each flush (a cause that passes, a
   * lock, lets it through), said once with its cause (see refusedHeld), and no longer holds back what
   * was held after it. Before, its error was thrown out of every flush: nothing held after it was ever
   * written, and the close reported that error instead of what was lost.
   */
  flush(): boolean {
    const full = (e: unknown) => isDiskFull(e, this.file);
    for (const runId of [...this.pending.keys()]) {
      try {
        this.flushRun(runId);
        this.refused.delete(runId);
      } catch (e) {
        if (full(e)) return false;
        const p = this.pending.get(runId);
        this.refuse(runId, `${p?.events.length ?? 0} held event(s) of run ${runId}`, e);
      }
    }
    // (after the runs' events: a tag names a case run, which may have been held too)
    for (const held of [...this.pendingSuite]) {
      try {
        held.write();
      } catch (e) {
        if (full(e)) return false;
        this.refuse(held, `a held write of suite run ${held.id} (${suiteWrites([held.change])})`, e);
        continue;
      }
      this.refused.delete(held);
      this.pendingSuite.splice(this.pendingSuite.indexOf(held), 1);
      this.pendingBytes -= held.bytes;
    }
    for (const use of [...this.pendingTemplateUses]) {
      const [name, success, at] = use;
      try {
        this.stmts.useTemplate.run(name, success ? 1 : 0, success ? 0 : 1, at);
      } catch (e) {
        if (full(e)) return false;
        this.refuse(use, `a held use of template ${name}`, e);
        continue;
      }
      this.refused.delete(use);
      this.pendingTemplateUses.splice(this.pendingTemplateUses.indexOf(use), 1);
      this.noteCounter(name);
    }
    if (this.pending.size || this.pendingSuite.length || this.pendingTemplateUses.length) return false;
    this.stopFlushTimer();
    if (this.heldSaid) {
      this.heldSaid = false;
      this.warn(`the run store ${this.file} takes writes again: everything this process held was written`);
    }
    return true;
  }

  /**
   * Held writes the store refused at their last try for a reason other than a full disk or files that
   * take no writes (see flush), by run id, suite write or template use: the cause in words.
   */
  private readonly refused = new Map<unknown, string>();

  /** A held write refused for another reason (see flush): kept held, said once per cause. */
  private refuse(key: unknown, what: string, e: unknown): void {
    const cause = errorMessage(e);
    if (this.refused.get(key) === cause) return;
    this.refused.set(key, cause);
    this.warn(
      `the run store ${this.file} refused ${what} for a reason other than a full disk (${cause}); it stays held and is tried again, and what was held after it is written meanwhile`,
    );
  }

  private flushRun(runId: string): void {
    const p = this.pending.get(runId);
    if (!p) return;
    this.tx('events of a run', () => {
      for (const e of p.events) this.write(e);
    });
    this.pending.delete(runId);
    this.pendingBytes -= p.bytes;
    this.markWritten(runId);
  }

  private startFlushTimer(): void {
    if (this.flushTimer) return;
    this.flushTimer = setInterval(() => {
      // (a held write refused for another reason is said by flush, and stays held: see refuse)
      this.flush();
    }, FLUSH_EVERY_MS);
    this.flushTimer.unref();
  }

  private stopFlushTimer(): void {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
  }

  /**
   * Before the store closes: one last try at writing held events. Returns what is lost when the disk
   * is still full (how many events of which runs), undefined when nothing is; `full` is false when
   * every write still held was refused for another reason (see flush), whose causes `lost` names.
   */
  release(): { lost: string; full: boolean } | undefined {
    this.stopFlushTimer();
    if (this.flush()) return undefined;
    const runs = [...this.pending.keys()];
    const uses = this.pendingTemplateUses.length;
    const suites = [...new Set(this.pendingSuite.map((w) => w.id))];
    const what = [
      runs.length ? `${this.pendingEvents()} event(s) of run(s) ${runs.join(', ')}` : '',
      suites.length
        ? `${this.pendingSuite.length} write(s) of suite run(s) ${suites.join(', ')} (${suiteWrites(this.pendingSuite.map((w) => w.change))})`
        : '',
      uses
        ? `${uses} template use(s) of ${[...new Set(this.pendingTemplateUses.map((u) => u[0]))].join(', ')}`
        : '',
    ].filter(Boolean);
    const held: unknown[] = [...runs, ...this.pendingSuite, ...this.pendingTemplateUses];
    const causes = [...new Set(held.flatMap((k) => (this.refused.has(k) ? [this.refused.get(k)] : [])))];
    const full = held.some((k) => !this.refused.has(k));
    const why = [
      full ? 'disk full, the store not writable, or being overwritten' : '',
      causes.length ? `refused: ${causes.join('; ')}` : '',
    ].filter(Boolean);
    return {
      lost: `${what.join(' and ')} were never written (${why.join('; ')}) and are lost`,
      full,
    };
  }

  /** Starts a run: writes its run_started event and summary row. Returns the new run id. */
  createRun(data: RunStartedData, id: string = randomUUID(), ts: number = this.now()): string {
    // No known secret is ever written (see core/records/redact.ts).
    data = knownSecrets.value(data);
    const s = startSummary({ v: EVENT_VERSION, runId: id, seq: 0, ts, type: 'run_started', data });
    this.written.add(id);
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
    this.mirror({ v: EVENT_VERSION, runId: id, seq: 0, ts, type: 'run_started', data });
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
    this.written.add(runId);
    const held = this.pending.get(runId);
    if (held) {
      const last = held.events[held.events.length - 1] as RunEvent;
      const event = { v: EVENT_VERSION, runId, seq: last.seq + 1, ts, type, data } as RunEvent;
      this.hold(held, event);
      this.mirror(event);
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
      this.mirror(event as RunEvent);
      // A run's end is checked to have reached the file now at the path (see keepWritten).
      // (a look: a file that looks overwritten now carries the run, its end included, once acted on)
      if (type === 'run_finished' && this.depth === 0) {
        this.markWritten(runId);
        this.conn?.check(true, false);
      }
    } catch (e) {
      if (!isDiskFull(e, this.file) || this.depth > 0) throw e;
      // A file being overwritten is not read (it refuses every statement): the run's next seq is its
      // copy's in memory (see inFlight), which holds every event this process gave it.
      const mirrored = this.inFlight.get(runId)?.events.at(-1);
      const next =
        e instanceof StoreOverwrittenError
          ? mirrored && mirrored.seq + 1
          : this.stmts.getRun.get(runId)?.next_seq;
      if (next === undefined) throw e;
      event = { v: EVENT_VERSION, runId, seq: next, ts, type, data } as RunEvent;
      const p: PendingRun = { events: [], bytes: 0 };
      this.hold(p, event);
      this.pending.set(runId, p);
      this.startFlushTimer();
      if (e instanceof DiskFullError) this.sayHeld(e);
      this.mirror(event);
    }
    return event as RunEvent;
  }

  /** Holds `event` in memory, within MAX_PENDING_BYTES (else throws the disk-full error). */
  private hold(p: PendingRun, event: RunEvent): void {
    const bytes = JSON.stringify(event.data).length;
    // (the bound named whatever the cause: before, the first event of a run past it was refused with
    // the bare disk-full error, which did not say that the run's events were held until the bound)
    if (this.pendingBytes + bytes > MAX_PENDING_BYTES)
      throw new DiskFullError(
        this.file,
        'run events',
        `${this.pendingEvents()} event(s) and ${this.pendingSuite.length} suite write(s) already held in memory, up to the limit of ${MAX_PENDING_BYTES / 1024 / 1024} MB`,
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
        if ((this.conn?.db ?? this.db).isTransaction) {
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
    this.conn?.afterCommit();
  }

  /** Runs many writes in one transaction (imports, seeding); each append inside is not durable alone. */
  batch(fn: () => void): void {
    this.tx('a batch of runs', fn);
  }

  /** Counts one use of a template (the ratchet's counters); held in memory while the disk is full. */
  recordTemplateUse(name: string, success: boolean): void {
    const at = this.now();
    this.templatesUsed.add(name);
    if (this.pendingTemplateUses.length) {
      this.pendingTemplateUses.push([name, success, at]);
      return;
    }
    try {
      storeWrite(this.file, 'a template use', () =>
        this.stmts.useTemplate.run(name, success ? 1 : 0, success ? 0 : 1, at),
      );
    } catch (e) {
      if (!isDiskFull(e, this.file)) throw e;
      this.pendingTemplateUses.push([name, success, at]);
      this.startFlushTimer();
      if (e instanceof DiskFullError) this.sayHeld(e);
      return;
    }
    this.noteCounter(name);
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
    // (reset: an overwrite carries no count of it from before)
    this.countersWritten.delete(name);
  }

  /** A run's events, with those held in memory (disk full) after the stored ones. */
  events(runId: string): RunEvent[] {
    const stored = this.storedEvents(runId);
    const held = this.pending.get(runId);
    return held ? [...stored, ...held.events] : stored;
  }

  /** A run's events after `afterSeq` (held ones included): O(events after it), a range on the key. */
  eventsAfter(runId: string, afterSeq: number): RunEvent[] {
    const stored = this.stmts.eventsAfter.all(runId, afterSeq).map(fromRow);
    const held = this.pending.get(runId)?.events.filter((e) => e.seq > afterSeq);
    return held?.length ? [...stored, ...held] : stored;
  }

  /** Attempt `n`'s events of one type (held ones included), in order; no other row is parsed. */
  eventsOfAttempt<T extends EventType>(runId: string, type: T, n: number): EventOf<T>[] {
    const stored = this.stmts.eventsOfAttempt.all(runId, type, n).map(fromRow);
    const held =
      this.pending.get(runId)?.events.filter((e) => e.type === type && (e.data as { n?: unknown }).n === n) ??
      [];
    return [...stored, ...held] as EventOf<T>[];
  }

  private storedEvents(runId: string): RunEvent[] {
    return this.stmts.events.all(runId).map(fromRow);
  }

  delete(runId: string): boolean {
    let deleted = false;
    this.tx('a run deletion', () => {
      this.stmts.deleteFts.run(runId);
      deleted = Number(this.stmts.deleteRun.run(runId).changes) > 0;
      this.stmts.deleteEvents.run(runId);
    });
    // Its events held in memory (a full disk) go with it, and its copy kept for an overwrite (which
    // wrote a deleted run back).
    const kept = this.inFlight.get(runId);
    if (kept) this.forget(runId, kept);
    this.notKept.delete(runId);
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
   * Imports an exported run: every event is checked first (core/records/schemas.ts), then all are written
   * in one transaction, replayed through `append` (the summary and the search index are rebuilt, not
   * trusted), under its own id unless that id exists here (then a new one). A bad file changes nothing
   * and the error names the run, the event's index and the field at fault. `checked`: the document as
   * `checkRunExport` checked it (RunStore's `import`, run-store.ts: this module loads no schema).
   */
  import(checked: ReturnType<typeof checkRunExport>): string {
    if ('error' in checked) throw new RunStoreError(checked.error);
    const [first, ...rest] = checked.events.map(upgradeEvent);
    if (!first || first.type !== 'run_started')
      throw new RunStoreError('an exported run must start with run_started');
    let id = first.runId;
    this.importing = true;
    try {
      // (the id looked up inside the transaction: its BEGIN is the write a copy going on over the file
      // refuses, so the refusal says that nothing was written, not that nothing could be read)
      this.tx('an imported run', () => {
        if (this.stmts.hasRun.get(first.runId)) id = randomUUID();
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
    } finally {
      this.importing = false;
    }
    return id;
  }
}

/**
 * Reading runs: one run's summary or whole record, ids by prefix, and the run list (a filtered, sorted
 * page and its total). The list has several strategies, each a method below with when it is used and
 * why; `list` picks them in this order:
 *
 * Rows of the page:
 * - `streamText`: text search in the default order, while full-text rowids follow start times.
 * - `windowText`: text search in any other case where walking the list's order is cheaper than
 *   collecting every match (many matches, a shallow page).
 * - `collectText`: text search otherwise: every match, sorted (few matches, or nothing cheaper).
 * - `pageAt`: no text: the sort index walked from the nearest keyset anchor (deep pages in O(page)).
 *
 * The total:
 * - `totalFromCounts`: no filter but status and kind: the trigger-kept counts, exact, O(kinds x statuses).
 * - `totalFromPage`: otherwise, by default: a lower bound from the page (exact on the last page).
 * - `countEvery`: `count: true` (or a page past the end): every match counted, O(matches).
 */
import type { SQLInputValue } from 'node:sqlite';
import { DEFAULT_RUN_KINDS, RUN_KINDS } from '../../core/records/events.ts';
import type { RunEvent, RunKind, RunMode, RunStatus, Tier } from '../../core/records/events.ts';
import { deriveRun } from '../../core/records/records.ts';
import type { RunRecord } from '../../core/records/records.ts';
import type { RunSortKey } from '../../core/records/sort.ts';
import { foldSummary } from '../../core/records/summary.ts';
import type { RunPage, RunSummary } from '../../core/records/summary.ts';
import { interruptedReason, pidAlive } from './connection.ts';
import { liveStatus, toSummary } from './run-statements.ts';
import type { RunRow, RunStatements } from './run-statements.ts';
import type { StatementCache } from './statements.ts';

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

/** The summary field each sort column shows (what a held run is listed with: see RunQueries.mergedRows). */
const SORT_FIELDS: Record<Exclude<RunSortKey, 'created'>, keyof RunSummary> = {
  status: 'status',
  task: 'task',
  sandbox: 'sandbox',
  mode: 'mode',
  model: 'model',
  tier: 'tier',
  attempts: 'attempts',
  tokens: 'tokens',
  duration: 'durationMs',
};

/** The list's WHERE terms (filterTerms) that its strategies take. */
interface ListTerms {
  where: string[];
  args: SQLInputValue[];
  /** How many terms and arguments come before the text term (see filterTerms). */
  plain: { where: number; args: number };
  text: string | undefined;
  match: string | undefined;
  ftsText: string | undefined;
}

/** SQLite's order of two values of one column: NULL first, numbers by value, text by its bytes (BINARY). */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
}

/** Two runs in a column sort's order (orderBy: the column, the start time, the id, one direction). */
function compareSortKeys(
  a: { v: unknown; c: number; id: string },
  b: { v: unknown; c: number; id: string },
  asc: boolean,
): number {
  const d = compareValues(a.v, b.v) || a.c - b.c || compareValues(a.id, b.id);
  return asc ? d : -d;
}

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

/** A LIKE pattern (with `ESCAPE '\'`) matching text that contains `text` literally. */
export const likeContaining = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** What the queries work on: the fixed statements, the cache of the list's, and a run's events. */
export interface QueryParts {
  stmts: RunStatements;
  dynamic: StatementCache;
  /** A run's events, held ones included (the event log's). */
  events: (runId: string) => RunEvent[];
  /**
   * The case runs' suite tags this process holds in memory, not yet written (a full disk: the event
   * log's): the runs of a suite run, and the suite run of a run. The list and a run's summary include them.
   */
  heldTags?: { runsOf: (suiteRun: string) => string[]; suiteRunOf: (runId: string) => string | undefined };
  /**
   * The runs whose events this process holds in memory, not yet written (a full disk, files that take
   * no writes, a copy going on over the store: the event log's), with those events: the list and a
   * run's summary fold them in, as a run's record does.
   */
  heldEvents?: { runs: () => string[]; of: (runId: string) => readonly RunEvent[] };
  textWindow?: number;
  fewMatches?: number;
}

/** Reading runs; the run store is these queries with its event log (run-store.ts). */
/** A run whose events this process holds: its row's summary and the one with those events folded in. */
interface HeldFold {
  id: string;
  kind: RunKind;
  row: RunSummary;
  now: RunSummary;
}

export class RunQueries {
  private readonly stmts: RunStatements;
  /** The run list's statements (their WHERE and ORDER BY depend on the filter), by SQL text. */
  private readonly dynamic: StatementCache;
  private readonly readEvents: (runId: string) => RunEvent[];
  /** Keyset anchors of deep pages, per list query (see pageAt). */
  private readonly anchors = new Map<string, { version: string; at: Map<number, RunRow> }>();
  private readonly textWindow: number;
  private readonly fewMatches: number;
  private readonly heldTags: QueryParts['heldTags'];
  private readonly heldEvents: QueryParts['heldEvents'];

  constructor(parts: QueryParts) {
    this.stmts = parts.stmts;
    this.dynamic = parts.dynamic;
    this.readEvents = parts.events;
    this.heldTags = parts.heldTags;
    this.heldEvents = parts.heldEvents;
    this.textWindow = parts.textWindow ?? TEXT_WINDOW;
    this.fewMatches = parts.fewMatches ?? FEW_MATCHES;
  }

  summary(runId: string): RunSummary | undefined {
    const row = this.stmts.getRun.get(runId);
    return row ? this.withHeld(toSummary(liveStatus(row))) : undefined;
  }

  /**
   * A run's summary with what this process holds of it in memory, not yet written: its suite tag (see
   * QueryParts.heldTags) and its events, folded into the stored summary by the same fold that writes
   * the row (core/records/summary.ts). Before, a run whose end was held (a full disk) was listed with
   * its stored status (`running`) until the end was written; only its record (`runs.get`) had it.
   */
  private withHeld(s: RunSummary): RunSummary {
    const tagged = this.withHeldTag(s);
    const held = this.heldEvents?.of(s.id);
    if (!held?.length) return tagged;
    let model: { model: string } | undefined | null = null;
    const started = () => {
      if (model === null) {
        const m = this.stmts.startedModel.get(s.id)?.model;
        model = typeof m === 'string' ? { model: m } : undefined;
      }
      return model;
    };
    return held.reduce((sum, e) => foldSummary(sum, e, started), tagged);
  }

  /**
   * The runs whose held events (see withHeld) change their status: each with its kind, the status its
   * row stores (what a status filter and the trigger-kept counts see) and the one its held events give.
   * Few: the runs this process has in flight while the store takes no writes.
   */
  private heldStatusMoves(
    folds: readonly HeldFold[],
  ): { id: string; kind: RunKind; from: RunStatus; to: RunStatus }[] {
    return folds.flatMap(({ id, kind, row, now }) =>
      now.status === row.status ? [] : [{ id, kind, from: row.status, to: now.status }],
    );
  }

  /**
   * The runs whose events this process holds (see withHeld): what their rows store and their summary
   * with those events folded in. Few: the runs this process has in flight while the store takes no
   * writes.
   */
  private heldFolds(): HeldFold[] {
    const ids = this.heldEvents?.runs() ?? [];
    if (ids.length === 0) return [];
    return ids.flatMap((id) => {
      const row = this.stmts.getRun.get(id);
      if (!row) return [];
      return [{ id, kind: row.kind, row: toSummary(row), now: this.withHeld(toSummary(row)) }];
    });
  }

  /** The trigger-kept counts with the held status of each run in `moves` (see heldStatusMoves). */
  private countsWithHeld(
    counts: { kind: RunKind; status: RunStatus; n: number }[],
    moves: readonly { kind: RunKind; from: RunStatus; to: RunStatus }[],
  ): { kind: RunKind; status: RunStatus; n: number }[] {
    if (moves.length === 0) return counts;
    const out = counts.map((c) => ({ ...c }));
    const at = (kind: RunKind, status: RunStatus) => {
      let c = out.find((x) => x.kind === kind && x.status === status);
      if (!c) out.push((c = { kind, status, n: 0 }));
      return c;
    };
    for (const m of moves) {
      at(m.kind, m.from).n--;
      at(m.kind, m.to).n++;
    }
    return out;
  }

  /** A run's summary with its suite tag that this process holds in memory (see QueryParts.heldTags). */
  private withHeldTag(s: RunSummary): RunSummary {
    const held = s.suiteRun === null ? this.heldTags?.suiteRunOf(s.id) : undefined;
    return held === undefined ? s : { ...s, suiteRun: held };
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
    return this.getWithEvents(runId)?.record;
  }

  /** One run whole and the events it is derived from, read once (a replay needs both). */
  getWithEvents(runId: string): { record: RunRecord; events: RunEvent[] } | undefined {
    const row = this.stmts.getRun.get(runId);
    if (!row) return undefined;
    const events = this.readEvents(runId);
    const record = deriveRun(events, row.status === 'running' && pidAlive(row.owner_pid));
    // An interrupted run has no run_finished event: the reason is the store's (its process died).
    if (record.status === 'interrupted' && record.error === undefined)
      record.error = liveStatus(row).error ?? interruptedReason(row.owner_pid, row.updated_at);
    return { record, events };
  }

  /**
   * A page of runs, O(page) by default: the page is fetched with one row more (is there a next page?)
   * and the total is exact only when that is cheap (no filter but status and kind, or the last page);
   * `count: true` counts every match. The strategies are named at the top of this file.
   */
  list(filter: RunFilter = {}): RunPage {
    const folds = this.heldFolds();
    const moves = this.heldStatusMoves(folds);
    const counts = this.countsWithHeld(this.stmts.runCounts.all(), moves);
    const { where, args, statuses, kinds, text, match, ftsText, plain } = this.filterTerms(
      filter,
      counts,
      moves,
      folds,
    );
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const limit = Math.min(Math.max(filter.limit ?? 100, 1), 10_000);
    const offset = Math.max(filter.offset ?? 0, 0);
    // One row more than the page: whether any run matches after it, without counting them all.
    const terms = { where, args, plain, text, match, ftsText };
    const moved = this.heldSortMoves(filter, folds);
    const rows = moved.length
      ? this.mergedRows(terms, filter, moved, offset, limit + 1)
      : this.rowsAt(terms, filter, offset, limit + 1);
    const more = rows.length > limit;
    const runs = rows.slice(0, limit).map((r) => this.withHeld(toSummary(liveStatus(r))));
    const page = (t: { total: number; totalExact: boolean }): RunPage => ({ ...t, runs });
    if (where.length === (statuses.length ? 1 : 0) + (kinds.term ? 1 : 0) && !text && !filter.count)
      return page(this.totalFromCounts(counts, statuses, kinds.kinds));
    const bound = filter.count ? undefined : this.totalFromPage(offset, runs.length, more);
    if (bound) return page(bound);
    // With text as the only filter the full-text index counts alone (a kind term, when there is one,
    // is in `where`: then the runs table counts).
    const ftsOnly = text !== undefined && text !== '' && where.length === 1 && [...text].length >= 3;
    return page({ total: this.countEvery(clause, args, ftsOnly), totalExact: true });
  }

  /** The rows of the list at [offset, offset + count) in its order, by the first strategy that applies. */
  private rowsAt(t: ListTerms, filter: RunFilter, offset: number, count: number): RunRow[] {
    const { where, args, plain, text, match, ftsText } = t;
    return (
      (ftsText &&
        this.streamText(where.slice(0, -1), args.slice(0, -1), ftsText, filter.dir, offset, count)) ||
      (text &&
        filter.suiteRun === undefined &&
        this.windowText(
          where.slice(0, plain.where),
          args.slice(0, plain.args),
          text,
          match,
          filter,
          offset,
          count,
        )) ||
      (text
        ? this.collectText(where.length ? `WHERE ${where.join(' AND ')}` : '', args, filter, offset, count)
        : this.pageAt(where, args, filter, offset, count))
    );
  }

  /**
   * The held runs (see withHeld) listed at another place in a sort than their stored rows': the sort's
   * column (status, model, tier, attempts, tokens, duration) is one their held events change. Few: the
   * runs this process has in flight while the store takes no writes. None in the default order (the
   * start time is never changed).
   */
  private heldSortMoves(filter: RunFilter, folds: readonly HeldFold[]): HeldFold[] {
    const sort = filter.sort;
    if (!sort || sort === 'created' || folds.length === 0) return [];
    const field = SORT_FIELDS[sort];
    return folds.filter((f) => f.now[field] !== f.row[field]);
  }

  /**
   * The rows at [offset, offset + count) of a list sorted by a column that held events change for the
   * runs `moved` (see heldSortMoves): each such run is placed by the value it is listed with, not by its
   * stored row's. The other runs come from the list's strategies with the moved ones left out; each
   * moved run that matches the filter is counted into that order (how many of the others come before
   * it, counted up to the end of the page: O(offset + page) each), and the page is the two merged. So a
   * page and the next one, `--limit` and the totals (from the merged page, or `countEvery` over every
   * match) agree with the order shown. Before, a run whose end was held (a full disk, a copy going on)
   * was listed with its held status and tokens at the place of its stored row (`running`, 0 tokens).
   */
  private mergedRows(
    t: ListTerms,
    filter: RunFilter,
    moved: readonly HeldFold[],
    offset: number,
    count: number,
  ): RunRow[] {
    const sort = filter.sort as Exclude<RunSortKey, 'created'>;
    const field = SORT_FIELDS[sort];
    const ids = moved.map((m) => m.id);
    const marks = ids.map(() => '?').join(', ');
    const shownOf = new Map(moved.map((m) => [m.id, m.now[field]]));
    // The moved runs that match the filter (by what they are listed with: see filterTerms).
    const matching = this.dynamic
      .get<SQLInputValue[], RunRow>(
        `SELECT r.* FROM runs r WHERE ${[...t.where, `r.id IN (${marks})`].join(' AND ')}`,
      )
      .all(...t.args, ...ids);
    const asc = filter.dir !== 'desc';
    const key = (r: RunRow) => ({ v: shownOf.get(r.id) ?? null, c: r.created_at, id: r.id });
    matching.sort((a, b) => compareSortKeys(key(a), key(b), asc));
    // The others: the list's terms and "not moved", before the text term (streamText and windowText
    // take the terms before it).
    const at = t.plain.where;
    const rest: ListTerms = {
      ...t,
      where: [...t.where.slice(0, at), `r.id NOT IN (${marks})`, ...t.where.slice(at)],
      args: [...t.args.slice(0, t.plain.args), ...ids, ...t.args.slice(t.plain.args)],
      plain: { where: at + 1, args: t.plain.args + ids.length },
    };
    const col = SORT_COLUMNS[sort];
    const end = offset + count;
    // Each moved run's place in the merged order: the others before it (up to the page's end) and the
    // moved runs before it.
    const places = matching.map((r, i) => {
      const { v, c, id } = key(r);
      const before =
        v === null
          ? asc
            ? { sql: `(r.${col} IS NULL AND (r.created_at, r.id) < (?, ?))`, args: [c, id] }
            : { sql: `(r.${col} IS NOT NULL OR (r.created_at, r.id) > (?, ?))`, args: [c, id] }
          : asc
            ? {
                sql: `(r.${col} IS NULL OR r.${col} < ? OR (r.${col} = ? AND (r.created_at, r.id) < (?, ?)))`,
                args: [v, v, c, id],
              }
            : {
                sql: `(r.${col} > ? OR (r.${col} = ? AND (r.created_at, r.id) > (?, ?)))`,
                args: [v, v, c, id],
              };
      const n =
        this.dynamic
          .get<SQLInputValue[], { n: number }>(
            `SELECT COUNT(*) AS n FROM (SELECT 1 FROM runs r WHERE ${[...rest.where, before.sql].join(' AND ')} LIMIT ?)`,
          )
          .get(...rest.args, ...(before.args as SQLInputValue[]), end)?.n ?? 0;
      return n + i;
    });
    const onPage = new Map<number, RunRow>();
    places.forEach((p, i) => {
      if (p >= offset && p < end) onPage.set(p, matching[i] as RunRow);
    });
    const skipped = places.filter((p) => p < offset).length;
    const others = this.rowsAt(rest, filter, offset - skipped, count - onPage.size);
    const rows: RunRow[] = [];
    let next = 0;
    for (let p = offset; p < end; p++) {
      const m = onPage.get(p);
      if (m) rows.push(m);
      else if (next < others.length) rows.push(others[next++] as RunRow);
    }
    return rows;
  }

  /**
   * The list's WHERE terms and their arguments, in this order: status, kind, the column filters, the
   * start-time range, then the text term last (streamText drops it; `plain` counts the terms before it,
   * which windowText keeps).
   */
  private filterTerms(
    filter: RunFilter,
    counts: { kind: RunKind; n: number }[],
    moves: readonly { id: string; from: RunStatus; to: RunStatus }[] = [],
    folds: readonly HeldFold[] = [],
  ) {
    const where: string[] = [];
    const args: SQLInputValue[] = [];
    const statuses =
      filter.status === undefined ? [] : Array.isArray(filter.status) ? filter.status : [filter.status];
    if (statuses.length) {
      // A run whose held events change its status (see heldStatusMoves) is filtered by that status: in
      // when it is asked for and its row's is not, out in the other case (one term: see totalFromCounts).
      const keep = new Set<string>(statuses);
      const into = moves.filter((m) => keep.has(m.to) && !keep.has(m.from)).map((m) => m.id);
      const out = moves.filter((m) => !keep.has(m.to) && keep.has(m.from)).map((m) => m.id);
      const marks = (ids: string[]) => ids.map(() => '?').join(', ');
      let term = `r.status IN (${marks(statuses)})`;
      if (into.length) term = `(${term} OR r.id IN (${marks(into)}))`;
      if (out.length) term = `(${term} AND r.id NOT IN (${marks(out)}))`;
      where.push(term);
      args.push(...statuses, ...into, ...out);
    }
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
    ] as const) {
      if (v === undefined) continue;
      // As the status (above): a run whose held events give it another model or tier is filtered by
      // the one it is listed with. Before, a run listed with model m was not found by `model: m`.
      const into = folds.filter((f) => f.now[col] === v && f.row[col] !== v).map((f) => f.id);
      const out = folds.filter((f) => f.now[col] !== v && f.row[col] === v).map((f) => f.id);
      let term = `r.${col} = ?`;
      if (into.length) term = `(${term} OR r.id IN (${into.map(() => '?').join(', ')}))`;
      if (out.length) term = `(${term} AND r.id NOT IN (${out.map(() => '?').join(', ')}))`;
      where.push(term);
      args.push(v, ...into, ...out);
    }
    if (filter.suiteRun !== undefined) {
      // With the case runs whose tag this process still holds in memory (a full disk): before, a case run
      // was missing from its suite run's runs until its tag was written.
      const held = this.heldTags?.runsOf(filter.suiteRun) ?? [];
      where.push(
        held.length ? `(r.suite_run = ? OR r.id IN (${held.map(() => '?').join(', ')}))` : 'r.suite_run = ?',
      );
      args.push(filter.suiteRun, ...held);
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
    return { where, args, statuses, kinds, text, match, ftsText, plain };
  }

  /**
   * Text search, every match collected and sorted (SQLite's sort of the matches, then the OFFSET): the
   * fallback when neither streamText nor windowText applies (few matches, a page deeper than the
   * window, a suite run's runs, text shorter than a trigram or with non-ASCII letters).
   */
  private collectText(
    clause: string,
    args: SQLInputValue[],
    filter: RunFilter,
    offset: number,
    count: number,
  ): RunRow[] {
    return this.dynamic
      .get<SQLInputValue[], RunRow>(
        `SELECT r.* FROM runs r ${clause} ORDER BY ${orderBy(filter.sort, filter.dir)} LIMIT ? OFFSET ?`,
      )
      .all(...args, count, offset);
  }

  /**
   * The exact total of a list filtered by nothing but status and kind, from the trigger-kept counts
   * (`run_counts`, one row per kind and status): O(kinds x statuses), so the unfiltered list and its
   * status chips always show an exact total, however many runs there are.
   */
  private totalFromCounts(
    counts: { kind: RunKind; status: RunStatus; n: number }[],
    statuses: readonly RunStatus[],
    kinds: readonly RunKind[],
  ): { total: number; totalExact: true } {
    const keep = new Set<string>(statuses);
    const kept = new Set<string>(kinds);
    return {
      total: counts.reduce(
        (sum, c) => sum + ((keep.size === 0 || keep.has(c.status)) && kept.has(c.kind) ? c.n : 0),
        0,
      ),
      totalExact: true,
    };
  }

  /**
   * Any other filter, by default: the page itself tells the total without counting every match. More
   * after the page (its one extra row): a lower bound. The last page (or the only one): exact.
   * Undefined for a page past the end (runs deleted since the list was shown): countEvery answers.
   */
  private totalFromPage(
    offset: number,
    rows: number,
    more: boolean,
  ): { total: number; totalExact: boolean } | undefined {
    if (more) return { total: offset + rows, totalExact: false };
    if (rows > 0 || offset === 0) return { total: offset + rows, totalExact: true };
    return undefined;
  }

  /**
   * Every match counted, O(matches): asked for (`count: true`, the list's "count" button) or a page past
   * the end. With text as the only filter (`ftsOnly`) the full-text index counts alone (each of its rows
   * is one run; they are deleted together); otherwise the runs table counts with the list's clause.
   */
  private countEvery(clause: string, args: SQLInputValue[], ftsOnly: boolean): number {
    return ftsOnly
      ? (this.stmts.countFts.get(args[0] as string)?.n ?? 0)
      : (this.dynamic
          .get<SQLInputValue[], { n: number }>(`SELECT COUNT(*) AS n FROM runs r ${clause}`)
          .get(...args)?.n ?? 0);
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
}

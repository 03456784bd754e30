/**
 * A row of the run list and its sortable column headers.
 */
import type { RunSummaryView } from '../../../../src-main/contract/api.ts';
import { formatDateTime, formatMs, StatusBadge } from '../../components/Badges.tsx';
import type { RunSortKey } from '../../../../src-main/core/records/sort.ts';
import { useStore } from '../../store/index.ts';

/** Columns: sort key, header, cell class. */
export const COLUMNS: [RunSortKey, string, string][] = [
  ['status', 'status', 'c-status'],
  ['task', 'task', 'c-task'],
  ['sandbox', 'sandbox', 'c-sandbox'],
  ['mode', 'mode', 'c-mode'],
  ['model', 'model', 'c-model'],
  ['tier', 'tier', 'c-tier'],
  ['attempts', 'attempts', 'c-num'],
  ['tokens', 'tokens', 'c-num'],
  ['duration', 'duration', 'c-num'],
  ['created', 'started', 'c-time'],
];

/**
 * A column header that sorts the list on the server (the list pages through SQLite; sorting only the
 * rows already fetched would be wrong). First click: descending for numbers and dates, ascending for
 * text; the next click flips it.
 */
export function SortHeader({
  sortKey,
  label,
  className,
}: {
  sortKey: RunSortKey;
  label: string;
  className: string;
}) {
  const sort = useStore((s) => s.filters.sort ?? 'created');
  const dir = useStore(
    (s) => s.filters.dir ?? (s.filters.sort && s.filters.sort !== 'created' ? 'asc' : 'desc'),
  );
  const setFilters = useStore((s) => s.setFilters);
  const active = sort === sortKey;
  const firstDir = ['attempts', 'tokens', 'duration', 'created'].includes(sortKey) ? 'desc' : 'asc';
  return (
    <span
      role="columnheader"
      className={className}
      aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button
        className="link sort-button"
        data-sort={sortKey}
        title={`Sort by ${label}`}
        onClick={() =>
          setFilters({ sort: sortKey, dir: active ? (dir === 'asc' ? 'desc' : 'asc') : firstDir })
        }
      >
        {label}
        {active ? (dir === 'asc' ? ' ▲' : ' ▼') : ''}
      </button>
    </span>
  );
}

const TEMPLATE_TEST_PREFIX = 'template test ';

/**
 * What a row shows of a run: a template test's task without the "template test " its badge already
 * says, served by its template (not by an edited script) and with no LLM.
 */
export function rowCells(run: RunSummaryView): { task: string; tier: string; model: string } {
  if (run.kind === 'template_test')
    return {
      task: run.task.startsWith(TEMPLATE_TEST_PREFIX)
        ? run.task.slice(TEMPLATE_TEST_PREFIX.length)
        : run.task,
      tier: 'template',
      model: 'no LLM',
    };
  return { task: run.task, tier: run.tier ?? '—', model: run.model ?? '—' };
}

export function Row({
  run,
  index,
  onOpen,
}: {
  run: RunSummaryView | undefined;
  index: number;
  onOpen: (id: string) => void;
}) {
  if (!run)
    return (
      <div className="run-row placeholder" role="row" aria-rowindex={index + 2}>
        <span className="muted">loading…</span>
      </div>
    );
  const cells = rowCells(run);
  return (
    <div
      className={`run-row status-row-${run.status}`}
      role="row"
      aria-rowindex={index + 2}
      tabIndex={0}
      data-run-id={run.id}
      onClick={() => onOpen(run.id)}
      onKeyDown={(e) => e.key === 'Enter' && onOpen(run.id)}
    >
      <span role="cell" className="c-status">
        <StatusBadge status={run.status} />
      </span>
      <span role="cell" className="c-task" title={run.error ? `${run.task}\n\n${run.error}` : run.task}>
        {run.originRun && (
          <button
            className="link origin-link"
            title={`edited, replayed, continued or tested from run ${run.originRun.slice(0, 8)}: open it`}
            data-origin-run={run.originRun}
            onClick={(e) => {
              e.stopPropagation();
              onOpen(run.originRun as string);
            }}
          >
            ↳
          </button>
        )}{' '}
        {run.kind === 'template_test' && (
          <span className="badge kind-badge" data-kind={run.kind} title="a template run against its examples">
            template test
          </span>
        )}{' '}
        {cells.task}
        {run.error && <span className="muted small"> — {run.error}</span>}
      </span>
      {/* Its kit on a line of its own when both do not fit the column (they showed as "ecommerc…"), the
          whole of it as the title. */}
      <span role="cell" className="c-sandbox" title={run.kit ? `${run.sandbox}/${run.kit}` : run.sandbox}>
        {run.sandbox}
        {run.kit && (
          <>
            <wbr />/{run.kit}
          </>
        )}
      </span>
      <span role="cell" className="c-mode">
        {run.mode}
      </span>
      <span role="cell" className="c-model" title={cells.model}>
        {cells.model}
      </span>
      <span role="cell" className="c-tier">
        {cells.tier}
      </span>
      <span role="cell" className="c-num">
        {run.attempts}
      </span>
      <span role="cell" className="c-num">
        {run.tokens}
      </span>
      <span role="cell" className="c-num">
        {formatMs(run.durationMs)}
      </span>
      <span role="cell" className="c-time" title={formatDateTime(run.createdAt, { seconds: true })}>
        {formatDateTime(run.createdAt)}
      </span>
    </div>
  );
}

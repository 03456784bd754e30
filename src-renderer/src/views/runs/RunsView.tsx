/**
 * All runs: a virtualized list (rows rendered stay bounded; pages are fetched as they scroll into
 * view), filters and free-text search over task, script and error.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import type { RunSummaryView } from '../../../../src-main/contract/api.ts';
import { formatDateTime, formatMs, StatusBadge } from '../../components/Badges.tsx';
import type { RunSortKey } from '../../../../src-main/core/records/sort.ts';
import { PAGE_SIZE } from '../../store/runs.ts';
import { useStore } from '../../store/index.ts';

const STATUSES = ['running', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const;
const ROW_HEIGHT = 34;

function Filters() {
  const filters = useStore((s) => s.filters);
  const setFilters = useStore((s) => s.setFilters);
  const clearFilters = useStore((s) => s.clearFilters);
  const sandboxes = useStore((s) => s.sandboxes);
  const [text, setText] = useState(filters.text ?? '');
  useEffect(() => setText(filters.text ?? ''), [filters.text]);
  useEffect(() => {
    if ((filters.text ?? '') === text) return;
    const t = setTimeout(() => setFilters({ text }), 200);
    return () => clearTimeout(t);
  }, [text, filters.text, setFilters]);
  const statuses = filters.status ?? [];
  const toggle = (s: (typeof STATUSES)[number]) =>
    setFilters({ status: statuses.includes(s) ? statuses.filter((x) => x !== s) : [...statuses, s] });
  const onlyFailed = statuses.length === 2 && statuses.includes('failed') && statuses.includes('interrupted');
  return (
    <div className="filters" role="search">
      <input
        type="search"
        data-search
        aria-label="search runs"
        placeholder="Search task, script, error…  (/)"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <button
        className={onlyFailed ? 'chip active' : 'chip'}
        onClick={() => setFilters({ status: onlyFailed ? [] : ['failed', 'interrupted'] })}
        title="Failed and interrupted runs"
      >
        Failed only
      </button>
      <span className="chips" aria-label="status filter">
        {STATUSES.map((s) => (
          <label key={s} className={`chip ${statuses.includes(s) ? 'active' : ''}`}>
            <input type="checkbox" checked={statuses.includes(s)} onChange={() => toggle(s)} /> {s}
          </label>
        ))}
      </span>
      <select
        aria-label="sandbox filter"
        value={filters.sandbox ?? ''}
        onChange={(e) => setFilters({ sandbox: e.target.value || undefined })}
      >
        <option value="">all sandboxes</option>
        {sandboxes.map((s) => (
          <option key={s.name}>{s.name}</option>
        ))}
      </select>
      <select
        aria-label="mode filter"
        value={filters.mode ?? ''}
        onChange={(e) =>
          setFilters({ mode: (e.target.value || undefined) as 'plan' | 'interactive' | undefined })
        }
      >
        <option value="">all modes</option>
        <option value="plan">plan</option>
        <option value="interactive">interactive</option>
      </select>
      <select
        aria-label="tier filter"
        value={filters.tier ?? ''}
        onChange={(e) =>
          setFilters({ tier: (e.target.value || undefined) as 'template' | 'rule' | 'llm' | undefined })
        }
      >
        <option value="">all tiers</option>
        {['template', 'rule', 'llm', 'replay', 'edit'].map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <input
        aria-label="model filter"
        placeholder="model"
        defaultValue={filters.model ?? ''}
        onBlur={(e) => setFilters({ model: e.target.value || undefined })}
        onKeyDown={(e) =>
          e.key === 'Enter' && setFilters({ model: (e.target as HTMLInputElement).value || undefined })
        }
      />
      <input
        key={filters.suiteRun ?? ''}
        aria-label="suite run filter"
        placeholder="suite run"
        defaultValue={filters.suiteRun ?? ''}
        onBlur={(e) => setFilters({ suiteRun: e.target.value.trim() || undefined })}
        onKeyDown={(e) =>
          e.key === 'Enter' &&
          setFilters({ suiteRun: (e.target as HTMLInputElement).value.trim() || undefined })
        }
      />
      <button onClick={clearFilters}>Clear</button>
    </div>
  );
}

/** Columns: sort key, header, cell class. */
const COLUMNS: [RunSortKey, string, string][] = [
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
function SortHeader({
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

function Row({
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
        {run.task}
        {run.error && <span className="muted small"> — {run.error}</span>}
      </span>
      <span role="cell" className="c-sandbox">
        {run.sandbox}
        {run.kit ? `/${run.kit}` : ''}
      </span>
      <span role="cell" className="c-mode">
        {run.mode}
      </span>
      <span role="cell" className="c-model">
        {run.model ?? '—'}
      </span>
      <span role="cell" className="c-tier">
        {run.tier ?? '—'}
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
      <span role="cell" className="c-time" title={new Date(run.createdAt).toString()}>
        {formatDateTime(run.createdAt)}
      </span>
    </div>
  );
}

export function RunsView() {
  const total = useStore((s) => s.total);
  const totalExact = useStore((s) => s.totalExact);
  const counting = useStore((s) => s.counting);
  const countRuns = useStore((s) => s.countRuns);
  const pages = useStore((s) => s.pages);
  const listLoading = useStore((s) => s.listLoading);
  const listError = useStore((s) => s.listError);
  const ensurePage = useStore((s) => s.ensurePage);
  const reloadRuns = useStore((s) => s.reloadRuns);
  const navigate = useStore((s) => s.navigate);
  const filters = useStore((s) => s.filters);
  const importRun = useStore((s) => s.importRun);
  const parentRef = useRef<HTMLDivElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  useEffect(() => void reloadRuns(), [reloadRuns]);

  // Not counted yet (a filtered list counts up to its pages): one page of placeholder rows after the
  // known runs, fetched when it scrolls into view, grows the list.
  const rowCount = totalExact ? total : total + PAGE_SIZE;
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    for (let p = Math.floor(first / PAGE_SIZE); p <= Math.floor(last / PAGE_SIZE); p++) void ensurePage(p);
  }, [first, last, ensurePage, pages]);

  const open = (id: string) => navigate({ view: 'run', id });
  const filtered = Object.keys(filters).some((k) => k !== 'sort' && k !== 'dir');
  return (
    <section aria-label="runs" className="runs-view">
      <div className="view-head">
        <h1>Runs</h1>
        <span className="muted" data-testid="runs-total">
          {total}
          {totalExact ? '' : '+'} run{total === 1 && totalExact ? '' : 's'}
          {filtered ? ' matching' : ''}
        </span>
        {!totalExact && (
          <button
            className="link"
            data-testid="runs-count"
            disabled={counting}
            title="Count every matching run (the list counts as far as it has fetched)"
            onClick={() => void countRuns()}
          >
            {counting ? 'counting…' : 'count'}
          </button>
        )}
        <span className="spacer" />
        <button onClick={() => navigate({ view: 'new' })}>New run</button>
        <button onClick={() => fileRef.current?.click()}>Import…</button>
        <input
          ref={fileRef}
          type="file"
          accept="application/json,.json"
          hidden
          aria-label="import run file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void importRun(f);
            e.target.value = '';
          }}
        />
      </div>
      <Filters />
      {listError && (
        <div role="alert" className="error">
          Could not list runs: {listError} <button onClick={() => void reloadRuns()}>Retry</button>
        </div>
      )}
      <div
        className="run-table"
        role="table"
        aria-label="run list"
        aria-rowcount={totalExact ? total + 1 : -1}
      >
        <div className="run-row head" role="row" aria-rowindex={1}>
          {COLUMNS.map(([key, label, cls]) => (
            <SortHeader key={key} sortKey={key} label={label} className={cls} />
          ))}
        </div>
        {!listLoading && total === 0 && !listError && (
          <div className="empty">
            {filtered ? (
              <p>No run matches these filters.</p>
            ) : (
              <p>
                No runs yet. <button onClick={() => navigate({ view: 'new' })}>Start one</button>
              </p>
            )}
          </div>
        )}
        {listLoading && total === 0 && <p className="muted pad">Loading runs…</p>}
        <div ref={parentRef} className="run-scroll" data-testid="run-scroll">
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((vi) => {
              const run = pages[Math.floor(vi.index / PAGE_SIZE)]?.[vi.index % PAGE_SIZE];
              return (
                <div
                  key={vi.key}
                  style={{
                    position: 'absolute',
                    top: 0,
                    left: 0,
                    right: 0,
                    height: vi.size,
                    transform: `translateY(${vi.start}px)`,
                  }}
                >
                  <Row run={run} index={vi.index} onOpen={open} />
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </section>
  );
}

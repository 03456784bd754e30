/**
 * All runs: a virtualized list (rows rendered stay bounded; pages are fetched as they scroll into
 * view), filters and free-text search over task, script and error.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { PAGE_SIZE } from '../../store/runs.ts';
import { useStore } from '../../store/index.ts';
import { Filters } from './Filters.tsx';
import { COLUMNS, Row, SortHeader } from './RunRow.tsx';

const ROW_HEIGHT = 34;

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

/**
 * All runs: a virtualized list (rows rendered stay bounded; pages are fetched as they scroll into
 * view), filters and free-text search over task, script and error. State and actions: useRuns.ts (on
 * the pure runs-list.ts and store/runs.ts); parts: RunsParts.tsx, RunRow.tsx, Filters.tsx.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { Filters } from './Filters.tsx';
import { COLUMNS, Row, SortHeader } from './RunRow.tsx';
import { RunsError, RunsHead, RunsNote } from './RunsParts.tsx';
import { useRuns } from './useRuns.ts';

const ROW_HEIGHT = 34;

export function RunsView() {
  const v = useRuns();
  const parentRef = useRef<HTMLDivElement>(null);
  const rowsRef = useRef<HTMLDivElement>(null);
  // The rows start below the header (and a note) in the scroll box; the header covers the box's top.
  const scrollMargin = rowsRef.current?.offsetTop ?? ROW_HEIGHT;
  const virtualizer = useVirtualizer({
    count: v.rows,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    scrollMargin,
    scrollPaddingStart: ROW_HEIGHT,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const { ensureVisible, pages } = v;
  // ensureVisible is rebuilt each render (it reads the store); new pages (a reload) ask again.
  useEffect(() => ensureVisible(first, last), [first, last, pages]);

  return (
    <section aria-label="runs" className="runs-view">
      <RunsHead
        label={v.label}
        totalExact={v.totalExact}
        counting={v.counting}
        onCount={v.count}
        onNew={v.newRun}
        onImport={v.importFile}
      />
      <Filters />
      <RunsError error={v.listError} onRetry={v.reload} />
      <div
        className="run-table"
        role="table"
        aria-label="run list"
        aria-rowcount={v.totalExact ? v.total + 1 : -1}
      >
        {/* The header is in the rows' scroll box (sticky at its top): it has their width whether or not a
            vertical scrollbar takes some of it, and scrolls sideways with them (a 1000 px window). Outside
            it, the header kept the scrollbar's width the rows lost and its columns trailed theirs. */}
        <div ref={parentRef} className="run-scroll" data-testid="run-scroll">
          <div className="run-row head" role="row" aria-rowindex={1}>
            {COLUMNS.map(([key, label, cls]) => (
              <SortHeader key={key} sortKey={key} label={label} className={cls} />
            ))}
          </div>
          <RunsNote note={v.note} onNew={v.newRun} />
          <div ref={rowsRef} style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((vi) => (
              <div
                key={vi.key}
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  height: vi.size,
                  transform: `translateY(${vi.start - scrollMargin}px)`,
                }}
              >
                <Row run={v.runAt(vi.index)} index={vi.index} onOpen={v.open} />
              </div>
            ))}
          </div>
        </div>
      </div>
    </section>
  );
}

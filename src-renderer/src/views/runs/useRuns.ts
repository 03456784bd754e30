/** The run list (runs-list.ts) bound to the store: filters, total, pages and the list's actions. */
import { PAGE_SIZE } from '../../store/runs.ts';
import { useStore } from '../../store/index.ts';
import { isFiltered, listNote, pagesInView, rowCount, runAt, totalLabel } from './runs-list.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';

export function useRuns() {
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

  useLoadOnMount(reloadRuns);

  const filtered = isFiltered(filters);
  return {
    total,
    totalExact,
    counting,
    listError,
    filtered,
    label: totalLabel(total, totalExact, filtered),
    note: listNote({ listLoading, total, listError, filtered }),
    rows: rowCount(total, totalExact, PAGE_SIZE),
    runAt: (index: number) => runAt(pages, index, PAGE_SIZE),
    /** Fetches the pages of the visible rows (each once; see store/runs.ts). */
    ensureVisible: (first: number, last: number) => {
      for (const p of pagesInView(first, last, PAGE_SIZE)) void ensurePage(p);
    },
    pages,
    count: () => void countRuns(),
    reload: () => void reloadRuns(),
    open: (id: string) => navigate({ view: 'run', id }),
    newRun: () => navigate({ view: 'new' }),
    importFile: (f: File) => void importRun(f),
  };
}

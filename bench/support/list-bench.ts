/**
 * The run list's server side over a big store (bench:ui, `run_list_1m`): one page of 100 for the filters
 * the Runs view sends, as `list()` answers it (O(page): the total is exact only when cheap) and, for
 * comparison, with the exact COUNT the list made on every page before issue 14 (`count: true`).
 */
import type { RunFilter, RunStore } from '../../src-main/infra/store/run-store.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.floor(s.length / 2)] ?? 0).toFixed(1));
};

const CASES: Record<string, RunFilter> = {
  all: {},
  // A jump to the middle (an OFFSET walk), and the page after a page fetched before (a list scrolled
  // page by page: from that page's keyset anchor).
  all_offset_half: { offset: -1 },
  all_offset_half_next: { offset: -2 },
  status_failed: { status: 'failed' },
  text: { text: 'inventory' },
  text_status: { text: 'inventory', status: ['failed', 'interrupted'] },
  text_sorted_tokens: { text: 'inventory', sort: 'tokens', dir: 'desc' },
  text_status_sorted_tokens: {
    text: 'inventory',
    status: ['failed', 'interrupted'],
    sort: 'tokens',
    dir: 'desc',
  },
  sandbox: { sandbox: 'support' },
  text_rare: { text: 'number 4242' },
  text_rare_sorted_tokens: { text: 'number 4242', sort: 'tokens', dir: 'desc' },
  text_short: { text: '42' },
};

export function measureListPages(store: RunStore, runs: number, repeats = 7) {
  const out: Record<
    string,
    { page_p50_ms: number; total: number; total_exact: boolean; with_exact_count_p50_ms: number }
  > = {};
  for (const [name, f0] of Object.entries(CASES)) {
    const half = Math.floor(runs / 2);
    const offset = f0.offset === -1 ? half : f0.offset === -2 ? half + 100 : 0;
    const f: RunFilter = { ...f0, limit: 100, offset };
    const time = (filter: RunFilter) => {
      if (f0.offset === -2) store.list({ ...filter, offset: half });
      const t: number[] = [];
      let r = store.list(filter); // warm
      for (let i = 0; i < repeats; i++) {
        const t0 = performance.now();
        r = store.list(filter);
        t.push(performance.now() - t0);
      }
      return { ms: median(t), r };
    };
    const page = time(f);
    const counted = time({ ...f, count: true });
    out[name] = {
      page_p50_ms: page.ms,
      total: page.r.total,
      total_exact: page.r.totalExact,
      with_exact_count_p50_ms: counted.ms,
    };
  }
  return out;
}

/**
 * The run list's filters as the tab's sessionStorage kept them (lib/session-draft.ts; store/runs.ts keeps
 * them there). Pure, so the node tests read it; it names the contract's request, not the store's slice.
 */
import type { Request } from '../../../src-main/contract/api.ts';

type RunFilters = Omit<Request<'runs.list'>, 'limit' | 'offset'>;

const TEXT_FILTERS = ['sandbox', 'mode', 'model', 'tier', 'text', 'suiteRun', 'sort', 'dir'] as const;
const LIST_FILTERS = ['status', 'kind'] as const;

/**
 * The filters as the tab's sessionStorage kept them (lib/session-draft.ts): a reload (F5, the page
 * restarted) showed the whole list again, the search and the chips gone. Only the known fields of their
 * types are taken back (the service checks their values, and a value it refuses says so in the list).
 */
export function restoreRunFilters(raw: unknown): RunFilters | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of TEXT_FILTERS) if (typeof r[k] === 'string' && r[k] !== '') out[k] = r[k];
  for (const k of LIST_FILTERS) {
    const v = r[k];
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) out[k] = v;
  }
  for (const k of ['from', 'to'] as const)
    if (typeof r[k] === 'number' && Number.isFinite(r[k])) out[k] = r[k];
  return out;
}

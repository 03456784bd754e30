/**
 * `runs list`'s filter and what it prints for a page of runs: shared by the verb (commands/run.ts) and its
 * answer before main (store-verbs.ts), which must list the same runs and print the same bytes.
 */
import type { RunPage } from '../core/records/summary.ts';
import type { RunKind, RunMode, RunStatus, Tier } from '../core/records/vocabulary.ts';
import { RUN_KINDS } from '../core/records/vocabulary.ts';
import type { RunSortKey } from '../core/records/sort.ts';
import { visible } from '../core/text/visible.ts';
import type { RunFilter } from '../infra/store/run-queries.ts';

/** The verb's filters and options (its dates already read as epoch ms). */
export interface RunsListFilters {
  status?: RunStatus;
  sandbox?: string;
  kind?: RunKind | 'all';
  mode?: RunMode;
  model?: string;
  tier?: Tier;
  search?: string;
  limit: number;
  sort?: RunSortKey;
  dir?: 'asc' | 'desc';
  count?: boolean;
}

/** The store's filter of `runs list` (`--kind all`: every kind, template and skill tests included). */
export function runsListFilter(o: RunsListFilters, from?: number, to?: number, suiteRun?: string): RunFilter {
  return {
    ...(o.status ? { status: o.status } : {}),
    ...(o.sandbox ? { sandbox: o.sandbox } : {}),
    ...(o.kind ? { kind: o.kind === 'all' ? [...RUN_KINDS] : o.kind } : {}),
    ...(o.mode ? { mode: o.mode } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.tier ? { tier: o.tier } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(o.search ? { text: o.search } : {}),
    ...(suiteRun ? { suiteRun } : {}),
    limit: o.limit,
    ...(o.sort ? { sort: o.sort } : {}),
    ...(o.dir ? { dir: o.dir } : {}),
    ...(o.count ? { count: true } : {}),
  };
}

/**
 * A page of runs, one line each, and the count. The tier padded to the longest (`template`): a `replay`
 * or `template` run's task no longer starts further right than an `llm` run's.
 */
export function runsListText(r: RunPage): string {
  let text = '';
  for (const s of r.runs)
    text += `${s.id}  ${new Date(s.createdAt).toISOString().slice(0, 19)}Z  ${s.status.padEnd(11)} ${s.sandbox.padEnd(10)} ${s.mode.padEnd(11)} ${String(s.attempts).padStart(2)} att ${String(s.tokens).padStart(6)} tok  ${(s.tier ?? '-').padEnd(8)}  ${s.kind === 'template_test' ? '[template test] ' : s.kind === 'skill_test' ? '[skill test] ' : ''}${visible(s.task.slice(0, 60).replace(/\n/g, ' '))}\n`;
  return (
    text +
    (r.totalExact
      ? `${r.runs.length} of ${r.total} run(s)\n`
      : `${r.runs.length} of ${r.total}+ run(s) (--count for the exact number)\n`)
  );
}

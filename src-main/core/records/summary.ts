/**
 * A run's summary row: what the run list shows. Defined once here, and computed from the run's events
 * only here (`startSummary`, `foldSummary`, `summarize`): the run store writes each event's fold into
 * its `runs` row as the event is appended (and so on import, which appends), the contract returns the
 * rows from `runs.list`, and the workbench and CLI read them.
 */
import { modelAfterTier, NO_MODEL_TIERS } from './vocabulary.ts';
import type { EventOf, RunEvent, RunKind, RunMode, RunStartedData, RunStatus, Tier } from './events.ts';

export interface RunSummary {
  id: string;
  createdAt: number;
  updatedAt: number;
  status: RunStatus;
  task: string;
  sandbox: string;
  kit: string | null;
  mode: RunMode;
  /** What the run is for (`run`, `template_test`); see RUN_KINDS. */
  kind: RunKind;
  model: string | null;
  tier: Tier | null;
  provider: string | null;
  attempts: number;
  tokens: number;
  durationMs: number;
  error: string | null;
  originRun: string | null;
  /** The suite run this run is a case of. */
  suiteRun: string | null;
}

/**
 * A page of the run list. `total` is exact when `totalExact`; otherwise it is the number of runs known
 * to match up to the end of this page, and more match after it (ask again with `count: true`).
 */
export interface RunPage {
  total: number;
  totalExact: boolean;
  runs: RunSummary[];
}

/** The summary of a run that has only its `run_started` event (`suiteRun` is the store's tag, not an event's). */
export function startSummary(e: EventOf<'run_started'>, suiteRun: string | null = null): RunSummary {
  const d = e.data;
  return {
    id: e.runId,
    createdAt: e.ts,
    updatedAt: e.ts,
    status: 'running',
    task: d.task,
    sandbox: d.sandbox,
    kit: d.kit ?? null,
    mode: d.mode,
    kind: d.kind ?? 'run',
    model: d.model ?? null,
    tier: null,
    provider: d.provider ?? null,
    attempts: 0,
    tokens: 0,
    durationMs: 0,
    error: null,
    originRun: d.origin?.runId ?? null,
    suiteRun,
  };
}

/**
 * The summary after one more event (a new object; `s` is not changed). `started` gives the run's
 * `run_started` data when the fold needs it (an LLM tier after a template restores the model the run
 * started with); it is called only then, so a store may read it lazily.
 *
 * The same choices as the run's record (records.ts, deriveRun): the model is the last answer's, none
 * while a template, rule or edited script serves; `attempts` is the highest attempt (step) number seen.
 */
export function foldSummary(
  s: RunSummary,
  e: RunEvent,
  started: () => Pick<RunStartedData, 'model'> | undefined,
): RunSummary {
  const next: RunSummary = { ...s, updatedAt: e.ts };
  const d = e.data as { n?: unknown };
  if (typeof d.n === 'number') next.attempts = Math.max(next.attempts, d.n);
  switch (e.type) {
    case 'tier':
      next.tier = e.data.tier;
      next.model = modelAfterTier(e.data.tier, next.model ?? undefined, () => started()?.model) ?? null;
      next.provider = NO_MODEL_TIERS.includes(e.data.tier) ? null : (e.data.provider ?? next.provider);
      break;
    case 'llm_response':
      next.tokens += e.data.promptTokens + e.data.completionTokens;
      next.model = e.data.model;
      next.provider = e.data.provider;
      break;
    case 'run_finished':
      next.status = e.data.status;
      next.error = e.data.error ?? null;
      next.durationMs = e.ts - s.createdAt;
      break;
    default:
      break;
  }
  return next;
}

/**
 * The summary of a whole run from its events (in sequence order). `live` says whether a process still
 * owns the run: a run without `run_finished` that no process owns reads as interrupted.
 */
export function summarize(
  events: readonly RunEvent[],
  live = false,
  suiteRun: string | null = null,
): RunSummary {
  const first = events[0];
  if (first?.type !== 'run_started') throw new Error('a run starts with a run_started event');
  let s = startSummary(first, suiteRun);
  for (const e of events.slice(1)) s = foldSummary(s, e, () => first.data);
  return s.status === 'running' && !live ? { ...s, status: 'interrupted' } : s;
}

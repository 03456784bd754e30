/**
 * A run's summary row: what the run list shows. Defined once here; the run store builds it, the
 * contract returns it from `runs.list` and the workbench and CLI read it.
 */
import type { RunMode, RunStatus, Tier } from './events.ts';

export interface RunSummary {
  id: string;
  createdAt: number;
  updatedAt: number;
  status: RunStatus;
  task: string;
  sandbox: string;
  kit: string | null;
  mode: RunMode;
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

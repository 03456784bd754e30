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

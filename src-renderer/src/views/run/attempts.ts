/**
 * Pure helpers of the run view (no React): what an attempt's outcome reads, and which two scripts a diff
 * compares in which order.
 */
import type { AttemptView, RunRecordView } from '../../../../src-main/contract/api.ts';

export type Outcome = 'ok' | 'invalid' | 'error' | 'cancelled' | 'pending' | 'llm_error' | 'interrupted';

export const OUTCOME_LABEL: Record<Outcome, string> = {
  ok: 'succeeded',
  invalid: 'validation failed',
  error: 'runtime error',
  cancelled: 'cancelled',
  pending: 'in progress',
  llm_error: 'LLM error',
  interrupted: 'interrupted',
};

/**
 * An attempt's outcome. A job stopped by Cancel reads "cancelled" (the worker reports it as an error of
 * type `Cancelled`), and so does an attempt left unfinished by a cancelled run; an unfinished attempt of
 * a run that is no longer running was interrupted, not "in progress".
 */
export function attemptOutcome(a: AttemptView, run?: Pick<RunRecordView, 'status' | 'attempts'>): Outcome {
  if (a.execution) {
    if (a.execution.success) return 'ok';
    return a.execution.error?.type === 'Cancelled' ? 'cancelled' : 'error';
  }
  if (a.validation && !a.validation.valid) return 'invalid';
  if (a.llmErrors.length && !a.script) return 'llm_error';
  if (run?.status === 'cancelled') return 'cancelled';
  if (run && run.status !== 'running') return 'interrupted';
  return 'pending';
}

/**
 * The diff of attempt `current` against `other`: always the earlier script on the left ("before") and
 * the later on the right ("after"), whichever of the two is selected.
 */
export function diffPair(
  current: AttemptView,
  other: AttemptView,
  unit: 'attempt' | 'step',
): { original: string; modified: string; originalLabel: string; modifiedLabel: string } {
  const [before, after] = other.n < current.n ? [other, current] : [current, other];
  return {
    original: before.script?.body ?? '',
    modified: after.script?.body ?? '',
    originalLabel: `${unit} ${before.n} (before)`,
    modifiedLabel: `${unit} ${after.n} (after)`,
  };
}

/** The attempt a diff compares with by default: the previous one with a script, else the next. */
export function defaultDiffTarget(
  current: AttemptView,
  others: readonly AttemptView[],
): AttemptView | undefined {
  const earlier = others.filter((x) => x.n < current.n);
  return earlier[earlier.length - 1] ?? others.find((x) => x.n > current.n);
}

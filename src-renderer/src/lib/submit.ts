/**
 * The busy/error bookkeeping of a form's submit, pure: `submit` runs an action once at a time, clears
 * the previous error, records a failure's message and clears busy whatever happens. `useSubmit`
 * (lib/useSubmit.ts) binds it to React state.
 */
import { errorMessage } from '../../../src-main/core/errors.ts';

export interface SubmitState {
  /** Whether an action is running now (read synchronously: a second submit is ignored). */
  isBusy(): boolean;
  setBusy(busy: boolean): void;
  setError(error: string | undefined): void;
}

/** A short, human message for any thrown value (the one rule, shared with the main process). */
export const messageOf = errorMessage;

/**
 * Runs `action` unless one is running: busy while it runs, the error cleared before and set to its
 * message when it throws. Resolves to its result, or undefined when it failed or did not run.
 */
export async function submit<R>(state: SubmitState, action: () => Promise<R>): Promise<R | undefined> {
  if (state.isBusy()) return undefined;
  state.setBusy(true);
  state.setError(undefined);
  try {
    return await action();
  } catch (e) {
    state.setError(messageOf(e));
    return undefined;
  } finally {
    state.setBusy(false);
  }
}

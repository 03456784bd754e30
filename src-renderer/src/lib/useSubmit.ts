/**
 * A form's submit: `busy` while its action runs (a second submit meanwhile is ignored), `error` with
 * the message of its last failure (cleared when it runs again). Forms render both as they always did:
 *
 *   const save = useSubmit(async () => onSaved(await api['kits.save'](req)));
 *   <button disabled={save.busy} onClick={() => void save.run()}>…</button>
 *   {save.error && <div role="alert">{save.error}</div>}
 */
import { useCallback, useRef, useState } from 'react';
import { submit } from './submit.ts';

export interface Submit<A extends unknown[], R> {
  busy: boolean;
  error: string | undefined;
  /** Sets or clears the error shown (a check before submitting, a reset). */
  setError(error: string | undefined): void;
  /** Runs the action unless it is running; resolves to its result, undefined when it failed. */
  run(...args: A): Promise<R | undefined>;
}

export function useSubmit<A extends unknown[], R>(action: (...args: A) => Promise<R>): Submit<A, R> {
  const [busy, setBusyState] = useState(false);
  const [error, setError] = useState<string>();
  const busyRef = useRef(false);
  // The latest action: `run` stays the same function across renders.
  const actionRef = useRef(action);
  actionRef.current = action;
  const run = useCallback(
    (...args: A) =>
      submit(
        {
          isBusy: () => busyRef.current,
          setBusy: (b) => {
            busyRef.current = b;
            setBusyState(b);
          },
          setError,
        },
        () => actionRef.current(...args),
      ),
    [],
  );
  return { busy, error, setError, run };
}

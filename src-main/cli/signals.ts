/**
 * Stop signals for the CLI: SIGINT (Ctrl-C), SIGTERM (what `timeout`, CI runners and service managers
 * send) and SIGHUP (the terminal closed) are handled alike: the command cancels what it runs, records
 * it, removes its containers and exits. Nothing is left `interrupted` or running because of the kind
 * of signal a process received.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof SIGNALS)[number];

let received: StopSignal | undefined;
/** Handlers of commands (a run, a server) registered with onStop; the fallback runs when there are none. */
let commandHandlers = 0;

/** The stop signal this process received, if any. */
export const stopSignal = (): StopSignal | undefined => received;

/** Why the process is stopping, in words, for run records (`cancelled: the process received SIGTERM`). */
export const stopReason = (sig: StopSignal): string => `the process received ${sig}`;

/** The conventional exit code after a signal: 128 + its number. */
export const signalExitCode = (sig: StopSignal): number =>
  128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1);

/** Calls `fn` on each stop signal until the returned function is called. */
export function onStop(fn: (sig: StopSignal) => void): () => void {
  commandHandlers++;
  let on = true;
  const handlers = SIGNALS.map((sig) => {
    const h = () => {
      received = sig;
      fn(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  return () => {
    if (on) commandHandlers--;
    on = false;
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}

/**
 * For the whole process (main): a stop signal that no command handles (the service is still starting,
 * a verb with nothing to cancel) calls `fn` (close the service: containers removed, then exit).
 */
export function onUnhandledStop(fn: (sig: StopSignal) => void): () => void {
  const handlers = SIGNALS.map((sig) => {
    const h = () => {
      received = sig;
      if (commandHandlers === 0) fn(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  return () => {
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}

/** Resolves on the first stop signal. */
export function untilStopped(): Promise<StopSignal> {
  return new Promise((resolve) => {
    const off = onStop((sig) => {
      off();
      resolve(sig);
    });
  });
}

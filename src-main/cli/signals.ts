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

/**
 * How long a stop signal waits for the process's close (its pools' containers removed, its runs
 * recorded) before the process exits anyway: a sandbox engine that takes the connection and never
 * answers (or an MCP server that does not) would hold the close, and the process, for ever. What the
 * close did not remove is a leftover of a dead process, which the next start removes.
 */
export const STOP_GRACE_MS = 3_000;

/**
 * A stop that did not end in its time: says so on stderr with `err` (`what` did not end within its
 * grace, a sandbox engine or MCP server that does not answer) and exits with the signal's code. The one
 * ending of both bounds: the close's (exitOnStop) and a command's (the watchdog).
 */
function exitLate(sig: StopSignal, what: string, err: (t: string) => void): never {
  try {
    err(
      `toolsmith: ${sig}: ${what} (a sandbox engine or MCP server that does not answer); exiting without it (its containers, if any, are removed by the next start)\n`,
    );
  } catch {
    // (stderr gone: the exit code says it)
  }
  process.exit(signalExitCode(sig));
}

/**
 * Closes with `close`, then exits with the signal's code (128 + n); at most STOP_GRACE_MS after the
 * signal, saying so on stderr with `err`, when the close has not ended by then.
 */
export function exitOnStop(sig: StopSignal, close: () => Promise<unknown>, err: (t: string) => void): void {
  const late = setTimeout(
    () => exitLate(sig, `the close did not end within ${STOP_GRACE_MS / 1000} s`, err),
    STOP_GRACE_MS,
  );
  void close()
    .catch(() => {})
    .finally(() => {
      clearTimeout(late);
      process.exit(signalExitCode(sig));
    });
}

/**
 * How long a command that handles a stop signal itself (`run`, `exec`, `eval`, `serve`, `mcp`: it
 * cancels what it runs, waits up to 15 s for its runs to record their end, RunService.shutdown, and
 * closes) has before the process exits anyway: the same wait and STOP_GRACE_MS to close. Before, `exec`
 * whose Docker engine took the connection and never answered went on waiting for the engine after
 * SIGTERM (the engine's patience, a minute, then its close).
 */
export const COMMAND_STOP_GRACE_MS = 15_000 + STOP_GRACE_MS;

let watchdog: ReturnType<typeof setTimeout> | undefined;

/** After a stop signal a command handles: the process exits at most COMMAND_STOP_GRACE_MS later. */
function armWatchdog(sig: StopSignal): void {
  if (watchdog) return;
  watchdog = setTimeout(
    () =>
      exitLate(sig, `the command did not end within ${COMMAND_STOP_GRACE_MS / 1000} s of the signal`, (t) =>
        process.stderr.write(t),
      ),
    COMMAND_STOP_GRACE_MS,
  );
  // (a command that ends before it lets the process end: the timer holds nothing)
  watchdog.unref();
}

/** Calls `fn` on each stop signal until the returned function is called. */
export function onStop(fn: (sig: StopSignal) => void): () => void {
  commandHandlers++;
  let on = true;
  const handlers = SIGNALS.map((sig) => {
    const h = () => {
      received = sig;
      armWatchdog(sig);
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

/**
 * Deadlines of one LLM call, for streams and non-streams alike: the response headers within
 * `headersMs` (connect and first byte), then no gap between two chunks longer than `idleMs`, and the
 * whole call (every try and every wait between tries) within `totalMs`. A deadline that passes aborts
 * the request and names itself; the SDK's own abort error never stands in for it.
 */
import { beatNow, steadyNow, suspendedWithin, watchSuspension } from '../clock.ts';

export interface Deadlines {
  /** Connect and response headers (config `timeout_ms`). */
  headersMs: number;
  /** The longest silence between two chunks of a streamed answer (config `idle_timeout_ms`). */
  idleMs: number;
  /** The whole call, retries and their waits included (config `total_timeout_ms`). */
  totalMs: number;
}

export const DEFAULT_DEADLINES: Deadlines = { headersMs: 30_000, idleMs: 60_000, totalMs: 180_000 };

/** A deadline that passed; `retryable` is false for the whole call's deadline (no time is left). */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
}

export const seconds = (ms: number): string =>
  ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`;

export interface TryWatch {
  /** Aborts the request when a deadline passes or the caller cancels. */
  readonly signal: AbortSignal;
  /** Headers arrived or a chunk came: the idle deadline starts again. */
  alive(): void;
  /** Throws the deadline that passed, if one did (call after the SDK returned or threw). */
  check(): void;
  /** Clears the timers. */
  done(): void;
}

/** What a deadline's message adds, asked as it passes (while the request still waits). */
export interface WaitWords {
  /**
   * The headers deadline: who was silent when it was not the server (a proxy that never answered the
   * tunnel, a TLS handshake through a tunnel that did not finish), with its leading words (`: ...`).
   */
  headers?: () => string;
  /** The whole call's deadline: what the request was waiting for then (`the response headers ...`). */
  total?: () => string;
}

/**
 * Watches one try of a call whose whole deadline is `deadlineAt` (epoch ms). `outer` is the caller's
 * cancellation: it aborts the request too, but is no deadline (`check` does not throw for it).
 * `why` words what was being waited for when a deadline passes: added to its message.
 */
export function watchTry(
  outer: AbortSignal | undefined,
  d: Deadlines,
  deadlineAt: number,
  why: WaitWords = {},
): TryWatch {
  const ac = new AbortController();
  let passed: DeadlineError | undefined;
  const fire = (e: DeadlineError) => {
    passed ??= e;
    ac.abort(e);
  };
  const onOuter = () => ac.abort(outer?.reason);
  if (outer?.aborted) ac.abort(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  watchSuspension();
  const total = setTimeout(
    () => {
      beatNow();
      // A deadline that passed while the process was not running (SIGSTOP, asleep) says so: the
      // provider was not the slow side.
      const asleep = suspendedWithin(steadyNow() - d.totalMs, steadyNow());
      const waiting = why.total?.() ?? '';
      fire(
        new DeadlineError(
          `no complete answer within ${seconds(d.totalMs)} (total_timeout_ms)` +
            (asleep > 0
              ? `; the deadline passed while this process was suspended (not running) for ${seconds(asleep)} of that time (stopped with SIGSTOP or the machine asleep), not because the provider was slow`
              : '') +
            (waiting ? `; it was waiting for ${waiting}` : ''),
          false,
        ),
      );
    },
    Math.max(0, deadlineAt - Date.now()),
  );
  // The headers and idle deadlines measure the server's silence. Their timer can fire late, when this
  // process was busy or starved of CPU past the deadline, and then runs before the bytes that came in the
  // meantime are read (timers run before I/O in an event loop turn): the stream was called stalled, and
  // retried, with its next bytes waiting unread. So a deadline that fires gives what already arrived one
  // turn (I/O is read before setImmediate callbacks run) and aborts only when still nothing came.
  let heard = 0;
  let ended = false;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const silence = (ms: number, error: () => DeadlineError) => {
    const at = heard;
    idle = setTimeout(() => {
      setImmediate(() => {
        if (!ended && heard === at) fire(error());
      });
    }, ms);
  };
  silence(
    d.headersMs,
    () =>
      new DeadlineError(
        `no response within ${seconds(d.headersMs)} (timeout_ms)${why.headers?.() ?? ''}`,
        true,
      ),
  );
  return {
    signal: ac.signal,
    alive() {
      if (passed || ac.signal.aborted) return;
      heard++;
      clearTimeout(idle);
      silence(
        d.idleMs,
        () =>
          new DeadlineError(`the answer stalled: no data for ${seconds(d.idleMs)} (idle_timeout_ms)`, true),
      );
    },
    check() {
      if (passed) throw passed;
    },
    done() {
      ended = true;
      clearTimeout(total);
      clearTimeout(idle);
      idle = undefined;
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

/** An answer that ended before its end marker (a cut connection): retried as a connection error. */
export class CutStreamError extends Error {
  override name = 'CutStreamError';
}

/** An answer the model stopped at its token limit: complete as sent, but cut; not retried. */
export class TruncatedError extends Error {
  override name = 'TruncatedError';
}

/**
 * The checks every streamed answer passes at its end, for both APIs: the stream carried its end marker
 * (else a cut connection, retried) and did not stop at the token limit (unless the caller takes a cut
 * answer). One with no text passes: it is the caller's to judge.
 */
export function checkAnswerEnd(a: {
  text: string;
  /** The API's end marker, when the stream carried it (`finish_reason`, `message_stop`). */
  ended: boolean;
  /** The marker's name, for the message. */
  marker: string;
  /** The stop reason when it was the token limit (`length`, `max_tokens`). */
  hitLimit?: string;
  maxTokens: number;
  provider: string;
  acceptTruncated?: boolean;
}): void {
  if (!a.ended)
    throw new CutStreamError(
      `the answer stream ended before the answer was complete (no ${a.marker}), after ${a.text.length} characters`,
    );
  if (a.hitLimit && !a.acceptTruncated)
    throw new TruncatedError(
      `the model stopped at max_tokens (${a.maxTokens}) before finishing (${a.hitLimit}); raise max_tokens for provider ${a.provider}`,
    );
  // An empty answer is an answer: its tokens were spent and counted, and the caller tells the model what
  // was wrong with it (the orchestrator: a failed attempt, retried like any answer that is no script).
}

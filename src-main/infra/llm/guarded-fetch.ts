/**
 * The `fetch` both SDK clients use: what the HTTP layer did is said in words before an SDK can turn it
 * into "Connection error." or "the answer stream ended after 0 characters". It
 * - restarts the try's idle deadline on every byte of the body (a valid stream arriving one byte at a time
 *   is alive, not stalled);
 * - caps the bytes of one answer (`MAX_ANSWER_BYTES`): a runaway answer is refused, never stored whole;
 * - refuses redirects, naming where they lead (an API endpoint that redirects is misconfigured: a 302
 *   would turn the POST into a GET, a loop would end as "redirect count exceeded");
 * - when a stream was asked for and a 200 came back that is not an event stream: a complete JSON answer
 *   is handed to the provider to use (`CompleteAnswer`); anything else (a proxy's HTML page) fails
 *   naming its content type and first bytes;
 * - names a body shorter than its Content-Length (retried: a dropped connection) and a body that is not
 *   in the Content-Encoding it claims (not retried);
 * - names a connection the server closed, before its answer or in the middle of it (retried): undici's
 *   "terminated" mid-body read as "malformed answer" and was not retried, and before the headers the SDK
 *   said only "Connection error.".
 * The try it serves is found through `tryScope` (set around one try by sdk-provider.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The most bytes one answer's body may hold (the SSE framing included; a script is a few KB). */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface TryScope {
  /** A byte arrived: the idle deadline starts again. */
  alive(): void;
  /** The request asked for a stream. */
  streamed: boolean;
  maxBytes: number;
  /** Where the try's request stands, set here as it goes (what a deadline that passes was waiting for). */
  progress?: TryProgress;
}

/** How far one try's request got. */
export interface TryProgress {
  /** The request was handed to fetch (it connects, or waits for its connection). */
  sent: boolean;
  /** The response headers arrived. */
  headers: boolean;
  /** Bytes of the body read so far, and when the last came (performance.now()). */
  bytes: number;
  lastAt: number;
}

export const tryScope = new AsyncLocalStorage<TryScope>();

/** A failure of the HTTP layer that says itself; `retryable` tells the retry policy. */
export class HttpAnswerError extends Error {
  override name = 'HttpAnswerError';
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
}

/** A 200 that holds a complete (non-streamed) JSON answer where a stream was asked for: use it. */
export class CompleteAnswer extends Error {
  override name = 'CompleteAnswer';
  readonly json: unknown;
  /** How it came, for the message when it is not an answer after all. */
  readonly described: string;
  constructor(json: unknown, described: string) {
    super('the server answered with a complete JSON answer instead of a stream');
    this.json = json;
    this.described = described;
  }

  /**
   * The error when the JSON is not a complete answer of the API: an error object the server answered
   * with a 200 (`{"error": ...}`: a router's upstream failure) is that error (ErrorAnswer: named in the
   * server's words and retried as the same error inside a stream is, classify.ts), anything else an
   * unexpected answer.
   */
  notAnAnswer(): HttpAnswerError | ErrorAnswer {
    const error = (this.json as { error?: unknown }).error;
    if ((typeof error === 'string' && error.trim()) || (error && typeof error === 'object'))
      return new ErrorAnswer(error, this.described);
    return new HttpAnswerError(`unexpected answer: ${this.described}`, false);
  }
}

/** A 200 whose whole JSON body is an error (`{"error": {...}}`) where an answer was expected. */
export class ErrorAnswer extends Error {
  override name = 'ErrorAnswer';
  /** The body's `error`, as the server sent it. */
  readonly error: unknown;
  constructor(error: unknown, described: string) {
    super(described);
    this.error = error;
  }
}

/** The first error of class `C` in an error's cause chain (the SDKs wrap what fetch throws). */
export function findCause<C>(e: unknown, cls: abstract new (...a: never[]) => C): C | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 6; i++) {
    if (c instanceof cls) return c;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

export const sizeOf = (n: number): string =>
  n >= 1024 * 1024
    ? `${Math.round((n / 1024 / 1024) * 10) / 10} MB`
    : n >= 1024
      ? `${Math.round(n / 1024)} KB`
      : `${n} bytes`;

/** The first bytes of a body, on one line, for a message. */
function firstBytes(bytes: Uint8Array): string {
  const s = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 120));
  return JSON.stringify(s.replace(/\s+/g, ' ').trim());
}

async function readCapped(res: Response, max: number, alive: () => void): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let n = 0;
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    n += value.byteLength;
    alive();
    if (n > max) {
      await reader.cancel();
      throw tooLarge(max);
    }
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const tooLarge = (max: number) =>
  new HttpAnswerError(
    `answer too large: the server sent more than ${sizeOf(max)} for one answer (the limit); nothing of it was kept`,
    false,
  );

/** The first error code in an error's cause chain (fetch wraps the socket's error). */
function codeOf(e: unknown): { code: string; message: string } | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 5; i++) {
    const k = (c as { code?: unknown }).code;
    if (typeof k === 'string')
      return { code: k, message: String((c as { message?: unknown }).message ?? '') };
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Codes of a connection the other side closed or reset (undici's `UND_ERR_SOCKET`: "other side closed"). */
const CLOSED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** A connection the server closed, in words, or undefined when `e` is something else. */
function closedConnection(e: unknown, when: string): HttpAnswerError | undefined {
  const c = codeOf(e);
  if (!c || !CLOSED.has(c.code)) return undefined;
  return new HttpAnswerError(
    `connection failed: the server closed the connection ${when} (${c.message || c.code}; ${c.code})`,
    true,
  );
}

/** What reading a body failed on, in words, or undefined to let the error through as it is. */
function bodyFailure(e: unknown, got: number, res: Response): HttpAnswerError | undefined {
  const code = codeOf(e)?.code;
  const encoding = res.headers.get('content-encoding');
  if (code && /^Z_/.test(code) && encoding)
    return new HttpAnswerError(
      `malformed answer: the body is not ${encoding} as its Content-Encoding says (${code}: ${(e as Error).message})`,
      false,
    );
  const length = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(length) && !encoding && got < length)
    return new HttpAnswerError(
      `connection failed: the answer ended after ${got} of the ${length} bytes its Content-Length announced`,
      true,
    );
  return closedConnection(e, `in the middle of its answer, after ${sizeOf(got)}`);
}

/** Wraps a body: every chunk restarts the idle deadline, bytes are counted and capped, failures named. */
function watchBody(res: Response, scope: TryScope): Response {
  const body = res.body;
  if (!body) return res;
  const reader = body.getReader();
  let got = 0;
  const wrapped = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        got += value.byteLength;
        if (scope.progress) {
          scope.progress.bytes += value.byteLength;
          scope.progress.lastAt = performance.now();
        }
        scope.alive();
        if (got > scope.maxBytes) {
          void reader.cancel().catch(() => {});
          return controller.error(tooLarge(scope.maxBytes));
        }
        controller.enqueue(value);
      } catch (e) {
        controller.error(bodyFailure(e, got, res) ?? e);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(wrapped, { status: res.status, statusText: res.statusText, headers: res.headers });
}

export function guardedFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const scope = tryScope.getStore();
    let res: Response;
    if (scope?.progress) scope.progress.sent = true;
    try {
      res = await base(input, { ...init, redirect: 'manual' });
    } catch (e) {
      throw closedConnection(e, 'without answering') ?? e;
    }
    if (scope?.progress) {
      scope.progress.headers = true;
      scope.progress.lastAt = performance.now();
    }
    if (res.status >= 300 && res.status < 400) {
      const to = res.headers.get('location');
      await res.body?.cancel().catch(() => {});
      throw new HttpAnswerError(
        `redirected: the server answered ${res.status} to ${to ?? '(no Location)'}; an API endpoint does not redirect (a redirect would turn the POST into a GET or loop): set base_url to the address that answers`,
        false,
      );
    }
    if (!scope) return res;
    const type = res.headers.get('content-type') ?? '';
    if (scope.streamed && res.ok && !/text\/event-stream/i.test(type)) {
      let bytes: Uint8Array;
      try {
        bytes = await readCapped(res, scope.maxBytes, scope.alive);
      } catch (e) {
        throw e instanceof HttpAnswerError ? e : (bodyFailure(e, 0, res) ?? e);
      }
      scope.alive();
      const described = `the server answered ${res.status} with ${type || 'no content type'} instead of an event stream (text/event-stream); it began ${firstBytes(bytes)}`;
      if (/json/i.test(type) || /^\s*\{/.test(new TextDecoder().decode(bytes.subarray(0, 16)))) {
        let json: unknown;
        try {
          json = JSON.parse(new TextDecoder().decode(bytes));
        } catch {
          json = undefined;
        }
        if (json && typeof json === 'object') throw new CompleteAnswer(json, described);
      }
      throw new HttpAnswerError(`unexpected answer: ${described}`, false);
    }
    return watchBody(res, scope);
  };
}

/**
 * How a failed try of an LLM call reads, for both APIs: retryable or not, and the cause in words (a
 * deadline, a cut stream, a token limit, JSON garbage, a refused connection, 429 with its Retry-After,
 * 5xx, or the server's refusal).
 */
import { CutStreamError, DeadlineError, TruncatedError } from './deadline.ts';
import { connectErrorReason } from './reachability.ts';
import { retryAfterMs } from './retry.ts';
import type { Classified } from './retry.ts';

export function classifyHttpError(e: unknown): Classified {
  const err = e as {
    status?: number;
    headers?: Headers | Record<string, string>;
    message?: string;
    name?: string;
  };
  const status = typeof err.status === 'number' ? err.status : undefined;
  const header =
    err.headers instanceof Headers ? err.headers.get('retry-after') : err.headers?.['retry-after'];
  const after = retryAfterMs(header);
  const name = `${err.name ?? ''} ${(e as { constructor?: { name?: string } })?.constructor?.name ?? ''}`;
  const message = err.message ?? '';
  if (e instanceof DeadlineError) return { retryable: e.retryable, reason: `timed out: ${e.message}` };
  if (e instanceof CutStreamError) return { retryable: true, reason: `connection failed: ${e.message}` };
  if (e instanceof TruncatedError) return { retryable: false, reason: `truncated answer: ${e.message}` };
  // A stream whose data is not JSON: the server sent garbage (the SDK's parse error, in words).
  if (e instanceof SyntaxError)
    return {
      retryable: false,
      reason: `malformed answer: the stream held data that is not JSON (${message.slice(0, 200)})`,
    };
  // A refused connection or an unknown host will not fix itself within a backoff: fail at once.
  const code = causeCode(e);
  if (code && FATAL_CONNECT.has(code))
    return { retryable: false, reason: `connection failed: ${connectErrorReason(code, message)}` };
  if (status === 429)
    return {
      retryable: true,
      reason: 'rate limited (429)',
      status,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
    };
  if (status !== undefined && status >= 500)
    return {
      retryable: true,
      reason: `server error (${status})`,
      status,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
    };
  if (/Timeout/i.test(name) || /timed out/i.test(message)) return { retryable: true, reason: 'timed out' };
  // A stream that closes before its first chunk is a dropped connection, not a bad answer.
  if (
    /Connection/i.test(name) ||
    /ended without sending any chunks|ECONNRESET|socket hang up/i.test(message)
  ) {
    return { retryable: true, reason: `connection failed: ${message}`.trim() };
  }
  if (status !== undefined)
    return {
      retryable: false,
      reason: `request refused (${status}): ${(err.message ?? '').slice(0, 300)}`,
      status,
    };
  return { retryable: false, reason: `malformed answer: ${(err.message ?? String(e)).slice(0, 300)}` };
}

const FATAL_CONNECT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The socket error code anywhere in an error's cause chain (fetch wraps it twice). */
function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 5; i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

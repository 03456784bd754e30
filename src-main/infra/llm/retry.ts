/**
 * Retries with exponential backoff on 429, 5xx, timeouts and connection errors; every wait is recorded
 * and told to the caller before it starts (`onRetry`: the run's history shows it live). A server that asks
 * (Retry-After) for a longer wait than the policy's cap fails at once, saying when to try again; no wait
 * runs past the call's whole deadline.
 */
import { CancelledError, LlmError } from '../../core/ports/llm.ts';
import type { LlmRetry } from '../../core/ports/llm.ts';
import { seconds } from './deadline.ts';

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  /** The longest wait before a retry, Retry-After included (config `max_retry_wait_ms`). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 2, baseDelayMs: 1_000, maxDelayMs: 20_000 };

export interface Classified {
  retryable: boolean;
  reason: string;
  status?: number;
  /** Server-requested wait (Retry-After), in ms. */
  retryAfterMs?: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new CancelledError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryOptions {
  signal?: AbortSignal | undefined;
  onRetry?: ((retry: LlmRetry) => void) | undefined;
  /** The endpoint, named in every error message. */
  url?: string | undefined;
  /** The proxy requests go through (`the proxy URL (from $VAR)`), named after the URL when not already. */
  via?: string | undefined;
  /** The call's whole deadline (epoch ms): no wait runs past it. */
  deadlineAt?: number | undefined;
  now?: () => number;
}

export async function withRetries<T>(
  provider: string,
  policy: RetryPolicy,
  classify: (e: unknown) => Classified,
  fn: (retries: LlmRetry[]) => Promise<T>,
  opts: RetryOptions = {},
): Promise<T> {
  const { signal, onRetry, url, via, deadlineAt } = opts;
  const now = opts.now ?? Date.now;
  const retries: LlmRetry[] = [];
  const fail = (c: Classified, extra = ''): LlmError => {
    const tail = retries.length ? ` (after ${retries.length} retr${retries.length === 1 ? 'y' : 'ies'})` : '';
    const where =
      (url && !c.reason.includes(url) ? ` from ${url}` : '') +
      (via && !c.reason.includes(via) ? ` through ${via}` : '');
    return new LlmError(provider, `${provider}: ${c.reason}${extra}${tail}${where}`, {
      ...(c.status !== undefined ? { status: c.status } : {}),
      retries,
    });
  };
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(retries);
    } catch (e) {
      if (signal?.aborted || e instanceof CancelledError) throw new CancelledError();
      const c = classify(e);
      if (!c.retryable || attempt >= policy.maxRetries) throw fail(c);
      if (c.retryAfterMs !== undefined && c.retryAfterMs > policy.maxDelayMs) {
        const at = new Date(now() + c.retryAfterMs).toISOString().replace(/\.\d+Z$/, 'Z');
        throw fail(
          c,
          `: the server asks to wait ${seconds(c.retryAfterMs)} (Retry-After), longer than the ${seconds(policy.maxDelayMs)} this provider waits (max_retry_wait_ms); try again after ${at}`,
        );
      }
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      const waitMs = Math.round(
        Math.min(policy.maxDelayMs, c.retryAfterMs ?? backoff * (0.75 + Math.random() * 0.5)),
      );
      if (deadlineAt !== undefined && now() + waitMs >= deadlineAt)
        throw fail(
          c,
          `; no time left to wait ${seconds(waitMs)} and retry within the call's total_timeout_ms`,
        );
      const retry = { attempt: attempt + 1, reason: c.reason, waitMs };
      retries.push(retry);
      onRetry?.(retry);
      await sleep(waitMs, signal);
    }
  }
}

/** Parses a Retry-After header (seconds or HTTP date). */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const s = Number(header);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const d = Date.parse(header);
  return Number.isFinite(d) ? Math.max(0, d - now) : undefined;
}

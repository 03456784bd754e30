/** Retries with exponential backoff on 429, 5xx, timeouts and connection errors; every wait is recorded. */
import { CancelledError, LlmError } from '../../core/ports/llm.ts';
import type { LlmRetry } from '../../core/ports/llm.ts';

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 20_000 };

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

export async function withRetries<T>(
  provider: string,
  policy: RetryPolicy,
  classify: (e: unknown) => Classified,
  fn: (retries: LlmRetry[]) => Promise<T>,
  signal?: AbortSignal,
  onRetry?: (retry: LlmRetry) => void,
  /** The endpoint, named in every error message. */
  url?: string,
): Promise<T> {
  const retries: LlmRetry[] = [];
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(retries);
    } catch (e) {
      if (signal?.aborted || e instanceof CancelledError) throw new CancelledError();
      const c = classify(e);
      if (!c.retryable || attempt >= policy.maxRetries) {
        const tail = retries.length
          ? ` (after ${retries.length} retr${retries.length === 1 ? 'y' : 'ies'})`
          : '';
        const where = url && !c.reason.includes(url) ? ` from ${url}` : '';
        throw new LlmError(provider, `${provider}: ${c.reason}${tail}${where}`, {
          ...(c.status !== undefined ? { status: c.status } : {}),
          retries,
        });
      }
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      const waitMs = Math.round(
        Math.min(policy.maxDelayMs, c.retryAfterMs ?? backoff * (0.75 + Math.random() * 0.5)),
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

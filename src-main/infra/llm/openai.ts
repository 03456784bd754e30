/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server,
 * OpenRouter...) through the official `openai` SDK, streamed. The SDK's own retries and its logging are
 * off: ours record every wait, and errors reach people through Toolsmith only. An answer counts as whole
 * only with its `finish_reason`; one cut before it is a dropped connection (retried), one stopped at
 * `max_tokens` is reported as truncated.
 */
import type OpenAI from 'openai';
import { CancelledError, LlmError } from '../../core/ports/llm.ts';
import type { LlmProvider, LlmRequest, LlmResponse } from '../../core/ports/llm.ts';
import {
  checkAnswerEnd,
  CutStreamError,
  DEFAULT_DEADLINES,
  DeadlineError,
  TruncatedError,
  watchTry,
} from './deadline.ts';
import type { Deadlines } from './deadline.ts';
import { checkReachable, connectErrorReason } from './reachability.ts';
import { DEFAULT_RETRY, retryAfterMs, withRetries } from './retry.ts';
import type { Classified, RetryPolicy } from './retry.ts';

export interface OpenAiProviderOptions {
  id: string;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  maxTokens?: number;
  temperature?: number;
  /** Connect and response headers (config `timeout_ms`); see Deadlines. */
  timeoutMs?: number;
  idleTimeoutMs?: number;
  totalTimeoutMs?: number;
  retry?: RetryPolicy;
}

/** The deadlines of a provider's options, defaults filling the gaps. */
export function deadlinesOf(o: {
  timeoutMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  totalTimeoutMs?: number | undefined;
}): Deadlines {
  return {
    headersMs: o.timeoutMs ?? DEFAULT_DEADLINES.headersMs,
    idleMs: o.idleTimeoutMs ?? DEFAULT_DEADLINES.idleMs,
    totalMs: o.totalTimeoutMs ?? DEFAULT_DEADLINES.totalMs,
  };
}

/** The SDKs log nothing themselves (e.g. `Could not parse message into JSON` on stderr). */
export const SILENT_SDK_LOGGER = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
};

/** Rough token estimate for servers that do not report usage. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

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

/**
 * Fails at once, naming the URL, when the endpoint refuses connections or does not answer a TCP connect
 * within a short timeout (remembered for a while: see reachability.ts).
 */
export async function assertReachable(provider: string, url: string): Promise<void> {
  const r = await checkReachable(url);
  if (!r.ok) throw new LlmError(provider, `${provider}: connection failed: ${r.reason ?? url}`);
}

export const OPENAI_DEFAULT_URL = 'https://api.openai.com/v1';

export class OpenAiProvider implements LlmProvider {
  readonly id: string;
  readonly model: string;
  private clientPromise: Promise<OpenAI> | undefined;
  private readonly opts: OpenAiProviderOptions;

  constructor(opts: OpenAiProviderOptions) {
    this.id = opts.id;
    this.model = opts.model;
    this.opts = opts;
  }

  /** The SDK is loaded on first use: one-shot CLI verbs that never call an LLM do not pay for it. */
  private client(): Promise<OpenAI> {
    const opts = this.opts;
    this.clientPromise ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          apiKey: opts.apiKey ?? 'not-needed',
          ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}),
          maxRetries: 0,
          // A backstop only: our deadlines (watchTry) end a request first, naming which one passed.
          timeout: deadlinesOf(opts).totalMs + 1_000,
          logLevel: 'off',
          logger: SILENT_SDK_LOGGER,
        }),
    );
    return this.clientPromise;
  }

  /** The endpoint requests go to. */
  get url(): string {
    return this.opts.baseUrl ?? OPENAI_DEFAULT_URL;
  }

  async generate(req: LlmRequest): Promise<LlmResponse> {
    const model = req.model ?? this.model;
    const deadlines = deadlinesOf(this.opts);
    const deadlineAt = Date.now() + deadlines.totalMs;
    await assertReachable(this.id, this.url);
    const client = await this.client();
    const maxTokens = req.maxTokens ?? this.opts.maxTokens ?? 2048;
    return withRetries(
      this.id,
      this.opts.retry ?? DEFAULT_RETRY,
      classifyHttpError,
      async (retries) => {
        const started = performance.now();
        const watch = watchTry(req.signal, deadlines, deadlineAt);
        try {
          const stream = await client.chat.completions.create(
            {
              model,
              messages: [
                { role: 'system', content: req.system },
                { role: 'user', content: req.user },
              ],
              stream: true,
              stream_options: { include_usage: true },
              max_tokens: maxTokens,
              temperature: req.temperature ?? this.opts.temperature ?? 0,
            },
            { signal: watch.signal },
          );
          watch.alive();
          let text = '';
          let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
          let answeredModel = model;
          let finish: string | null | undefined;
          for await (const chunk of stream) {
            watch.alive();
            if (chunk.model) answeredModel = chunk.model;
            const choice = chunk.choices?.[0];
            const piece = choice?.delta?.content;
            if (piece) {
              text += piece;
              req.onToken?.(piece);
            }
            if (choice?.finish_reason) finish = choice.finish_reason;
            if (chunk.usage) usage = chunk.usage;
          }
          // The SDK ends the iteration quietly on abort: a deadline or a cancel must not pass as an answer.
          watch.check();
          if (req.signal?.aborted) throw new CancelledError();
          checkAnswerEnd({
            text,
            ended: !!finish,
            marker: 'finish_reason',
            ...(finish === 'length' ? { hitLimit: 'finish_reason: length' } : {}),
            maxTokens,
            provider: this.id,
            ...(req.acceptTruncated ? { acceptTruncated: true } : {}),
          });
          return {
            text,
            promptTokens: usage?.prompt_tokens ?? estimateTokens(req.system + req.user),
            completionTokens: usage?.completion_tokens ?? estimateTokens(text),
            model: answeredModel,
            latencyMs: Math.round(performance.now() - started),
            provider: this.id,
            retries: [...retries],
          };
        } catch (e) {
          watch.check();
          throw e;
        } finally {
          watch.done();
        }
      },
      { signal: req.signal, onRetry: req.onRetry, url: this.url, deadlineAt },
    );
  }
}

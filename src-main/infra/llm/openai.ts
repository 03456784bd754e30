/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server,
 * OpenRouter...) through the official `openai` SDK, streamed. The SDK's own retries are off: ours record
 * every wait.
 */
import type OpenAI from 'openai';
import { CancelledError, LlmError } from '../../core/ports/llm.ts';
import type { LlmProvider, LlmRequest, LlmResponse } from '../../core/ports/llm.ts';
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
  timeoutMs?: number;
  retry?: RetryPolicy;
}

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
          timeout: opts.timeoutMs ?? 120_000,
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
    await assertReachable(this.id, this.url);
    const client = await this.client();
    return withRetries(
      this.id,
      this.opts.retry ?? DEFAULT_RETRY,
      classifyHttpError,
      async (retries) => {
        const started = performance.now();
        const stream = await client.chat.completions.create(
          {
            model,
            messages: [
              { role: 'system', content: req.system },
              { role: 'user', content: req.user },
            ],
            stream: true,
            stream_options: { include_usage: true },
            max_tokens: req.maxTokens ?? this.opts.maxTokens ?? 2048,
            temperature: req.temperature ?? this.opts.temperature ?? 0,
          },
          req.signal ? { signal: req.signal } : {},
        );
        let text = '';
        let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
        let answeredModel = model;
        for await (const chunk of stream) {
          if (chunk.model) answeredModel = chunk.model;
          const piece = chunk.choices?.[0]?.delta?.content;
          if (piece) {
            text += piece;
            req.onToken?.(piece);
          }
          if (chunk.usage) usage = chunk.usage;
        }
        // The SDK ends the iteration quietly on abort; a cut-off answer must not pass as complete.
        if (req.signal?.aborted) throw new CancelledError();
        if (!text.trim())
          throw Object.assign(new Error('the model returned no text'), { name: 'EmptyAnswer' });
        return {
          text,
          promptTokens: usage?.prompt_tokens ?? estimateTokens(req.system + req.user),
          completionTokens: usage?.completion_tokens ?? estimateTokens(text),
          model: answeredModel,
          latencyMs: Math.round(performance.now() - started),
          provider: this.id,
          retries: [...retries],
        };
      },
      req.signal,
      req.onRetry,
      this.url,
    );
  }
}

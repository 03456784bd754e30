/** Anthropic's Messages API through the official SDK, streamed; our retry policy records every wait. */
import type Anthropic from '@anthropic-ai/sdk';
import { CancelledError } from '../../core/ports/llm.ts';
import type { LlmProvider, LlmRequest, LlmResponse } from '../../core/ports/llm.ts';
import { assertReachable, classifyHttpError } from './openai.ts';
import { DEFAULT_RETRY, withRetries } from './retry.ts';
import type { RetryPolicy } from './retry.ts';

export interface AnthropicProviderOptions {
  id: string;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  maxTokens?: number;
  temperature?: number;
  timeoutMs?: number;
  retry?: RetryPolicy;
}

export const ANTHROPIC_DEFAULT_URL = 'https://api.anthropic.com';

export class AnthropicProvider implements LlmProvider {
  readonly id: string;
  readonly model: string;
  private clientPromise: Promise<Anthropic> | undefined;
  private readonly opts: AnthropicProviderOptions;

  constructor(opts: AnthropicProviderOptions) {
    this.id = opts.id;
    this.model = opts.model;
    this.opts = opts;
  }

  /** The SDK is loaded on first use (see OpenAiProvider). */
  private client(): Promise<Anthropic> {
    const opts = this.opts;
    this.clientPromise ??= import('@anthropic-ai/sdk').then(
      ({ default: AnthropicClient }) =>
        new AnthropicClient({
          apiKey: opts.apiKey ?? 'not-set',
          ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}),
          maxRetries: 0,
          timeout: opts.timeoutMs ?? 120_000,
        }),
    );
    return this.clientPromise;
  }

  /** The endpoint requests go to. */
  get url(): string {
    return this.opts.baseUrl ?? ANTHROPIC_DEFAULT_URL;
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
        const stream = client.messages.stream(
          {
            model,
            system: req.system,
            messages: [{ role: 'user', content: req.user }],
            max_tokens: req.maxTokens ?? this.opts.maxTokens ?? 2048,
            temperature: req.temperature ?? this.opts.temperature ?? 0,
          },
          req.signal ? { signal: req.signal } : {},
        );
        let text = '';
        stream.on('text', (piece: string) => {
          text += piece;
          req.onToken?.(piece);
        });
        const final = await stream.finalMessage();
        if (req.signal?.aborted) throw new CancelledError();
        if (!text.trim())
          throw Object.assign(new Error('the model returned no text'), { name: 'EmptyAnswer' });
        return {
          text,
          promptTokens: final.usage.input_tokens,
          completionTokens: final.usage.output_tokens,
          model: final.model || model,
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

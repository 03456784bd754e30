/**
 * Anthropic's Messages API through the official SDK, streamed as raw events; our retry policy records
 * every wait and the SDK logs nothing. An answer counts as whole only with its `message_stop`; one cut
 * before it is a dropped connection (retried), one stopped at `max_tokens` is reported as truncated.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { CancelledError } from '../../core/ports/llm.ts';
import type { LlmProvider, LlmRequest, LlmResponse } from '../../core/ports/llm.ts';
import { checkAnswerEnd, watchTry } from './deadline.ts';
import { SILENT_SDK_LOGGER, assertReachable, classifyHttpError, deadlinesOf } from './openai.ts';
import { DEFAULT_RETRY, withRetries } from './retry.ts';
import type { RetryPolicy } from './retry.ts';

export interface AnthropicProviderOptions {
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
    return this.opts.baseUrl ?? ANTHROPIC_DEFAULT_URL;
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
          // `temperature` is sent as before; this SDK version's types no longer list it.
          const body = {
            model,
            system: req.system,
            messages: [{ role: 'user', content: req.user }],
            max_tokens: maxTokens,
            temperature: req.temperature ?? this.opts.temperature ?? 0,
            stream: true,
          } as Anthropic.MessageCreateParamsStreaming;
          const stream = await client.messages.create(body, { signal: watch.signal });
          watch.alive();
          let text = '';
          let answeredModel = model;
          let inputTokens = 0;
          let outputTokens = 0;
          let stopReason: string | null | undefined;
          let stopped = false;
          for await (const ev of stream) {
            watch.alive();
            switch (ev.type) {
              case 'message_start':
                answeredModel = ev.message.model || model;
                inputTokens = ev.message.usage.input_tokens;
                outputTokens = ev.message.usage.output_tokens;
                break;
              case 'content_block_delta':
                if (ev.delta.type === 'text_delta') {
                  text += ev.delta.text;
                  req.onToken?.(ev.delta.text);
                }
                break;
              case 'message_delta':
                stopReason = ev.delta.stop_reason;
                outputTokens = ev.usage.output_tokens;
                break;
              case 'message_stop':
                stopped = true;
                break;
              default:
                break;
            }
          }
          watch.check();
          if (req.signal?.aborted) throw new CancelledError();
          checkAnswerEnd({
            text,
            ended: stopped,
            marker: 'message_stop',
            ...(stopReason === 'max_tokens' ? { hitLimit: 'stop_reason: max_tokens' } : {}),
            maxTokens,
            provider: this.id,
            ...(req.acceptTruncated ? { acceptTruncated: true } : {}),
          });
          return {
            text,
            promptTokens: inputTokens,
            completionTokens: outputTokens,
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

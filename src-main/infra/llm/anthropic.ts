/**
 * Anthropic's Messages API through the official SDK, streamed as raw events; our retry policy records
 * every wait and the SDK logs nothing (see sdk-provider.ts). An answer counts as whole only with its
 * `message_stop`; one cut before it is a dropped connection (retried), one stopped at `max_tokens` is
 * reported as truncated.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { LlmRequest } from '../../core/ports/llm.ts';
import { SdkProvider, sdkClientOptions } from './sdk-provider.ts';
import type { SdkProviderOptions, StreamedAnswer, TryContext } from './sdk-provider.ts';

export type AnthropicProviderOptions = SdkProviderOptions;

export const ANTHROPIC_DEFAULT_URL = 'https://api.anthropic.com';

export class AnthropicProvider extends SdkProvider<Anthropic> {
  get url(): string {
    return this.opts.baseUrl ?? ANTHROPIC_DEFAULT_URL;
  }

  protected async loadClient(): Promise<Anthropic> {
    const { default: AnthropicClient } = await import('@anthropic-ai/sdk');
    return new AnthropicClient(sdkClientOptions(this.opts, 'not-set'));
  }

  protected async stream(client: Anthropic, req: LlmRequest, t: TryContext): Promise<StreamedAnswer> {
    // `temperature` is sent as before; this SDK version's types no longer list it.
    const body = {
      model: t.model,
      system: req.system,
      messages: [{ role: 'user', content: req.user }],
      max_tokens: t.maxTokens,
      temperature: t.temperature,
      stream: true,
    } as Anthropic.MessageCreateParamsStreaming;
    const stream = await client.messages.create(body, { signal: t.signal });
    t.alive();
    let text = '';
    let answeredModel = t.model;
    let inputTokens = 0;
    let outputTokens = 0;
    let stopReason: string | null | undefined;
    let stopped = false;
    for await (const ev of stream) {
      t.alive();
      switch (ev.type) {
        case 'message_start':
          answeredModel = ev.message.model || t.model;
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
    return {
      text,
      model: answeredModel,
      ended: stopped,
      marker: 'message_stop',
      ...(stopReason === 'max_tokens' ? { hitLimit: 'stop_reason: max_tokens' } : {}),
      promptTokens: inputTokens,
      completionTokens: outputTokens,
    };
  }
}

/**
 * Anthropic's Messages API through the official SDK, streamed as raw events; our retry policy records
 * every wait and the SDK logs nothing (see sdk-provider.ts). An answer counts as whole only with its
 * `message_stop`; one cut before it is a dropped connection (retried), one stopped at `max_tokens` is
 * reported as truncated.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { LlmRequest } from '../../core/ports/llm.ts';
import type { CompleteAnswer } from './guarded-fetch.ts';
import { answerNotes, SdkProvider, sdkClientOptions } from './sdk-provider.ts';
import type { SdkProviderOptions, StreamedAnswer, TryContext } from './sdk-provider.ts';

export type AnthropicProviderOptions = SdkProviderOptions;

export const ANTHROPIC_DEFAULT_URL = 'https://api.anthropic.com';

export class AnthropicProvider extends SdkProvider<Anthropic> {
  protected get defaultUrl(): string {
    return ANTHROPIC_DEFAULT_URL;
  }

  get kind(): 'anthropic' {
    return 'anthropic';
  }

  protected async loadClient(): Promise<Anthropic> {
    const { default: AnthropicClient } = await import('@anthropic-ai/sdk');
    return new AnthropicClient(sdkClientOptions(this.opts, 'not-set'));
  }

  protected completeAnswer(c: CompleteAnswer, req: LlmRequest, t: TryContext): StreamedAnswer {
    return completeAnswer(c, req, t);
  }

  protected async streamed(client: Anthropic, req: LlmRequest, t: TryContext): Promise<StreamedAnswer> {
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
    let id: string | undefined;
    const calls: string[] = [];
    for await (const ev of stream) {
      t.alive();
      switch (ev.type) {
        case 'message_start':
          answeredModel = ev.message.model || t.model;
          if (typeof ev.message.id === 'string' && ev.message.id) id = ev.message.id;
          inputTokens = ev.message.usage.input_tokens;
          outputTokens = ev.message.usage.output_tokens;
          break;
        case 'content_block_start': {
          // (read defensively: a server may send a block start without its block)
          const block = ev.content_block as { type?: unknown; name?: unknown } | undefined;
          if (block?.type === 'tool_use') calls.push(typeof block.name === 'string' ? block.name : '');
          break;
        }
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
    const notes = answerNotes({
      text,
      ...(stopReason === 'refusal' ? { refused: 'stop_reason: refusal' } : {}),
      calls,
      ...(stopReason ? { finish: stopReason } : {}),
    });
    return {
      text,
      model: answeredModel,
      ended: stopped,
      marker: 'message_stop',
      ...(stopReason === 'max_tokens' ? { hitLimit: 'stop_reason: max_tokens' } : {}),
      ...(id ? { id } : {}),
      ...(stopReason ? { finish: stopReason } : {}),
      ...notes,
      promptTokens: inputTokens,
      completionTokens: outputTokens,
    };
  }
}

/** A complete (non-streamed) message sent where a stream was asked for: its answer is used. */
function completeAnswer(c: CompleteAnswer, req: LlmRequest, t: TryContext): StreamedAnswer {
  const j = c.json as {
    type?: unknown;
    id?: unknown;
    model?: unknown;
    content?: { type?: unknown; text?: unknown; name?: unknown }[];
    stop_reason?: unknown;
    usage?: { input_tokens?: unknown; output_tokens?: unknown };
  };
  if (j.type !== 'message' || !Array.isArray(j.content)) throw c.notAnAnswer();
  const text = j.content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('');
  if (text) req.onToken?.(text);
  const stop = typeof j.stop_reason === 'string' ? j.stop_reason : undefined;
  const notes = answerNotes({
    text,
    ...(stop === 'refusal' ? { refused: 'stop_reason: refusal' } : {}),
    calls: j.content
      .filter((b) => b.type === 'tool_use' && typeof b.name === 'string')
      .map((b) => b.name as string),
    ...(stop ? { finish: stop } : {}),
  });
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const input = num(j.usage?.input_tokens);
  const output = num(j.usage?.output_tokens);
  return {
    text,
    model: typeof j.model === 'string' && j.model ? j.model : t.model,
    ended: !!stop,
    marker: 'message_stop',
    ...(stop === 'max_tokens' ? { hitLimit: 'stop_reason: max_tokens' } : {}),
    ...(typeof j.id === 'string' && j.id ? { id: j.id } : {}),
    ...(stop ? { finish: stop } : {}),
    ...notes,
    ...(input !== undefined ? { promptTokens: input } : {}),
    ...(output !== undefined ? { completionTokens: output } : {}),
  };
}

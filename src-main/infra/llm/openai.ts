/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server,
 * OpenRouter...) through the official `openai` SDK, streamed. The SDK's own retries and its logging are
 * off: ours record every wait, and errors reach people through Toolsmith only (see sdk-provider.ts). An
 * answer counts as whole only with its `finish_reason`; one cut before it is a dropped connection
 * (retried), one stopped at `max_tokens` is reported as truncated.
 */
import type OpenAI from 'openai';
import type { LlmRequest } from '../../core/ports/llm.ts';
import type { CompleteAnswer } from './guarded-fetch.ts';
import { answerNotes, SdkProvider, sdkClientOptions } from './sdk-provider.ts';
import type { SdkProviderOptions, StreamedAnswer, TryContext } from './sdk-provider.ts';

export type OpenAiProviderOptions = SdkProviderOptions;

export const OPENAI_DEFAULT_URL = 'https://api.openai.com/v1';

export class OpenAiProvider extends SdkProvider<OpenAI> {
  protected get defaultUrl(): string {
    return OPENAI_DEFAULT_URL;
  }

  get kind(): 'openai' {
    return 'openai';
  }

  protected async loadClient(): Promise<OpenAI> {
    const { default: OpenAIClient } = await import('openai');
    return new OpenAIClient(sdkClientOptions(this.opts, 'not-needed'));
  }

  protected completeAnswer(c: CompleteAnswer, req: LlmRequest, t: TryContext): StreamedAnswer {
    return completeAnswer(c, req, t);
  }

  protected async streamed(client: OpenAI, req: LlmRequest, t: TryContext): Promise<StreamedAnswer> {
    const stream = await client.chat.completions.create(
      {
        model: t.model,
        messages: [
          { role: 'system', content: req.system },
          { role: 'user', content: req.user },
        ],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: t.maxTokens,
        temperature: t.temperature,
      },
      { signal: t.signal },
    );
    t.alive();
    let text = '';
    let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
    let answeredModel = t.model;
    let finish: string | null | undefined;
    let id: string | undefined;
    let refusal = '';
    const calls: string[] = [];
    for await (const chunk of stream) {
      t.alive();
      if (chunk.model) answeredModel = chunk.model;
      if (typeof chunk.id === 'string' && chunk.id) id = chunk.id;
      const choice = chunk.choices?.[0];
      const piece = choice?.delta?.content;
      if (piece) {
        text += piece;
        req.onToken?.(piece);
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
      const delta = choice?.delta as
        { refusal?: unknown; tool_calls?: unknown; function_call?: unknown } | undefined;
      if (typeof delta?.refusal === 'string') refusal += delta.refusal;
      calls.push(...functionNames(delta?.tool_calls, delta?.function_call));
    }
    const notes = answerNotes({ text, refusal, calls, ...(finish ? { finish } : {}) });
    return {
      text,
      model: answeredModel,
      ended: !!finish,
      marker: 'finish_reason',
      ...(finish === 'length' ? { hitLimit: 'finish_reason: length' } : {}),
      ...(id ? { id } : {}),
      ...(finish ? { finish } : {}),
      ...notes,
      ...(usage?.prompt_tokens !== undefined ? { promptTokens: usage.prompt_tokens } : {}),
      ...(usage?.completion_tokens !== undefined ? { completionTokens: usage.completion_tokens } : {}),
    };
  }
}

/** A complete (non-streamed) chat completion sent where a stream was asked for: its answer is used. */
function completeAnswer(c: CompleteAnswer, req: LlmRequest, t: TryContext): StreamedAnswer {
  const j = c.json as {
    id?: unknown;
    model?: unknown;
    choices?: {
      message?: {
        content?: unknown;
        refusal?: unknown;
        tool_calls?: unknown;
        function_call?: unknown;
      };
      finish_reason?: unknown;
    }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  const choice = Array.isArray(j.choices) ? j.choices[0] : undefined;
  const message = choice?.message;
  const finish = typeof choice?.finish_reason === 'string' ? choice.finish_reason : undefined;
  const calls = functionNames(message?.tool_calls, message?.function_call);
  // (content is null beside a refusal, a filtered answer or a function call: said, not "not an answer")
  const text = typeof message?.content === 'string' ? message.content : undefined;
  const notes = answerNotes({
    text: text ?? '',
    ...(typeof message?.refusal === 'string' ? { refusal: message.refusal } : {}),
    calls,
    ...(finish ? { finish } : {}),
  });
  if (text === undefined && !notes.withheld) throw c.notAnAnswer();
  if (text) req.onToken?.(text);
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const prompt = num(j.usage?.prompt_tokens);
  const completion = num(j.usage?.completion_tokens);
  return {
    text: text ?? '',
    model: typeof j.model === 'string' && j.model ? j.model : t.model,
    ended: !!finish,
    marker: 'finish_reason',
    ...(finish === 'length' ? { hitLimit: 'finish_reason: length' } : {}),
    ...(typeof j.id === 'string' && j.id ? { id: j.id } : {}),
    ...(finish ? { finish } : {}),
    ...notes,
    ...(prompt !== undefined ? { promptTokens: prompt } : {}),
    ...(completion !== undefined ? { completionTokens: completion } : {}),
  };
}

/**
 * The functions an answer (or a streamed piece of one) calls: `tool_calls[].function.name` and the older
 * `function_call.name`, read defensively (a server may send anything there). Streamed, a call's name
 * comes in its first piece only.
 */
function functionNames(toolCalls: unknown, functionCall: unknown): string[] {
  const nameOf = (x: unknown) =>
    x && typeof x === 'object' && typeof (x as { name?: unknown }).name === 'string'
      ? (x as { name: string }).name
      : '';
  const calls = Array.isArray(toolCalls)
    ? toolCalls.map((c: unknown) =>
        nameOf(c && typeof c === 'object' ? (c as { function?: unknown }).function : undefined),
      )
    : [];
  return [...calls, nameOf(functionCall)].filter(Boolean);
}

/** The LLM provider port: prompt in; text, tokens, model and latency out; streamed tokens; cancellation. */

export interface LlmRequest {
  system: string;
  user: string;
  /** Overrides the provider's configured model. */
  model?: string;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Called with each streamed piece of text. */
  onToken?: (text: string) => void;
  /** An answer cut at the token limit is returned as it is (a connection test), not failed as truncated. */
  acceptTruncated?: boolean;
  /** Called before each wait for a retry (a suite's rate gate pauses other cases on a 429). */
  onRetry?: (retry: LlmRetry) => void;
}

/** One wait before a retry (429, 5xx, timeout, connection error). */
export interface LlmRetry {
  attempt: number;
  reason: string;
  waitMs: number;
}

export interface LlmResponse {
  text: string;
  promptTokens: number;
  completionTokens: number;
  model: string;
  latencyMs: number;
  /** Provider id that answered. */
  provider: string;
  retries: LlmRetry[];
  /** The answer's id as the API gave it (OpenAI's `id`, Anthropic's message `id`), when it gave one. */
  responseId?: string;
  /** Why the answer ended, as the API said it (OpenAI `finish_reason`, Anthropic `stop_reason`). */
  finishReason?: string;
  /**
   * The answer stopped at the token limit (returned only to a request with `acceptTruncated`): the stop
   * reason as the API said it (`finish_reason: length`, `stop_reason: max_tokens`) and the limit sent.
   */
  truncated?: { reason: string; maxTokens: number };
  /**
   * The answer is not the model's text, in words: the model refused (OpenAI's `refusal`, Anthropic's
   * `stop_reason: refusal`), the provider's content filter stopped it (`finish_reason: content_filter`), or
   * the model called a function instead of answering with text. Whatever text came with it is not a
   * script to run.
   */
  withheld?: string;
  /** What `withheld` says, by kind (a trace names it without the words, which may quote the model). */
  withheldKind?: WithheldKind;
  /**
   * The model called a function beside its text, in words (the function, the finish reason): named to
   * the person and the model when that text holds no script.
   */
  functionCall?: string;
}

/** Why an answer is not the model's text (LlmResponse.withheld). */
export type WithheldKind = 'refusal' | 'content_filter' | 'function_call';

export interface LlmProvider {
  readonly id: string;
  readonly model: string;
  /** The API it speaks (`openai`: any OpenAI-compatible endpoint; `anthropic`), recorded with a run. */
  readonly kind?: 'openai' | 'anthropic';
  /** The endpoint its requests go to (its base URL), recorded with a run without credentials or query. */
  readonly url?: string;
  /** The answer's token limit and the sampling temperature its requests send (recorded with a run). */
  readonly maxTokens?: number;
  readonly temperature?: number;
  generate(req: LlmRequest): Promise<LlmResponse>;
}

/** A provider failure after retries; `retryable` says whether the cause was transient. */
export class LlmError extends Error {
  override name = 'LlmError';
  readonly provider: string;
  readonly status: number | undefined;
  readonly retries: LlmRetry[];
  constructor(provider: string, message: string, opts: { status?: number; retries?: LlmRetry[] } = {}) {
    super(message);
    this.provider = provider;
    this.status = opts.status;
    this.retries = opts.retries ?? [];
  }
}

export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor(message = 'cancelled') {
    super(message);
  }
}

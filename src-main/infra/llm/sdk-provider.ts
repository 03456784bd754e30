/**
 * What the OpenAI and Anthropic providers share: their options, the SDK client settings (no SDK retries,
 * no SDK logging, a backstop timeout behind our deadlines), the SDK loaded on first use, and one call's
 * wiring: a reachability check, retries (retry.ts) around tries watched by the deadlines (deadline.ts),
 * a cancel or a passed deadline never taken for an answer, the end-of-answer checks, latency and usage.
 * A provider adds only how it streams one answer from its API.
 */
import { CancelledError, LlmError } from '../../core/ports/llm.ts';
import type { LlmProvider, LlmRequest, LlmResponse, WithheldKind } from '../../core/ports/llm.ts';
import { estimateTokens } from '../../core/tools/disclosure.ts';
import { clipWords } from '../../core/text/clip.ts';
import { classifyHttpError } from './classify.ts';
import { checkAnswerEnd, DEFAULT_DEADLINES, seconds, watchTry } from './deadline.ts';
import type { Deadlines } from './deadline.ts';
import {
  CompleteAnswer,
  findCause,
  guardedFetch,
  MAX_ANSWER_BYTES,
  sizeOf,
  tryScope,
} from './guarded-fetch.ts';
import type { TryProgress } from './guarded-fetch.ts';
import {
  connectPhase,
  logConnects,
  proxyFor,
  proxyWaitWords,
  proxyWords,
  tunnelNoHandshake,
  tunnelSafeFetch,
  tunnelUnanswered,
  watchTunnels,
} from '../net/proxy-env.ts';
import type { ConnectLog, ProxyRoute } from '../net/proxy-env.ts';
import { checkReachable } from './reachability.ts';
import { DEFAULT_RETRY, withRetries } from './retry.ts';
import type { RetryPolicy } from './retry.ts';

export interface SdkProviderOptions {
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

/**
 * The settings both SDK clients get: our retry policy records every wait, so the SDK's own retries are
 * off; errors reach people through Toolsmith only, so the SDK logs nothing.
 */
export function sdkClientOptions(opts: SdkProviderOptions, placeholderKey: string) {
  return {
    apiKey: opts.apiKey ?? placeholderKey,
    ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}),
    maxRetries: 0,
    // A backstop only: our deadlines (watchTry) end a request first, naming which one passed.
    timeout: deadlinesOf(opts).totalMs + 1_000,
    logLevel: 'off' as const,
    logger: SILENT_SDK_LOGGER,
    // Every byte restarts the idle deadline, answers are capped, redirects and non-streams named; a
    // request given up before the environment's proxy answered ends its tunnel (tunnelSafeFetch).
    fetch: guardedFetch(tunnelSafeFetch),
  };
}

/**
 * Fails at once, naming the URL, when the endpoint refuses connections or does not answer a TCP connect
 * within a short timeout (remembered for a while: see reachability.ts).
 */
export async function assertReachable(provider: string, url: string): Promise<void> {
  const r = await checkReachable(url);
  if (!r.ok) throw new LlmError(provider, `${provider}: connection failed: ${r.reason ?? url}`);
}

/** `host:port` of a URL (the scheme's port when it names none). */
function hostPortOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${Number(u.port) || (u.protocol === 'https:' ? 443 : 80)}`;
}

/**
 * What one try was waiting for as the whole call's deadline passed, in words: the proxy's answer to the
 * request for a tunnel, the TLS handshake through it, the connection, the response headers, or the rest
 * of the answer (how much came, and how long ago the last of it), naming the proxy it went through.
 * `connects`: the try's own connects (another request to the same host may wait for something else).
 */
export function waitingFor(
  url: string,
  proxy: ProxyRoute | undefined,
  p: TryProgress,
  connects?: ConnectLog,
): string {
  const hostPort = hostPortOf(url);
  const phase = p.headers ? undefined : connectPhase(url, proxy !== undefined, connects);
  if (proxy && phase === 'tunnel') return `the proxy's answer: ${tunnelUnanswered(proxy, hostPort)}`;
  if (proxy && phase === 'handshake') return `the TLS handshake: ${tunnelNoHandshake(proxy, hostPort)}`;
  if (phase === 'connecting') return `the connection to ${hostPort}`;
  const via = proxy ? ` through ${proxyWords(proxy)}` : '';
  if (!p.sent) return 'the request to be sent';
  if (!p.headers)
    return `the response headers: the request was sent to ${hostPort}${via} and no response headers came back`;
  return `the rest of the answer: ${hostPort} sent its response headers and ${sizeOf(p.bytes)} of the answer${via}, the last of it ${seconds(performance.now() - p.lastAt)} before`;
}

/**
 * What the headers deadline adds through a proxy: the proxy's silence (the tunnel unanswered), a TLS
 * handshake through the tunnel that did not finish, or a request that went through the tunnel and got no
 * response headers. Without a proxy: '' (the message is the server's silence, from the URL).
 */
function headersWaitWords(
  url: string,
  proxy: ProxyRoute | undefined,
  p: TryProgress,
  connects: ConnectLog,
): string {
  if (!proxy) return '';
  if (connectPhase(url, true, connects)) return ` from ${url}${proxyWaitWords(url, proxy, connects)}`;
  if (!p.sent) return '';
  return ` from ${url}: the request went to ${hostPortOf(url)} through ${proxyWords(proxy)} (the connection through it was made), and no response headers came back`;
}

/** One try of a request, as the provider streams it. */
export interface TryContext {
  model: string;
  maxTokens: number;
  temperature: number;
  /** Aborts the request when a deadline passes or the caller cancels: pass it to the SDK. */
  signal: AbortSignal;
  /** Call when the headers arrive and on every chunk (the idle deadline starts again). */
  alive(): void;
}

/** What one streamed answer held, for the checks at its end. */
export interface StreamedAnswer {
  text: string;
  /** The model that answered, as the API names it. */
  model: string;
  /** The stream carried the API's end marker. */
  ended: boolean;
  /** The end marker's name, for the message when it is missing (`finish_reason`, `message_stop`). */
  marker: string;
  /** The stop reason when it was the token limit, e.g. `finish_reason: length`. */
  hitLimit?: string;
  /** The answer's id (OpenAI's `id`, Anthropic's message `id`), when the API sent one. */
  id?: string;
  /** Why it ended, as the API said it (`stop`, `end_turn`...). */
  finish?: string;
  /** The answer is not the model's text: its refusal, a content filter, a function call (withheldWords). */
  withheld?: string;
  withheldKind?: WithheldKind;
  /** A call of a function beside the answer's text, in words (answerNotes). */
  functionCall?: string;
  /** Usage as the API reported it; estimated from the text where it is missing. */
  promptTokens?: number;
  completionTokens?: number;
}

export abstract class SdkProvider<Client> implements LlmProvider {
  readonly id: string;
  readonly model: string;
  protected readonly opts: SdkProviderOptions;
  private clientPromise: Promise<Client> | undefined;

  /** What its requests send when the request names none (the config's max_tokens and temperature). */
  get maxTokens(): number {
    return this.opts.maxTokens ?? 2048;
  }
  get temperature(): number {
    return this.opts.temperature ?? 0;
  }
  constructor(opts: SdkProviderOptions) {
    this.id = opts.id;
    this.model = opts.model;
    this.opts = opts;
  }

  /** The endpoint requests go to: the configured base URL, else the API's own. */
  get url(): string {
    return this.opts.baseUrl ?? this.defaultUrl;
  }
  /** The API's own endpoint. */
  protected abstract get defaultUrl(): string;
  /** The API spoken. */
  abstract get kind(): 'openai' | 'anthropic';
  /** Imports the SDK and makes its client (see sdkClientOptions). */
  protected abstract loadClient(): Promise<Client>;
  /** Sends one request and reads its stream to the end, calling `req.onToken` with each piece. */
  protected abstract streamed(client: Client, req: LlmRequest, t: TryContext): Promise<StreamedAnswer>;
  /** A complete (non-streamed) answer sent where a stream was asked for: its answer, or `c.notAnAnswer()`. */
  protected abstract completeAnswer(c: CompleteAnswer, req: LlmRequest, t: TryContext): StreamedAnswer;

  /** One request's answer: streamed, or the complete answer a server sent in place of a stream. */
  private async stream(client: Client, req: LlmRequest, t: TryContext): Promise<StreamedAnswer> {
    try {
      return await this.streamed(client, req, t);
    } catch (e) {
      const complete = findCause(e, CompleteAnswer);
      if (!complete) throw e;
      return this.completeAnswer(complete, req, t);
    }
  }

  /** The SDK is loaded on first use: one-shot CLI verbs that never call an LLM do not pay for it. */
  private client(): Promise<Client> {
    this.clientPromise ??= this.loadClient();
    return this.clientPromise;
  }

  async generate(req: LlmRequest): Promise<LlmResponse> {
    const model = req.model ?? this.model;
    const deadlines = deadlinesOf(this.opts);
    const deadlineAt = Date.now() + deadlines.totalMs;
    await assertReachable(this.id, this.url);
    // Through the environment's proxy: its own failures (refused, 407) are named, and every message says
    // requests went through it.
    const proxy = proxyFor(this.url);
    // Where a request's connect stands (through a proxy: the tunnel, then the TLS handshake in it), for
    // the words of a deadline that passes.
    watchTunnels();
    const client = await this.client();
    const maxTokens = req.maxTokens ?? this.opts.maxTokens ?? 2048;
    const temperature = req.temperature ?? this.opts.temperature ?? 0;
    return withRetries(
      this.id,
      this.opts.retry ?? DEFAULT_RETRY,
      (e) => classifyHttpError(e, proxy),
      async (retries) => {
        const started = performance.now();
        // Every deadline says what the try was waiting for: a proxy that never answered the tunnel
        // (CONNECT) is named as the silent side, in the words an MCP server's wait uses; a tunnel whose
        // TLS handshake did not finish, the response headers, the rest of the answer (read as the
        // deadline passes, while the request still waits).
        const progress: TryProgress = { sent: false, headers: false, bytes: 0, lastAt: started };
        // This try's own connects: the words are of its own request, whatever another call to the same
        // host (a concurrent run, an eval's other case) waits for.
        const connects: ConnectLog = new Set();
        const watch = watchTry(req.signal, deadlines, deadlineAt, {
          headers: () => headersWaitWords(this.url, proxy, progress, connects),
          total: () => waitingFor(this.url, proxy, progress, connects),
        });
        try {
          const alive = () => watch.alive();
          const a = await tryScope.run({ alive, streamed: true, maxBytes: MAX_ANSWER_BYTES, progress }, () =>
            logConnects(connects, () =>
              this.stream(client, req, { model, maxTokens, temperature, signal: watch.signal, alive }),
            ),
          );
          // An SDK may end the iteration quietly on abort: a deadline or a cancel must not pass as an answer.
          watch.check();
          if (req.signal?.aborted) throw new CancelledError();
          checkAnswerEnd({
            text: a.text,
            ended: a.ended,
            marker: a.marker,
            ...(a.hitLimit ? { hitLimit: a.hitLimit } : {}),
            maxTokens,
            provider: this.id,
            ...(req.acceptTruncated ? { acceptTruncated: true } : {}),
          });
          return {
            text: a.text,
            promptTokens: a.promptTokens ?? estimateTokens(req.system + req.user),
            completionTokens: a.completionTokens ?? estimateTokens(a.text),
            model: a.model,
            latencyMs: Math.round(performance.now() - started),
            provider: this.id,
            retries: [...retries],
            ...(a.id ? { responseId: a.id } : {}),
            ...(a.finish ? { finishReason: a.finish } : {}),
            ...(a.withheld ? { withheld: a.withheld } : {}),
            ...(a.withheldKind ? { withheldKind: a.withheldKind } : {}),
            ...(a.functionCall ? { functionCall: a.functionCall } : {}),
            // (a cut answer reaches only a caller that takes one, checkAnswerEnd: it is told so)
            ...(a.hitLimit ? { truncated: { reason: a.hitLimit, maxTokens } } : {}),
          };
        } catch (e) {
          watch.check();
          throw e;
        } finally {
          watch.done();
        }
      },
      {
        signal: req.signal,
        onRetry: req.onRetry,
        url: this.url,
        ...(proxy ? { via: proxyWords(proxy) } : {}),
        deadlineAt,
      },
    );
  }
}

/**
 * Why an answer is not the model's text, in words (one sentence, its details in brackets) and by kind, or
 * undefined. What both APIs say besides text: The
 * model's own refusal (OpenAI sends it as `refusal` instead of `content`; Anthropic stops with
 * `stop_reason: refusal`, discarding what came before it), the provider's content filter (`finish_reason:
 * content_filter`: the text was stopped or removed) and a call of a function (the request offers none: a
 * server or model set to call functions answers that way). Without these words such an answer read as
 * "the answer was empty (the model returned no text)", and a filtered half script could run.
 */
export function withheldWords(a: {
  text: string;
  refusal?: string;
  refused?: string;
  calls?: string[];
  finish?: string;
}): { kind: WithheldKind; words: string } | undefined {
  const refusal = a.refusal?.replace(/\s+/g, ' ').trim();
  if (refusal)
    return { kind: 'refusal', words: `the model refused (${JSON.stringify(clipWords(refusal, 300))})` };
  if (a.refused) return { kind: 'refusal', words: `the model refused (${a.refused})` };
  if (a.finish === 'content_filter')
    return {
      kind: 'content_filter',
      words: "the provider's content filter stopped the answer (finish_reason: content_filter)",
    };
  // (text with a call beside it is the answer: the call alone says nothing of a script; see answerNotes)
  if (a.text.trim()) return undefined;
  const what = calledWhat(a.calls, a.finish);
  return what
    ? {
        kind: 'function_call',
        words: `the model called ${what} instead of answering with text (${callDetails(a.finish)})`,
      }
    : undefined;
}

/**
 * What an answer says besides its text, for the StreamedAnswer: why it is not the model's text
 * (withheldWords), or, for text with a call of a function beside it, that call in words
 * (`functionCall`: the orchestrator names it when the text holds no script).
 */
export function answerNotes(a: {
  text: string;
  refusal?: string;
  refused?: string;
  calls?: string[];
  finish?: string;
}): Pick<StreamedAnswer, 'withheld' | 'withheldKind' | 'functionCall'> {
  const w = withheldWords(a);
  if (w) return { withheld: w.words, withheldKind: w.kind };
  const what = a.text.trim() ? calledWhat(a.calls, a.finish) : undefined;
  return what ? { functionCall: `the model called ${what} beside its text (${callDetails(a.finish)})` } : {};
}

/** `a function (get_orders)`, `functions (a, b)`, `a function`: the calls an answer made, or undefined. */
function calledWhat(names: string[] | undefined, finish: string | undefined): string | undefined {
  // (a name as the server sent it, at most 64 characters: it goes into the model's correction too)
  const calls = [...new Set(names ?? [])]
    .filter(Boolean)
    .map((n) => (n.length > 64 ? `${n.slice(0, 64)}…` : n));
  if (!calls.length && finish !== 'tool_calls' && finish !== 'function_call' && finish !== 'tool_use')
    return undefined;
  return calls.length
    ? `${calls.length === 1 ? 'a function' : 'functions'} (${calls.slice(0, 5).join(', ')}${calls.length > 5 ? ', …' : ''})`
    : 'a function';
}

const callDetails = (finish: string | undefined): string =>
  `finish reason ${finish ?? 'none'}; the request offers no functions, so this server or model is set to call them`;

/**
 * A real HTTP server that speaks the OpenAI chat-completions and Anthropic Messages APIs (streamed and
 * not), answering from a script: the LLM's judgement is the only fake, and it sits at the network edge.
 * Scripted answers can be errors (status + Retry-After), slow, or malformed. Every request is recorded.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedAnswer {
  text?: string;
  /** HTTP status to answer with instead of a completion (e.g. 429, 500). */
  status?: number;
  retryAfter?: string;
  /** Wait before answering (ms); between streamed pieces when `streamDelayMs` is set. */
  delayMs?: number;
  /** Answer only once this settles (a fault the test times by what it sees, not by a delay). */
  waitFor?: Promise<unknown>;
  streamDelayMs?: number;
  /** Send a body that is not valid JSON / not a valid stream. */
  malformed?: boolean;
  /** Streamed: send this many text chunks, then nothing more (the connection stays open). */
  stallAfterChunks?: number;
  /** Streamed: send this many text chunks, then wait until `resume` settles before sending the rest. */
  pauseAfterChunks?: number;
  resume?: Promise<unknown>;
  /** Streamed: send this many text chunks, then end the response with no finish (a cut stream). */
  cutAfterChunks?: number;
  /** Why the answer ended: OpenAI `finish_reason` (default `stop`; `length` = cut at max_tokens) or
   * Anthropic `stop_reason` (default `end_turn`; `max_tokens`). */
  finishReason?: string;
  promptTokens?: number;
  completionTokens?: number;
  /** The answer's id (OpenAI `id` of every chunk, Anthropic `message.id`; default `c1` / `m1`). */
  id?: string;
  /** The model the answer names (default: the model the request asked for). */
  model?: string;
  /** Answer by hand (a fault the options above do not cover): the request's body is parsed already. */
  raw?: (res: ServerResponse, body: Record<string, unknown>) => void | Promise<void>;
}

export interface RecordedRequest {
  api: 'openai' | 'anthropic';
  path: string;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

export interface LlmServer {
  baseUrl: string;
  /** OpenAI base URL (`.../v1`). */
  openaiUrl: string;
  requests: RecordedRequest[];
  /** Queue answers; when the queue is empty the `fallback` answers (or a 500 if none). */
  push(...answers: (ScriptedAnswer | string)[]): void;
  fallback: ScriptedAnswer | undefined;
  /**
   * Answers by request (e.g. by model and task, for concurrent runs where a queue's order is not
   * deterministic); consulted before the queue; `undefined` falls through to the queue.
   */
  responder: ((req: RecordedRequest) => ScriptedAnswer | string | undefined) | undefined;
  /** Drops queued answers, the fallback and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let s = '';
  for await (const c of req) s += String(c);
  return s ? (JSON.parse(s) as Record<string, unknown>) : {};
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What a fault asks of chunk `i` of a streamed answer: go on, stall (wait until the client goes away)
 * or cut (end the response with no finish); true when the answer must stop here.
 */
async function faultAt(res: ServerResponse, a: ScriptedAnswer, i: number): Promise<boolean> {
  if (a.stallAfterChunks !== undefined && i >= a.stallAfterChunks) {
    if (!res.destroyed) await new Promise((resolve) => res.once('close', resolve));
    return true;
  }
  if (a.pauseAfterChunks === i && a.resume) await a.resume;
  if (a.cutAfterChunks !== undefined && i >= a.cutAfterChunks) {
    res.end();
    return true;
  }
  return false;
}

function chunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 16) out.push(text.slice(i, i + 16));
  return out.length ? out : [''];
}

export async function startLlmServer(): Promise<LlmServer> {
  const queue: ScriptedAnswer[] = [];
  const requests: RecordedRequest[] = [];
  const state: {
    fallback: ScriptedAnswer | undefined;
    responder: ((req: RecordedRequest) => ScriptedAnswer | string | undefined) | undefined;
  } = { fallback: undefined, responder: undefined };

  async function openai(res: ServerResponse, b: Record<string, unknown>, a: ScriptedAnswer): Promise<void> {
    const text = a.text ?? '';
    const model = a.model ?? String(b['model'] ?? 'scripted');
    const id = a.id ?? 'c1';
    const usage = {
      prompt_tokens: a.promptTokens ?? 100,
      completion_tokens: a.completionTokens ?? Math.ceil(text.length / 4),
      total_tokens: 0,
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    if (!b['stream']) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: 0,
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: text },
              finish_reason: a.finishReason ?? 'stop',
            },
          ],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const pieces = chunks(text);
    for (const [i, piece] of pieces.entries()) {
      if (await faultAt(res, a, i)) return;
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`,
      );
      if (a.streamDelayMs) await sleep(a.streamDelayMs);
    }
    if (await faultAt(res, a, pieces.length)) return;
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: {}, finish_reason: a.finishReason ?? 'stop' }] })}\n\n`,
    );
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [], usage })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  }

  async function anthropic(
    res: ServerResponse,
    b: Record<string, unknown>,
    a: ScriptedAnswer,
  ): Promise<void> {
    const text = a.text ?? '';
    const model = a.model ?? String(b['model'] ?? 'scripted');
    const input = a.promptTokens ?? 100;
    const output = a.completionTokens ?? Math.ceil(text.length / 4);
    const message = {
      id: a.id ?? 'm1',
      type: 'message',
      role: 'assistant',
      model,
      content: [] as unknown[],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: input, output_tokens: 0 },
    };
    if (!b['stream']) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...message,
          content: [{ type: 'text', text }],
          stop_reason: a.finishReason ?? 'end_turn',
          usage: { input_tokens: input, output_tokens: output },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const ev = (type: string, data: unknown) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    ev('message_start', { type: 'message_start', message });
    ev('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    const pieces = chunks(text);
    for (const [i, piece] of pieces.entries()) {
      if (await faultAt(res, a, i)) return;
      ev('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: piece },
      });
      if (a.streamDelayMs) await sleep(a.streamDelayMs);
    }
    if (await faultAt(res, a, pieces.length)) return;
    ev('content_block_stop', { type: 'content_block_stop', index: 0 });
    ev('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: a.finishReason ?? 'end_turn', stop_sequence: null },
      usage: { output_tokens: output },
    });
    ev('message_stop', { type: 'message_stop' });
    res.end();
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const api = path.endsWith('/chat/completions')
        ? 'openai'
        : path.endsWith('/messages')
          ? 'anthropic'
          : undefined;
      if (!api || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      }
      const b = await body(req);
      const recorded: RecordedRequest = { api, path, body: b, headers: req.headers };
      requests.push(recorded);
      const byRequest = state.responder?.(recorded);
      const a = (typeof byRequest === 'string' ? { text: byRequest } : byRequest) ??
        queue.shift() ??
        state.fallback ?? { status: 500, text: 'the scripted LLM server has no answer left' };
      if (a.delayMs) await sleep(a.delayMs);
      if (a.waitFor) await a.waitFor;
      if (a.raw) return await a.raw(res, b);
      if (a.status && a.status !== 200) {
        res.writeHead(a.status, {
          'content-type': 'application/json',
          ...(a.retryAfter ? { 'retry-after': a.retryAfter } : {}),
        });
        const message = a.text ?? `scripted error ${a.status}`;
        return res.end(
          JSON.stringify(
            api === 'openai'
              ? { error: { message, type: 'scripted' } }
              : { type: 'error', error: { type: 'api_error', message } },
          ),
        );
      }
      if (a.malformed) {
        res.writeHead(200, { 'content-type': b['stream'] ? 'text/event-stream' : 'application/json' });
        return res.end(b['stream'] ? 'data: {not json at all\n\n' : '{"choices": [ truncated');
      }
      if (api === 'openai') await openai(res, b, a);
      else await anthropic(res, b, a);
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    });
  });
  // A kept-alive connection is closed by the client only (undici after its own idle time), never by this
  // server's 5 s keep-alive timer: a test process stalled by load (the server and the client share its
  // event loop) ran that timer before it read the request the client had already sent on the connection,
  // and the request failed with ECONNRESET, a retry the test did not script (`retries` not empty).
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    openaiUrl: `${baseUrl}/v1`,
    requests,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      state.fallback = undefined;
      state.responder = undefined;
    },
    push: (...answers) => queue.push(...answers.map((a) => (typeof a === 'string' ? { text: a } : a))),
    get fallback() {
      return state.fallback;
    },
    set fallback(a) {
      state.fallback = a;
    },
    get responder() {
      return state.responder;
    },
    set responder(f) {
      state.responder = f;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The LLM edge against a real loopback server that misbehaves the way real endpoints do: a stream that
 * stalls after its first chunk, one that trickles forever, one cut mid-answer, one stopped at
 * max_tokens, a Retry-After of an hour. Each call ends within its deadlines, says why in words, and
 * tells every retry before its wait.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmError } from '../../../src-main/core/ports/llm.ts';
import type { LlmProvider, LlmRetry } from '../../../src-main/core/ports/llm.ts';
import { AnthropicProvider } from '../../../src-main/infra/llm/anthropic.ts';
import { OpenAiProvider } from '../../../src-main/infra/llm/openai.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';

let server: LlmServer;
beforeAll(async () => {
  server = await startLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

interface Limits {
  idleTimeoutMs?: number;
  totalTimeoutMs?: number;
}

const retry = { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 50 };
const kinds: [string, (l: Limits) => LlmProvider, { lengthStop: string; endMarker: RegExp }][] = [
  [
    'openai-compatible',
    (l) =>
      new OpenAiProvider({
        id: 'oa',
        model: 'gpt-test',
        baseUrl: server.openaiUrl,
        retry,
        timeoutMs: 5_000,
        idleTimeoutMs: l.idleTimeoutMs ?? 5_000,
        totalTimeoutMs: l.totalTimeoutMs ?? 30_000,
      }),
    { lengthStop: 'length', endMarker: /no finish_reason/ },
  ],
  [
    'anthropic',
    (l) =>
      new AnthropicProvider({
        id: 'an',
        model: 'claude-test',
        baseUrl: server.baseUrl,
        apiKey: 'k',
        retry,
        timeoutMs: 5_000,
        idleTimeoutMs: l.idleTimeoutMs ?? 5_000,
        totalTimeoutMs: l.totalTimeoutMs ?? 30_000,
      }),
    { lengthStop: 'max_tokens', endMarker: /no message_stop/ },
  ],
];

const ANSWER = '```python\nr = check_inventory(product_id="p3")\nemit_result(r.data["in_stock"])\n```';
const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as LlmError);

describe.each(kinds)('%s: deadlines, cut streams and waits', (_name, make, api) => {
  it('a stream that stalls after its first chunk ends at the idle deadline and is retried', async () => {
    server.push({ text: ANSWER, stallAfterChunks: 1 }, { text: ANSWER });
    const told: LlmRetry[] = [];
    const r = await make({ idleTimeoutMs: 400 }).generate({
      system: 's',
      user: 'u',
      onRetry: (x) => told.push(x),
    });
    expect(r.text).toBe(ANSWER);
    expect(r.retries).toHaveLength(1);
    expect(r.retries[0]?.reason).toBe('timed out: the answer stalled: no data for 400 ms (idle_timeout_ms)');
    expect(told).toEqual(r.retries);
    expect(server.requests).toHaveLength(2);
  }, 30_000);

  it('a stall on every try fails naming the idle deadline, after the retries', async () => {
    server.fallback = { text: ANSWER, stallAfterChunks: 1 };
    const err = await failure(make({ idleTimeoutMs: 300 }).generate({ system: 's', user: 'u' }));
    expect(err).toBeInstanceOf(LlmError);
    expect(err?.message).toMatch(
      /^(oa|an): timed out: the answer stalled: no data for 300 ms \(idle_timeout_ms\) \(after 2 retries\) from http/,
    );
    expect(server.requests).toHaveLength(3);
  }, 30_000);

  it('a stream that trickles past the whole deadline ends at total_timeout_ms and is not retried', async () => {
    server.push({ text: 'x'.repeat(4000), streamDelayMs: 40 });
    const err = await failure(
      make({ idleTimeoutMs: 1_000, totalTimeoutMs: 1_200 }).generate({ system: 's', user: 'u' }),
    );
    expect(err?.message).toMatch(/timed out: no complete answer within 1\.2 s \(total_timeout_ms\)/);
    expect(server.requests).toHaveLength(1);
  }, 30_000);

  it('a stream cut mid-answer is a connection error and retried; the partial answer is never returned', async () => {
    server.push({ text: ANSWER, cutAfterChunks: 2 }, { text: ANSWER });
    const r = await make({}).generate({ system: 's', user: 'u' });
    expect(r.text).toBe(ANSWER);
    expect(r.retries[0]?.reason).toMatch(
      /^connection failed: the answer stream ended before the answer was complete/,
    );
    expect(r.retries[0]?.reason).toMatch(api.endMarker);
  }, 30_000);

  it('a stream cut on every try fails as a connection error, never as an answer', async () => {
    server.fallback = { text: ANSWER, cutAfterChunks: 3 };
    const err = await failure(make({}).generate({ system: 's', user: 'u' }));
    expect(err).toBeInstanceOf(LlmError);
    expect(err?.message).toMatch(/connection failed: the answer stream ended before the answer was complete/);
  }, 30_000);

  it('an answer stopped at max_tokens is reported as truncated and not retried', async () => {
    server.push({ text: ANSWER, finishReason: api.lengthStop });
    const err = await failure(make({}).generate({ system: 's', user: 'u', maxTokens: 7 }));
    expect(err?.message).toMatch(
      /truncated answer: the model stopped at max_tokens \(7\) before finishing .*raise max_tokens for provider (oa|an)/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a Retry-After longer than the wait cap fails at once, saying when to try again', async () => {
    server.push({ status: 429, retryAfter: '3600' }, { text: ANSWER });
    const before = Date.now();
    const told: LlmRetry[] = [];
    const err = await failure(make({}).generate({ system: 's', user: 'u', onRetry: (x) => told.push(x) }));
    expect(err?.message).toMatch(
      /rate limited \(429\): the server asks to wait 3600 s \(Retry-After\), longer than the 50 ms this provider waits \(max_retry_wait_ms\); try again after (\S+Z)/,
    );
    const at = Date.parse(/try again after (\S+Z)/.exec(err?.message ?? '')?.[1] ?? '');
    expect(at).toBeGreaterThanOrEqual(before + 3_599_000);
    expect(told).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('waits within the whole deadline', () => {
  it('a retry whose wait would pass total_timeout_ms fails at once instead of waiting', async () => {
    server.push({ status: 503, retryAfter: '5' }, { text: ANSWER });
    const told: LlmRetry[] = [];
    const p = new OpenAiProvider({
      id: 'oa',
      model: 'gpt-test',
      baseUrl: server.openaiUrl,
      retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10_000 },
      totalTimeoutMs: 1_000,
    });
    const err = await failure(p.generate({ system: 's', user: 'u', onRetry: (x) => told.push(x) }));
    expect(err?.message).toMatch(
      /^oa: server error \(503\): scripted error 503; no time left to wait 5 s and retry within the call's total_timeout_ms from http/,
    );
    expect(told).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});

/**
 * The LLM edge below the API: what the HTTP and TLS layers do wrong, against real loopback servers (a
 * scripted LLM server answering by hand, a TLS server with a self-signed certificate). Each failure names
 * its cause (content type and first bytes, the redirect and where it leads, the TLS error, the encoding,
 * the missing bytes, the size limit), and only what can succeed on a second try is retried.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmError } from '../../../src-main/core/ports/llm.ts';
import type { LlmProvider } from '../../../src-main/core/ports/llm.ts';
import { AnthropicProvider } from '../../../src-main/infra/llm/anthropic.ts';
import { OpenAiProvider } from '../../../src-main/infra/llm/openai.ts';
import { forgetDownEndpoints } from '../../../src-main/infra/llm/reachability.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { selfSignedCert } from '../../support/certs.ts';

let server: LlmServer;
let tls: HttpsServer;
let tlsUrl: string;
let certDir: string;
beforeAll(async () => {
  server = await startLlmServer();
  certDir = mkdtempSync(join(tmpdir(), 'ts-llm-tls-'));
  const pem = selfSignedCert(certDir, 'llm');
  tls = createHttpsServer({ key: readFileSync(pem.key), cert: readFileSync(pem.cert) }, (_req, res) =>
    res.end('{}'),
  );
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.close();
  tls.closeAllConnections();
  await new Promise((r) => tls.close(r));
  rmSync(certDir, { recursive: true, force: true });
});
beforeEach(() => {
  server.reset();
  forgetDownEndpoints();
});

type Api = 'openai' | 'anthropic';
const retry = { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 50 };
function make(api: Api, o: { baseUrl?: string; idleTimeoutMs?: number } = {}): LlmProvider {
  const common = {
    retry,
    timeoutMs: 5_000,
    idleTimeoutMs: o.idleTimeoutMs ?? 5_000,
    totalTimeoutMs: 60_000,
  };
  return api === 'openai'
    ? new OpenAiProvider({
        id: 'oa',
        model: 'gpt-test',
        baseUrl: o.baseUrl ?? server.openaiUrl,
        ...common,
      })
    : new AnthropicProvider({
        id: 'an',
        model: 'claude-test',
        baseUrl: o.baseUrl ?? server.baseUrl,
        apiKey: 'k',
        ...common,
      });
}

const ANSWER = 'emit_result(42)';
const failure = (p: Promise<unknown>) =>
  p.then(() => undefined).catch((e: unknown) => e as LlmError | undefined);

/** A whole valid stream of `text` in the API's event format. */
function sse(api: Api, text: string): string {
  if (api === 'openai')
    return (
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'gpt-test', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n` +
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'gpt-test', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n` +
      'data: [DONE]\n\n'
    );
  const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return (
    ev('message_start', {
      message: {
        id: 'm',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    }) +
    ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }) +
    ev('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 3 },
    }) +
    ev('message_stop', {})
  );
}

/** A complete, non-streamed answer in the API's format. */
function completeJson(api: Api, text: string): object {
  return api === 'openai'
    ? {
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model: 'gpt-whole',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      }
    : {
        id: 'm',
        type: 'message',
        role: 'assistant',
        model: 'claude-whole',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 11, output_tokens: 7 },
      };
}

const sseHead = (res: ServerResponse, extra: Record<string, string> = {}) =>
  res.writeHead(200, { 'content-type': 'text/event-stream', ...extra });

describe.each(['openai', 'anthropic'] as const)('%s: the HTTP layer names its faults', (api) => {
  it('a 200 with an HTML page (a proxy error page) fails naming the content type and first bytes, not retried', async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!DOCTYPE html>\n<html><title>502 Bad Gateway</title><body>upstream down</body></html>');
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err).toBeInstanceOf(LlmError);
    expect(err?.message).toMatch(
      /unexpected answer: the server answered 200 with text\/html; charset=utf-8 instead of an event stream \(text\/event-stream\); it began "<!DOCTYPE html> <html><title>502 Bad Gateway/,
    );
    expect(err?.retries).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('a complete JSON answer where a stream was asked for is used as the answer', async () => {
    server.push({
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(completeJson(api, ANSWER)));
      },
    });
    const r = await make(api).generate({ system: 's', user: 'u' });
    expect(r.text).toBe(ANSWER);
    expect(r.model).toBe(api === 'openai' ? 'gpt-whole' : 'claude-whole');
    expect([r.promptTokens, r.completionTokens]).toEqual([11, 7]);
    expect(r.retries).toEqual([]);
  });

  it('a 200 JSON that is no answer (an error object) names what came, not retried', async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"detail":"model not loaded"}');
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /unexpected answer: the server answered 200 with application\/json instead of an event stream .*it began "\{\\"detail\\":\\"model not loaded\\"\}"/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a valid stream arriving a few bytes at a time outlives the idle deadline: every byte restarts it', async () => {
    const body = sse(api, ANSWER);
    server.push({
      raw: async (res) => {
        sseHead(res);
        for (let i = 0; i < body.length && !res.destroyed; i += 6) {
          res.write(body.slice(i, i + 6));
          await new Promise((r) => setTimeout(r, 25));
        }
        res.end();
      },
    });
    // Each event takes longer than the idle deadline to arrive whole; the bytes keep coming.
    expect(body.length / 6).toBeGreaterThan(20);
    const r = await make(api, { idleTimeoutMs: 300 }).generate({ system: 's', user: 'u' });
    expect(r.text).toBe(ANSWER);
    expect(r.retries).toEqual([]);
  }, 60_000);

  it('bytes that came while this process was busy past the idle deadline are read, not called a stall', async () => {
    const body = sse(api, ANSWER);
    const cut = body.indexOf('\n\n', body.indexOf(ANSWER)) + 2; // (after the event that holds the text)
    let rest: (() => void) | undefined;
    server.push({
      raw: (res) =>
        new Promise<void>((sent) => {
          sseHead(res);
          res.write(body.slice(0, cut));
          rest = () => {
            res.end(body.slice(cut));
            sent();
          };
        }),
    });
    const r = await make(api, { idleTimeoutMs: 200 }).generate({
      system: 's',
      user: 'u',
      onToken: () => {
        // The rest of the answer is sent; then this process is busy (a loaded machine, a long task on its
        // event loop) for longer than the idle deadline before it can read it. The server was not silent.
        rest?.();
        rest = undefined;
        const until = performance.now() + 1_000;
        while (performance.now() < until);
      },
    });
    expect(r.text).toBe(ANSWER);
    expect(r.retries).toEqual([]);
  });

  it('a redirect loop fails naming the redirect and where it leads, with one request', async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(302, { location: api === 'openai' ? '/v1/chat/completions' : '/v1/messages' });
        res.end();
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /redirected: the server answered 302 to \/v1\/(chat\/completions|messages);/,
    );
    expect(err?.message).toMatch(/set base_url to the address that answers/);
    expect(server.requests).toHaveLength(1);
  });

  it('a 302 to another address (which would turn the POST into a GET) is named, never followed', async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(302, { location: 'http://127.0.0.1:9/login' });
        res.end();
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /redirected: the server answered 302 to http:\/\/127\.0\.0\.1:9\/login;.*POST into a GET/,
    );
    expect(err?.retries).toEqual([]);
  });

  it('a body that is not in the Content-Encoding it claims is named, not retried', async () => {
    server.fallback = {
      raw: (res) => {
        sseHead(res, { 'content-encoding': 'gzip' });
        res.end(sse(api, ANSWER));
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /malformed answer: the body is not gzip as its Content-Encoding says \(Z_DATA_ERROR/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('an honest gzip body is read as usual', async () => {
    server.push({
      raw: (res) => {
        sseHead(res, { 'content-encoding': 'gzip' });
        res.end(gzipSync(sse(api, ANSWER)));
      },
    });
    expect((await make(api).generate({ system: 's', user: 'u' })).text).toBe(ANSWER);
  });

  it('a body shorter than its Content-Length is a dropped connection, named and retried', async () => {
    server.push(
      {
        raw: (res) => {
          const body = sse(api, ANSWER).slice(0, 60);
          sseHead(res, { 'content-length': '5000' });
          res.write(body);
          setTimeout(() => res.socket?.destroy(), 30);
        },
      },
      {
        raw: (res) => {
          sseHead(res);
          res.end(sse(api, ANSWER));
        },
      },
    );
    const r = await make(api).generate({ system: 's', user: 'u' });
    expect(r.text).toBe(ANSWER);
    expect(r.retries[0]?.reason).toBe(
      'connection failed: the answer ended after 60 of the 5000 bytes its Content-Length announced',
    );
  });

  it('a stream whose connection the server closes mid-answer (no Content-Length) is a dropped connection, named and retried', async () => {
    server.push(
      {
        raw: (res) => {
          sseHead(res);
          // Chunked, so no length tells the client what is missing: a proxy or server that dies here.
          res.write(sse(api, ANSWER).slice(0, 60));
          setTimeout(() => res.socket?.destroy(), 30);
        },
      },
      {
        raw: (res) => {
          sseHead(res);
          res.end(sse(api, ANSWER));
        },
      },
    );
    const r = await make(api).generate({ system: 's', user: 'u' });
    expect(r.text).toBe(ANSWER);
    // Before: "malformed answer: terminated", not retried.
    expect(r.retries.map((x) => x.reason)).toEqual([
      'connection failed: the server closed the connection in the middle of its answer, after 60 bytes (other side closed; UND_ERR_SOCKET)',
    ]);
  });

  it('a connection closed before any answer is named (never a bare "Connection error.") and retried', async () => {
    server.fallback = { raw: (res) => void res.socket?.destroy() };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /: connection failed: the server closed the connection without answering \(other side closed; UND_ERR_SOCKET\) \(after 2 retries\) from http/,
    );
    expect(err?.message).not.toMatch(/Connection error/);
    expect(server.requests).toHaveLength(3);
  });

  it("a 404 HTML page (a base_url with the wrong path) names the page's title and the settings to check, not retried", async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end(
          '<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>',
        );
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /: not found \(404\): an HTML page \("404 Not Found"\), not an API's answer; check the provider's base_url \(.*\) and its model from http/,
    );
    expect(err?.message).not.toMatch(/<html|<title/i);
    expect(server.requests).toHaveLength(1);
  });

  it('a 404 with no body says so and names the settings, never the SDK\'s "status code (no body)"', async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(404, { 'content-length': '0' });
        res.end();
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /: not found \(404\): the answer had no body; check the provider's base_url/,
    );
    expect(err?.message).not.toMatch(/status code/);
  });

  it("a 5xx keeps what the server said (a gateway's HTML page by its title) in the retries and the error", async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end(
          '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>',
        );
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.retries.map((x) => x.reason)).toEqual([
      'server error (502): an HTML page ("502 Bad Gateway"), not an API\'s answer',
      'server error (502): an HTML page ("502 Bad Gateway"), not an API\'s answer',
    ]);
    expect(err?.message).toMatch(
      /server error \(502\): an HTML page \("502 Bad Gateway"\).* \(after 2 retries\)/,
    );
    expect(server.requests).toHaveLength(3);
  });

  it('an answer past the size limit is refused with the limit, not stored whole, not retried', async () => {
    server.fallback = {
      raw: async (res) => {
        sseHead(res);
        const piece = sse(api, 'x'.repeat(64 * 1024)).split('\n\n')[api === 'openai' ? 0 : 1] + '\n\n';
        // 50 MB, written as fast as the client reads, until it goes away.
        for (let sent = 0; sent < 50 * 1024 * 1024 && !res.destroyed; sent += piece.length)
          if (!res.write(piece))
            await new Promise<void>((r) => {
              const done = () => {
                res.off('drain', done).off('close', done);
                r();
              };
              res.on('drain', done).on('close', done);
            });
        res.end();
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /answer too large: the server sent more than 8 MB for one answer \(the limit\); nothing of it was kept/,
    );
    expect(server.requests).toHaveLength(1);
  }, 60_000);

  it('a 50 MB complete JSON answer is refused at the size limit too, not retried', async () => {
    // Made once, written in pieces as the client reads (the server shares this process with the client).
    const body = Buffer.from(JSON.stringify(completeJson(api, 'y'.repeat(50 * 1024 * 1024))));
    server.fallback = {
      raw: async (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let at = 0; at < body.length && !res.destroyed; at += 1 << 20)
          if (!res.write(body.subarray(at, at + (1 << 20))))
            await new Promise<void>((r) => {
              const done = () => {
                res.off('drain', done).off('close', done);
                r();
              };
              res.on('drain', done).on('close', done);
            });
        res.end();
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /answer too large: the server sent more than 8 MB for one answer \(the limit\)/,
    );
    expect(server.requests).toHaveLength(1);
  }, 60_000);

  it('an empty 200 with no content type says so, not retried', async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(200);
        res.end();
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /unexpected answer: the server answered 200 with no content type instead of an event stream \(text\/event-stream\); it began ""/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a 307 (a redirect that keeps the POST) is named too, never followed', async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(307, { location: `${server.baseUrl}/elsewhere` });
        res.end();
      },
    };
    const err = await failure(make(api).generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /redirected: the server answered 307 to http:\/\/127\.0\.0\.1:\d+\/elsewhere;/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('https to a server with a self-signed certificate names the TLS error and is not retried', async () => {
    const err = await failure(
      make(api, { baseUrl: api === 'openai' ? `${tlsUrl}/v1` : tlsUrl }).generate({ system: 's', user: 'u' }),
    );
    expect(err?.message).toMatch(
      /TLS failed: the server's certificate is self-signed; .*\(DEPTH_ZERO_SELF_SIGNED_CERT\); the request was not retried/,
    );
    expect(err?.retries).toEqual([]);
  });

  it('https to a plain http port names the TLS error and is not retried', async () => {
    const plain = server.baseUrl.replace('http:', 'https:');
    const err = await failure(
      make(api, { baseUrl: api === 'openai' ? `${plain}/v1` : plain }).generate({ system: 's', user: 'u' }),
    );
    expect(err?.message).toMatch(/TLS failed: the server does not speak TLS on this port/);
    expect(err?.retries).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});

describe("Anthropic's overloaded_error mid-stream", () => {
  it('is an overload: retried, and the next try answers', async () => {
    server.push(
      {
        raw: (res) => {
          sseHead(res);
          const start = sse('anthropic', 'emit').split('\n\n')[0];
          res.write(`${start}\n\n`);
          res.end(
            `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
          );
        },
      },
      {
        raw: (res) => {
          sseHead(res);
          res.end(sse('anthropic', ANSWER));
        },
      },
    );
    const r = await make('anthropic').generate({ system: 's', user: 'u' });
    expect(r.text).toBe(ANSWER);
    expect(r.retries.map((x) => x.reason)).toEqual([
      'server overloaded (overloaded_error in the answer stream)',
    ]);
  });

  it('an overload on every try fails as an overload after the retries', async () => {
    server.fallback = {
      raw: (res) => {
        sseHead(res);
        res.end(
          `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
        );
      },
    };
    const err = await failure(make('anthropic').generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /^an: server overloaded \(overloaded_error in the answer stream\) \(after 2 retries\)/,
    );
    expect(server.requests).toHaveLength(3);
  });
});

describe('an OpenAI account out of credit', () => {
  it("429 insufficient_quota is not a rate limit: named, with the server's words, not retried", async () => {
    server.fallback = {
      raw: (res) => {
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              message: 'You exceeded your current quota, please check your plan and billing details.',
              type: 'insufficient_quota',
              code: 'insufficient_quota',
            },
          }),
        );
      },
    };
    const err = await failure(make('openai').generate({ system: 's', user: 'u' }));
    expect(err?.message).toMatch(
      /^oa: quota exceeded \(429\): You exceeded your current quota, please check your plan and billing details\.; the account's plan or billing must change, so the request was not retried from http/,
    );
    expect(err?.retries).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});

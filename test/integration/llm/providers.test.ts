import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError, LlmError } from '../../../src-main/core/ports/llm.ts';
import type { LlmProvider } from '../../../src-main/core/ports/llm.ts';
import { AnthropicProvider } from '../../../src-main/infra/llm/anthropic.ts';
import { OpenAiProvider } from '../../../src-main/infra/llm/openai.ts';
import { createProviders, makeProvider } from '../../../src-main/app/providers.ts';
import { parseConfig, PROVIDER_DEFAULTS } from '../../../src-main/app/config.ts';
import { parseTomlFile } from '../../../src-main/infra/workspace/files.ts';
import type { ProviderConfig } from '../../../src-main/app/config.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { repoRoot } from '../../support/workspace.ts';

let server: LlmServer;
beforeAll(async () => {
  server = await startLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const fast = { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 50 };
const makers: [string, () => LlmProvider][] = [
  [
    'openai-compatible',
    () =>
      new OpenAiProvider({
        id: 'oa',
        model: 'gpt-test',
        baseUrl: server.openaiUrl,
        apiKey: 'sk-test',
        retry: fast,
        timeoutMs: 2000,
      }),
  ],
  [
    'anthropic',
    () =>
      new AnthropicProvider({
        id: 'an',
        model: 'claude-test',
        baseUrl: server.baseUrl,
        apiKey: 'ak-test',
        retry: fast,
        timeoutMs: 2000,
      }),
  ],
];

describe.each(makers)('%s provider against a real HTTP server', (_name, make) => {
  it('streams tokens and reports text, tokens, model and latency', async () => {
    server.push({ text: '```python\nemit_result(42)\n```', promptTokens: 321, completionTokens: 12 });
    const pieces: string[] = [];
    const before = server.requests.length;
    const r = await make().generate({ system: 'sys', user: 'usr', onToken: (t) => pieces.push(t) });
    expect(r.text).toBe('```python\nemit_result(42)\n```');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(r.text);
    expect(r.promptTokens).toBe(321);
    expect(r.completionTokens).toBe(12);
    expect(r.model).toMatch(/test/);
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    expect(r.retries).toEqual([]);
    const req = server.requests[before];
    expect(JSON.stringify(req?.body)).toContain('usr');
    expect(JSON.stringify(req?.body)).toContain('sys');
  });

  it('retries 429 and 5xx with backoff and records each wait (Retry-After honoured)', async () => {
    server.push({ status: 429, retryAfter: '0' }, { status: 503 }, { text: 'ok' });
    const r = await make().generate({ system: 's', user: 'u' });
    expect(r.text).toBe('ok');
    expect(r.retries.map((x) => x.reason)).toEqual([
      'rate limited (429)',
      'server error (503): scripted error 503',
    ]);
    expect(r.retries[0]?.waitMs).toBe(0);
  });

  it('gives up after the retry budget with a clear error carrying the retries', async () => {
    server.push({ status: 500 }, { status: 500 }, { status: 500 });
    const err = await make()
      .generate({ system: 's', user: 'u' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).message).toMatch(/server error \(500\): scripted error 500 \(after 2 retries\)/);
    expect((err as LlmError).retries).toHaveLength(2);
  });

  it('does not retry a 400 and says why', async () => {
    server.push({ status: 400, text: 'bad model name' });
    const n = server.requests.length;
    const err = (await make()
      .generate({ system: 's', user: 'u' })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.message).toMatch(/request refused \(400\)/);
    // The status once (the SDK's message starts with it too).
    expect(err.message).not.toMatch(/\b400 400\b|\(400\): 400\b/);
    expect(err.message).toContain('bad model name');
    expect(server.requests.length - n).toBe(1);
  });

  it('reports malformed output as such', async () => {
    server.push({ malformed: true });
    const err = (await make()
      .generate({ system: 's', user: 'u' })
      .catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.message).toMatch(/oa|an/);
  });

  it('times out a slow answer and retries it', async () => {
    server.push({ delayMs: 3000, text: 'late' }, { text: 'in time' });
    const r = await make().generate({ system: 's', user: 'u' });
    expect(r.text).toBe('in time');
    expect(r.retries[0]?.reason).toMatch(/timed out/);
  }, 20_000);

  it('can be cancelled mid-stream', async () => {
    server.push({ text: 'x'.repeat(400), streamDelayMs: 50 });
    const ac = new AbortController();
    const p = make().generate({ system: 's', user: 'u', signal: ac.signal, onToken: () => ac.abort() });
    await expect(p).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('a provider whose api_key_env is not set', () => {
  const config = (kind: 'openai' | 'anthropic'): ProviderConfig => ({
    ...PROVIDER_DEFAULTS,
    id: 'local',
    kind,
    base_url: kind === 'openai' ? server.openaiUrl : server.baseUrl,
    model: 'm',
    api_key_env: 'TS_TEST_KEY_NOT_SET',
  });

  it.each(['openai', 'anthropic'] as const)(
    '%s: refused for its credentials, the error names the unset variable (no key was sent)',
    async (kind) => {
      server.push({ status: 401, text: 'Incorrect API key provided' });
      const err = (await makeProvider(config(kind), undefined)
        .generate({ system: 's', user: 'u' })
        .catch((e: unknown) => e)) as LlmError;
      expect(err.message).toMatch(/request refused \(401\)/);
      expect(err.message).toMatch(
        /no API key was sent: \$TS_TEST_KEY_NOT_SET \(api_key_env\) is not set in this environment$/,
      );
      // With the key set, a 401 is the key's own fault: nothing about the variable.
      server.push({ status: 401, text: 'Incorrect API key provided' });
      const withKey = (await makeProvider(config(kind), 'sk-wrong-key-123')
        .generate({ system: 's', user: 'u' })
        .catch((e: unknown) => e)) as LlmError;
      expect(withKey.message).toMatch(/request refused \(401\)/);
      expect(withKey.message).not.toMatch(/api_key_env/);
    },
  );
});

describe("the sample workspace's local provider (Ollama: no key)", () => {
  /** The sample's config as shipped, its provider pointed at the scripted server. */
  function sampleConfig() {
    const file = join(repoRoot, 'resources/workspace/.toolsmith/config.toml');
    const text = readFileSync(file, 'utf8').replace(
      'base_url = "http://127.0.0.1:11434/v1"',
      `base_url = "${server.openaiUrl}"`,
    );
    return parseConfig(parseTomlFile(file, text), file, text);
  }
  /** A person's OpenAI key in the environment, as on a machine that also uses OpenAI. */
  const personal = 'sk-person-openai-key-0123456789';
  beforeEach(() => {
    process.env['OPENAI_API_KEY'] = personal;
    return () => void delete process.env['OPENAI_API_KEY'];
  });

  it('names no key variable, and its requests carry no key of the person (the OpenAI one least)', async () => {
    const config = sampleConfig();
    const local = config.providers.find((p) => p.id === 'local');
    expect(local?.base_url).toBe(server.openaiUrl);
    expect(local?.api_key_env).toBeUndefined();
    server.push('```python\nemit_result(1)\n```');
    const [llm] = createProviders(config);
    const r = await llm!.generate({ system: 's', user: 'u' });
    expect(r.text).toContain('emit_result(1)');
    expect(JSON.stringify(server.requests.at(-1)?.headers)).not.toContain(personal);
  });

  it('a server that asks for a key (401): the error names the provider and api_key_env, the setting to add', async () => {
    server.push({ status: 401, text: 'this server needs an API key' });
    const [llm] = createProviders(sampleConfig());
    const err = (await llm!.generate({ system: 's', user: 'u' }).catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.message).toMatch(/request refused \(401\): this server needs an API key/);
    expect(err.message).toMatch(
      /no API key was sent: provider local names no api_key_env; this server asks for a key: add api_key_env = "NAME" to its \[\[providers\]\] table in \.toolsmith\/config\.toml and set the environment variable NAME to the key/,
    );
    // Never the person's OpenAI variable, which has nothing to do with this server.
    expect(err.message).not.toMatch(/OPENAI_API_KEY/);
  });

  it('--base-url to a server that asks for a key (401): the error says how to send one, not a table that does not exist', async () => {
    server.push({ status: 401, text: 'this server needs an API key' });
    // `run --base-url URL --model m`: provider "cli", which no [[providers]] table declares.
    const [llm] = createProviders(sampleConfig(), { baseUrl: server.openaiUrl, model: 'm' });
    const err = (await llm!.generate({ system: 's', user: 'u' }).catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.message).toMatch(/request refused \(401\): this server needs an API key/);
    expect(err.message).toContain(
      `no API key was sent: --base-url sends none; this server asks for a key: add a [[providers]] table for it to .toolsmith/config.toml (id = "NAME", base_url = "${server.openaiUrl}", model, api_key_env = "VAR"), set the environment variable VAR to the key and run with --provider NAME`,
    );
    expect(err.message).not.toMatch(/provider cli names no api_key_env|to its \[\[providers\]\] table/);
  });
});

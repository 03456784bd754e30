/**
 * Keys as an attacker sees them: a stored key must go only to the endpoint it was saved for (a test with
 * another base URL, an edited URL, a `--base-url` override), and a key echoed back by an endpoint (in a
 * 401 body, in a completion) must never reach the run store, an export, the log or the CLI's output.
 * Real loopback LLM servers, a real CLI process, real SQLite and real containers.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { ApiResult, Method, Response } from '../../../src-main/contract/api.ts';
import { forgetDownEndpoints } from '../../../src-main/infra/llm/reachability.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer, RecordedRequest } from '../../support/llm-server.ts';
import { removeWorkspace, tempWorkspace, withProviderLines } from '../../support/workspace.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';

const STORED = 'sk-stored-7d1e0b5a9c3f4e21';
const ENV_KEY = 'sk-env-0a9b8c7d6e5f4a3b';

let home: LlmServer;
let evil: LlmServer;
let ws: string;
let svc: ToolsmithService;

async function call<M extends Method>(m: M, req: unknown): Promise<Response<M>> {
  const r = (await dispatch(svc, m, req)) as ApiResult<M>;
  if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
  return r.value;
}

const auth = (r: RecordedRequest) => String(r.headers['authorization'] ?? r.headers['x-api-key'] ?? '');
const sawKey = (s: LlmServer) => s.requests.some((r) => auth(r).includes('sk-'));

const cli = (args: string[]) => runToolsmith(ws, args, { TS_TEST_KEY: ENV_KEY });

/** Every byte under .toolsmith (runs.db, its WAL, logs), as text. */
function everythingStored(): string {
  const dir = join(ws, '.toolsmith');
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : [readFileSync(join(d, e.name)).toString('latin1')],
    );
  return existsSync(dir) ? walk(dir).join('\n') : '';
}

beforeAll(async () => {
  process.env['TS_TEST_KEY'] = ENV_KEY;
  home = await startLlmServer();
  evil = await startLlmServer();
  ws = tempWorkspace('toolsmith-keys-');
  const cfg = join(ws, '.toolsmith', 'config.toml');
  writeFileSync(
    cfg,
    withProviderLines(
      readFileSync(cfg, 'utf8').replace(
        'base_url = "http://127.0.0.1:11434/v1"',
        `base_url = "${home.openaiUrl}"`,
      ),
      'api_key_env = "TS_TEST_KEY"',
    ),
  );
  svc = ToolsmithService.open(ws);
  await call('providers.save', {
    id: 'stored',
    kind: 'openai',
    baseUrl: home.openaiUrl,
    model: 'm',
    apiKey: STORED,
  });
}, 30_000);
afterAll(async () => {
  await svc.close();
  await home.close();
  await evil.close();
  removeWorkspace(ws);
});
beforeEach(() => {
  home.reset();
  evil.reset();
  forgetDownEndpoints();
});

describe('a stored key goes only to the endpoint it was saved for', () => {
  it('providers.test with a saved id and another baseUrl sends no key there and says why', async () => {
    evil.push('OK');
    const r = await call('providers.test', { id: 'stored', baseUrl: evil.openaiUrl });
    expect(sawKey(evil)).toBe(false);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/saved for .*give the key again/);
    // The same provider on its own URL still gets its key.
    home.push('OK');
    expect((await call('providers.test', { id: 'stored' })).ok).toBe(true);
    expect(auth(home.requests.at(-1) as RecordedRequest)).toBe(`Bearer ${STORED}`);
  });

  it('providers.test with another kind (hence the vendor URL) does not carry the key either', async () => {
    const r = await call('providers.test', { id: 'stored', kind: 'anthropic', model: 'm' });
    expect(r.ok).toBe(false);
  });

  it('an env key goes only to the URL the config gives its provider', async () => {
    evil.push('OK');
    const r = await call('providers.test', { id: 'local', baseUrl: evil.openaiUrl });
    expect(sawKey(evil)).toBe(false);
    expect(r.error).toMatch(/TS_TEST_KEY goes only to/);
  });

  it('providers.save moving a keyed provider to another URL without the key is refused; the file keeps the old URL', async () => {
    await expect(
      call('providers.save', { id: 'stored', kind: 'openai', baseUrl: evil.openaiUrl, model: 'm' }),
    ).rejects.toThrow(/enter the key again/);
    expect(svc.config.providers.find((p) => p.id === 'stored')?.base_url).toBe(home.openaiUrl);
    evil.push('OK');
    await call('providers.test', { id: 'stored' });
    expect(sawKey(evil)).toBe(false);
  });

  it('a rename keeps the key on the same URL; a new key for a new URL is bound to that URL', async () => {
    await call('providers.save', {
      previousId: 'stored',
      id: 'stored2',
      kind: 'openai',
      baseUrl: home.openaiUrl,
      model: 'm',
    });
    expect(svc.providerKeys.keyFor('stored2', home.openaiUrl)).toBe(STORED);
    await call('providers.save', {
      previousId: 'stored2',
      id: 'stored',
      kind: 'openai',
      baseUrl: home.openaiUrl,
      model: 'm',
    });
    expect((await call('settings.get', {})).providers.find((p) => p.id === 'stored')?.keySource).toBe(
      'memory',
    );
  });

  it('the workbench cannot point a set environment variable at a new URL (provider key or MCP header)', async () => {
    await expect(
      call('providers.save', {
        id: 'exfil',
        kind: 'openai',
        baseUrl: evil.openaiUrl,
        model: 'm',
        apiKeyEnv: 'TS_TEST_KEY',
      }),
    ).rejects.toThrow(/TS_TEST_KEY is set in this process and is not configured for/);
    await expect(
      call('mcp.save', { name: 'exfil', url: evil.openaiUrl, headers: { Authorization: 'env:TS_TEST_KEY' } }),
    ).rejects.toThrow(/would send \$TS_TEST_KEY/);
    const text = readFileSync(join(ws, '.toolsmith', 'config.toml'), 'utf8');
    expect(text).not.toContain('exfil');
    evil.push('OK');
    await call('providers.test', { id: 'exfil' }).catch(() => undefined);
    expect(sawKey(evil)).toBe(false);
  });

  it('CLI run --provider with --base-url elsewhere: the env key is not sent, the error says why', async () => {
    evil.fallback = { text: '```python\nemit_result(1)\n```' };
    const r = await cli([
      'run',
      'anything at all',
      '--sandbox',
      'ecommerce',
      '--provider',
      'local',
      '--base-url',
      evil.openaiUrl,
      '--model',
      'm',
      '--no-templates',
    ]);
    expect(sawKey(evil)).toBe(false);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/goes only to .*not --base-url/);
  }, 60_000);
});

describe('a key echoed by an endpoint is never stored, exported, logged or printed', () => {
  it('401 body and 200 completion echoing the Authorization header', async () => {
    let n = 0;
    home.responder = (req) =>
      n++ === 0
        ? { status: 401, text: `invalid key: ${auth(req)}` }
        : { text: `\`\`\`python\nemit_result("${auth(req)}")\n\`\`\`` };
    const refused = await cli(['run', 'echo one', '--sandbox', 'ecommerce', '--no-templates', '--json']);
    expect(home.requests.length).toBeGreaterThan(0);
    expect(auth(home.requests[0] as RecordedRequest)).toBe(`Bearer ${ENV_KEY}`); // the key was sent...
    expect(refused.out + refused.err).toMatch(/401/);
    expect(refused.out + refused.err).not.toContain(ENV_KEY); // ...and never printed
    const echoed = await cli(['run', 'echo two', '--sandbox', 'ecommerce', '--no-templates', '--json']);
    expect(echoed.out + echoed.err).toContain('[redacted]');
    expect(echoed.out + echoed.err).not.toContain(ENV_KEY);
    const ids = [refused.out, echoed.out].map((o) => (JSON.parse(o) as { id: string }).id);
    for (const id of ids) {
      const exported = await cli(['runs', 'export', id]);
      expect(exported.code).toBe(0);
      expect(exported.out).toContain('[redacted]');
      expect(exported.out).not.toContain(ENV_KEY);
    }
    const stored = everythingStored();
    expect(stored).toContain('[redacted]');
    expect(stored).not.toContain(ENV_KEY);
    expect(stored).not.toContain(ENV_KEY.slice(3)); // nor a part of it
  }, 180_000);

  it('a key set at run time and echoed back is redacted in the store and the test result', async () => {
    home.responder = (req) => ({ status: 401, text: `bad: ${auth(req)}` });
    const r = await call('providers.test', { id: 'stored' });
    expect(r.ok).toBe(false);
    expect(r.error).toContain('[redacted]');
    expect(r.error).not.toContain(STORED);
  });
});

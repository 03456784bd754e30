/**
 * Setup through the contract, as the workbench does it: providers saved, tested and removed (the config
 * file rewritten and used without a restart), a dead endpoint failing fast with its URL named,
 * sandboxes created, workspaces created and switched through the browser front end.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { ApiResult, Method, Response } from '../../../src-main/contract/api.ts';
import { LlmError } from '../../../src-main/core/ports/llm.ts';
import { forgetDownEndpoints } from '../../../src-main/infra/llm/reachability.ts';
import { OpenAiProvider } from '../../../src-main/infra/llm/openai.ts';
import { startWebServer } from '../../../src-main/web/server.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
let ws: string;
let svc: ToolsmithService;
let deadUrl: string;
const home = mkdtempSync(join(tmpdir(), 'toolsmith-home-'));

/** A port nothing listens on (bound, then closed). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function call<M extends Method>(m: M, req: unknown, s = svc): Promise<Response<M>> {
  const r = (await dispatch(s, m, req)) as ApiResult<M>;
  if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
  return r.value;
}

beforeAll(async () => {
  process.env['TOOLSMITH_HOME'] = home;
  llm = await startLlmServer();
  deadUrl = `http://127.0.0.1:${await freePort()}/v1`;
  ws = tempWorkspace('toolsmith-setup-');
  svc = ToolsmithService.open(ws);
});
afterAll(async () => {
  await svc.close();
  await llm.close();
  removeWorkspace(ws);
  removeWorkspace(home);
});
beforeEach(() => {
  llm.reset();
  forgetDownEndpoints();
});

describe('providers from the workbench', () => {
  it('adds a provider: written to config.toml, listed at once, key kept out of the file', async () => {
    const saved = await call('providers.save', {
      id: 'scripted',
      kind: 'openai',
      baseUrl: llm.openaiUrl + '/',
      model: 'scripted-coder',
      apiKeyEnv: 'SCRIPTED_KEY',
      apiKey: 'sk-secret-1',
    });
    expect(saved).toEqual({ id: 'scripted', keyStored: 'memory' });
    const text = readFileSync(join(ws, '.toolsmith', 'config.toml'), 'utf8');
    expect(text).not.toContain('sk-secret-1');
    expect(text).toContain('# LLM providers, tried in order'); // the user's comments stay
    const onDisk = (parse(text) as { providers: { id: string; base_url?: string }[] }).providers;
    expect(onDisk.map((p) => p.id)).toEqual(['local', 'scripted']);
    expect(onDisk[1]?.base_url).toBe(llm.openaiUrl); // trailing slash trimmed
    const settings = await call('settings.get', {});
    expect(settings.providers.find((p) => p.id === 'scripted')).toMatchObject({
      kind: 'openai',
      model: 'scripted-coder',
      baseUrl: llm.openaiUrl,
      apiKeyEnv: 'SCRIPTED_KEY',
      keySource: 'memory',
    });
  });

  it('"test connection" against the scripted server: a real completion, the key sent, the URL named', async () => {
    llm.push('OK');
    const r = await call('providers.test', { id: 'scripted' });
    expect(r).toMatchObject({ ok: true, url: llm.openaiUrl, reply: 'OK' });
    expect(llm.requests.at(-1)?.headers['authorization']).toBe('Bearer sk-secret-1');
  });

  it('"test connection" answered with a refusal: the connection works, and the reply says what came', async () => {
    llm.push({
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            model: 'x',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: null, refusal: 'No.' },
                finish_reason: 'stop',
              },
            ],
          }),
        );
      },
    });
    const r = await call('providers.test', { kind: 'openai', baseUrl: llm.openaiUrl, model: 'x' });
    // Before: "unexpected answer: the server answered 200 with application/json ..." (content null).
    expect(r).toMatchObject({ ok: true, reply: '(no text: the model refused ("No."))' });
  });

  it('"test connection" on a dead URL fails fast and names the URL and the failure', async () => {
    const r = await call('providers.test', { kind: 'openai', baseUrl: deadUrl, model: 'x' });
    expect(r.ok).toBe(false);
    expect(r.url).toBe(deadUrl);
    expect(r.error).toContain(deadUrl);
    expect(r.error).toMatch(/connection refused/);
  });

  it('an HTTP error from a live server is reported with the URL too', async () => {
    llm.push({ status: 401, text: 'bad key' });
    const r = await call('providers.test', { kind: 'openai', baseUrl: llm.openaiUrl, model: 'x' });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/request refused \(401\)/);
    expect(r.error).toContain(llm.openaiUrl);
  });

  it('edits (renames) and removes a provider; the next run uses the new config without a restart', async () => {
    await call('providers.save', {
      previousId: 'scripted',
      id: 'scripted2',
      kind: 'openai',
      baseUrl: llm.openaiUrl,
      model: 'other-model',
    });
    expect(svc.config.providers.map((p) => [p.id, p.model])).toEqual([
      ['local', 'qwen2.5-coder:7b'],
      ['scripted2', 'other-model'],
    ]);
    // The key moved with the rename.
    expect(svc.providerKeys.entry('scripted2')?.key).toBe('sk-secret-1');
    await call('providers.remove', { id: 'local' });
    expect(svc.config.providers.map((p) => p.id)).toEqual(['scripted2']);
    const onDisk = parse(readFileSync(join(ws, '.toolsmith', 'config.toml'), 'utf8')) as {
      providers: { id: string }[];
    };
    expect(onDisk.providers.map((p) => p.id)).toEqual(['scripted2']);
  });

  it('refuses bad input with clear errors', async () => {
    await expect(call('providers.save', { id: 'a b', kind: 'openai', model: 'm' })).rejects.toThrow(/id/);
    await expect(
      call('providers.save', { id: 'x', kind: 'openai', model: 'm', baseUrl: 'not a url' }),
    ).rejects.toThrow(/baseUrl/);
    await expect(call('providers.remove', { id: 'ghost' })).rejects.toThrow(/no provider ghost/);
    await expect(
      call('providers.save', { id: 'scripted2', kind: 'openai', model: 'm', previousId: 'ghost' }),
    ).rejects.toThrow(/no provider ghost/);
    // The Add form with an id that exists: refused, the existing provider untouched (it was replaced).
    const before = svc.config.providers.map((p) => [p.id, p.model]);
    await expect(
      call('providers.save', { id: 'scripted2', kind: 'openai', model: 'other', add: true }),
    ).rejects.toThrow(
      /a provider scripted2 already exists: edit it in the table, or give the new one another id/,
    );
    expect(svc.config.providers.map((p) => [p.id, p.model])).toEqual(before);
  });
});

describe('an unreachable provider is skipped quickly', () => {
  it('connection refused: no retries, the URL named, then remembered as down', async () => {
    const p = new OpenAiProvider({ id: 'dead', model: 'm', baseUrl: deadUrl });
    const e1 = await p.generate({ system: 's', user: 'u' }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(LlmError);
    expect((e1 as LlmError).message).toContain(deadUrl);
    expect((e1 as LlmError).message).toMatch(
      /dead: connection failed: cannot connect to .*connection refused/,
    );
    expect((e1 as LlmError).retries).toEqual([]);
    const e2 = await p.generate({ system: 's', user: 'u' }).catch((e: unknown) => e);
    expect((e2 as LlmError).message).toMatch(/skipped \(marked down, tried again in \d+ s\)/);
  });

  it('a run whose only provider is a dead default fails at once (no retry waits), naming the URL', async () => {
    const file = join(ws, '.toolsmith', 'config.toml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/base_url = "[^"]*"/, `base_url = "${deadUrl}"`));
    svc.workspace.reload();
    const runsSvc = ToolsmithService.open(ws, {
      sandboxFactory: async (s) =>
        (await import('../../../src-main/app/sandbox-factory.ts')).createSandboxManager(s),
      oneShot: true,
    });
    try {
      const runs = await runsSvc.runs();
      const { createProviders } = await import('../../../src-main/app/providers.ts');
      const outcome = await (
        await runs.start({
          task: 'count the orders',
          sandbox: 'ecommerce',
          providers: createProviders(runsSvc.config),
          noTemplates: true,
        })
      ).done;
      expect(outcome.status).toBe('failed');
      expect(outcome.error).toContain(deadUrl);
    } finally {
      await runsSvc.close();
    }
  });
});

describe('sandboxes and workspaces from the workbench', () => {
  it('creates a sandbox: folder, tools.py skeleton with a working tool, config entry', async () => {
    const r = await call('sandboxes.create', { name: 'billing', runtime: 'python', description: 'Invoices' });
    expect(r.file).toBe(join(ws, 'sandboxes', 'billing', 'tools.py'));
    const list = await call('sandboxes.list', {});
    expect(list.find((s) => s.name === 'billing')).toEqual({
      name: 'billing',
      description: 'Invoices',
      tools: 1,
      problems: 0,
    });
    const tools = await call('tools.list', { sandbox: 'billing' });
    expect(tools.tools.map((t) => t.name)).toEqual(['echo']);
    expect(tools.source).toContain('"""Invoices"""');
    await expect(
      call('sandboxes.create', { name: 'billing', runtime: 'python', description: '' }),
    ).rejects.toThrow(/already exists/);
    await expect(call('sandboxes.create', { name: 'x', runtime: 'deno', description: '' })).rejects.toThrow(
      /runtime 'deno' is not enabled; available: python, node \(turn it on with "enabled = true" under \[runtimes\.deno\] in \.toolsmith\/config\.toml\)/,
    );
  });

  it('a front end without workspace switching (CLI, MCP) refuses workspace.open', async () => {
    const r = await dispatch(svc, 'workspace.open', { path: ws });
    expect(r).toMatchObject({ ok: false, error: { code: 'refused' } });
  });

  it('the browser front end creates a workspace, switches to it, lists it as recent and switches back', async () => {
    const first = ToolsmithService.open(ws);
    const web = await startWebServer(first, {});
    const origin = `http://127.0.0.1:${web.port}`;
    const api = async (m: string, body: unknown) =>
      (await (
        await fetch(`${origin}/api/${m}`, {
          method: 'POST',
          headers: { origin, authorization: `Bearer ${web.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as {
        ok: boolean;
        value?: Record<string, unknown>;
        error?: { code: string; message: string };
      };
    const fresh = join(mkdtempSync(join(tmpdir(), 'toolsmith-new-')), 'my tools');
    try {
      const created = await api('workspace.init', { path: fresh, empty: true });
      expect(created).toMatchObject({ ok: true, value: { workspace: fresh, name: 'my tools' } });
      expect(web.service().workspaceDir).toBe(fresh);
      expect((await api('sandboxes.list', {})).value).toEqual([]);
      const recent = await api('workspace.recent', {});
      expect(recent.value).toMatchObject({ current: fresh, canOpen: true, canChoose: false });
      const opened = await api('workspace.open', { path: ws });
      expect(opened).toMatchObject({ ok: true, value: { workspace: ws } });
      expect(
        ((await api('sandboxes.list', {})).value as unknown as { name: string }[]).map((s) => s.name),
      ).toContain('ecommerce');
      expect(
        ((await api('workspace.recent', {})).value as { recent: { path: string }[] }).recent[0]?.path,
      ).toBe(fresh);
      const notWs = await api('workspace.open', { path: tmpdir() });
      expect(notWs.error?.message).toMatch(/is not a Toolsmith workspace/);
      const relative = await api('workspace.open', { path: 'some/where' });
      expect(relative.error?.message).toMatch(/absolute path/);
      const again = await api('workspace.init', { path: fresh });
      expect(again.error?.message).toMatch(/already a workspace/);
      expect(await api('workspace.choose', {})).toMatchObject({ ok: false, error: { code: 'refused' } });
    } finally {
      await web.close();
      await first.close();
      removeWorkspace(join(fresh, '..'));
    }
  });
});

/**
 * The service modules behind the thin handlers (tools-service, kits-service, settings, system), on real
 * files in a temp copy of the sample workspace, and the front ends that share them (handler table, CLI).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithError } from '../../../src-main/app/errors.ts';
import type { ErrorCode as AppErrorCode } from '../../../src-main/app/errors.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { SandboxManager } from '../../../src-main/app/sandbox.ts';
import { ERROR_CODES, requests } from '../../../src-main/contract/api.ts';
import type {
  ApiError,
  ErrorCode,
  PushEvent,
  Response,
  RunSummaryView,
} from '../../../src-main/contract/api.ts';
import { RUN_MODES, RUN_STATUSES, TIERS } from '../../../src-main/core/records/events.ts';
import type { RunSummary } from '../../../src-main/core/records/summary.ts';
import type { RunSummary as StoreRunSummary } from '../../../src-main/infra/store/run-store.ts';
import { removeWorkspace, tempWorkspace, withProviderLines } from '../../support/workspace.ts';
import { cli } from '../../support/cli.ts';

const workspaces: string[] = [];
const services: ToolsmithService[] = [];
afterAll(async () => {
  await Promise.all(services.map((s) => s.close()));
  workspaces.forEach(removeWorkspace);
});

function open(
  options: Parameters<typeof ToolsmithService.open>[1] = {},
  prepare: (ws: string) => void = () => {},
): ToolsmithService {
  const ws = tempWorkspace();
  workspaces.push(ws);
  prepare(ws);
  const svc = ToolsmithService.open(ws, options);
  services.push(svc);
  return svc;
}

async function rejection(p: unknown): Promise<ToolsmithError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ToolsmithError) return e;
    throw e;
  }
  throw new Error('expected a ToolsmithError');
}

const WIPE =
  '\n\n@tool(grade=(2, 2))\ndef wipe() -> ToolResponse:\n    """Irreversible."""\n    return ToolResponse(success=True)\n';

/** A sandbox manager that records what it is asked (no engine). */
function fakeManager(build: (runtime: string, onProgress: (l: string) => void) => Promise<{ tag: string }>) {
  const calls: string[] = [];
  const manager = {
    executor: { execute: () => Promise.reject(new Error('not used')) },
    callTool: (sandbox: string, tool: string) => {
      calls.push(`call ${sandbox}.${tool}`);
      return Promise.resolve({
        response: { success: true, data: 1 },
        result: { success: true } as never,
      });
    },
    status: () => Promise.reject(new Error('not used')),
    buildImage: (runtime: string, onProgress: (l: string) => void) => build(runtime, onProgress),
    reload: (sandbox: string) => {
      calls.push(`reload ${sandbox}`);
      return Promise.resolve();
    },
    dispose: () => Promise.resolve(),
  } as unknown as SandboxManager;
  return { manager, calls };
}

describe('tools-service', () => {
  it('lists a sandbox with its source, manual and OpenAI schemas', () => {
    const svc = open();
    const v = svc.tools.list('ecommerce');
    expect(v.sandbox).toBe('ecommerce');
    expect(v.source).toBe(readFileSync(svc.files.toolsFile('ecommerce'), 'utf8'));
    expect(v.tools.map((t) => t.name)).toContain('get_orders');
    expect(v.openai).toHaveLength(v.tools.length);
    expect(v.prompt).toContain('get_orders');
    expect(() => svc.tools.list('nope')).toThrow(ToolsmithError);
  });

  it('saves tools.py, sees the new tool at once and reloads the sandbox workers', async () => {
    const { manager, calls } = fakeManager(() => Promise.reject(new Error('not used')));
    const svc = open({ sandboxFactory: () => Promise.resolve(manager) });
    const file = svc.files.toolsFile('ecommerce');
    const source = readFileSync(file, 'utf8') + WIPE;
    const saved = await svc.tools.save('ecommerce', source);
    expect(readFileSync(file, 'utf8')).toBe(source);
    expect(saved.tools.map((t) => t.name)).toContain('wipe');
    expect(saved).not.toHaveProperty('source');
    expect(calls).toEqual(['reload ecommerce']);
    expect((await rejection(svc.tools.save('nope', source))).code).toBe('not_found');
  });

  it('saves without a sandbox backend too', async () => {
    const svc = open();
    const r = await dispatch(svc, 'tools.save', {
      sandbox: 'support',
      source: readFileSync(svc.files.toolsFile('support'), 'utf8'),
    });
    expect(r.ok).toBe(true);
  });

  it('calls a tool: refused above the maximum grade, not found, an infra result without a backend', async () => {
    const svc = open();
    await svc.tools.save('ecommerce', readFileSync(svc.files.toolsFile('ecommerce'), 'utf8') + WIPE);
    expect((await rejection(svc.tools.call('ecommerce', 'wipe', {}))).code).toBe('refused');
    expect((await rejection(svc.tools.call('ecommerce', 'nope', {}))).code).toBe('not_found');
    const r = await svc.tools.call('ecommerce', 'get_orders', {});
    expect(r.response).toBeUndefined();
    expect(r.result).toMatchObject({ success: false, exitReason: 'infra' });

    const { manager, calls } = fakeManager(() => Promise.reject(new Error('not used')));
    const backed = open({ sandboxFactory: () => Promise.resolve(manager) });
    expect((await backed.tools.call('ecommerce', 'get_orders', {})).response).toEqual({
      success: true,
      data: 1,
    });
    expect(calls).toEqual(['call ecommerce.get_orders']);
  });
});

describe('kits-service: one overwrite rule', () => {
  const def = { name: 'mine', sandbox: 'ecommerce', tools: { orders: 'get_orders' } };

  it('creates a kit file, then refuses to replace it unless asked, then replaces it', () => {
    const svc = open();
    const created = svc.kits.save(def);
    expect(created.replaced).toBe(false);
    expect(created.file).toBe(join(svc.workspaceDir, 'kits/mine.kit'));
    expect(readFileSync(created.file, 'utf8')).toBe(
      'name = "mine"\nsandbox = "ecommerce"\n\n[tools]\norders = "get_orders"\n\n',
    );
    expect(created.kit.tools.map((t) => t.alias)).toEqual(['orders']);

    let refused: unknown;
    try {
      svc.kits.save({ ...def, tools: { user: 'get_user' } });
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(ToolsmithError);
    expect((refused as ToolsmithError).code).toBe('invalid_argument');
    expect((refused as ToolsmithError).details).toEqual({ exists: created.file });
    expect(readFileSync(created.file, 'utf8')).toContain('orders = "get_orders"');

    const replaced = svc.kits.save(
      { ...def, description: 'users', tools: { user: 'get_user' } },
      { overwrite: true },
    );
    expect(replaced.replaced).toBe(true);
    expect(readFileSync(created.file, 'utf8')).toBe(
      'name = "mine"\nsandbox = "ecommerce"\ndescription = "users"\n\n[tools]\nuser = "get_user"\n\n',
    );
    expect(svc.catalog.kit('mine').tools.map((t) => t.alias)).toEqual(['user']);
  });

  it('writes nothing for a bad name, an unknown tool or a grade above the maximum', async () => {
    const svc = open();
    expect(() => svc.kits.save({ ...def, name: '../evil' })).toThrow(/invalid kit name/);
    expect(existsSync(join(svc.workspaceDir, 'evil.kit'))).toBe(false);
    expect(() => svc.kits.save({ ...def, tools: { x: 'no_such_tool' } })).toThrow(ToolsmithError);
    await svc.tools.save('ecommerce', readFileSync(svc.files.toolsFile('ecommerce'), 'utf8') + WIPE);
    let e: unknown;
    try {
      svc.kits.save({ ...def, name: 'wiper', tools: { wipe: 'wipe' } });
    } catch (x) {
      e = x;
    }
    expect((e as ToolsmithError).code).toBe('refused');
    expect(existsSync(svc.files.kitFile('mine'))).toBe(false);
    expect(existsSync(svc.files.kitFile('wiper'))).toBe(false);
  });

  it('the workbench (kits.save) saves over an existing kit', async () => {
    const svc = open();
    const r = await dispatch(svc, 'kits.save', {
      name: 'orders',
      sandbox: 'ecommerce',
      tools: { orders: 'get_orders' },
    });
    expect(r).toEqual({ ok: true, value: { name: 'orders', file: svc.files.kitFile('orders') } });
    expect(readFileSync(svc.files.kitFile('orders'), 'utf8')).not.toContain('user = "get_user"');
    const list = await dispatch(svc, 'kits.list', {});
    if (!list.ok) throw new Error(list.error.message);
    const kits = list.value as Response<'kits.list'>;
    expect(kits.find((k) => k.name === 'orders')?.kit?.tools.map((t) => t.alias)).toEqual(['orders']);
  });

  it('the CLI (kit create) replaces an existing kit only with --force, and says so', async () => {
    const svc = open();
    const ws = svc.workspaceDir;
    const before = readFileSync(svc.files.kitFile('orders'), 'utf8');
    const args = [
      '--workspace',
      ws,
      'kit',
      'create',
      'orders',
      '--sandbox',
      'ecommerce',
      '--tools',
      'get_orders',
    ];
    const refused = await cli(...args);
    expect(refused.code).toBe(2);
    expect(refused.err).toBe(
      `toolsmith: kit orders exists (${svc.files.kitFile('orders')}); use --force to overwrite\n`,
    );
    expect(readFileSync(svc.files.kitFile('orders'), 'utf8')).toBe(before);
    const forced = await cli(...args, '--force');
    expect(forced.code).toBe(0);
    expect(forced.out).toBe(`replaced ${svc.files.kitFile('orders')}: grade (w=1, d=0), tools get_orders\n`);
    const created = await cli(...args.map((a) => (a === 'orders' ? 'fresh' : a)));
    expect(created.out).toMatch(/^created .*fresh\.kit: grade/);
    const traversal = await cli(...args.map((a) => (a === 'orders' ? '../evil' : a)));
    expect(traversal).toMatchObject({ code: 2, err: expect.stringMatching(/^toolsmith: invalid kit name/) });
  });
});

describe('settings', () => {
  const saved = process.env['OPENAI_API_KEY'];
  afterEach(() => {
    if (saved === undefined) delete process.env['OPENAI_API_KEY'];
    else process.env['OPENAI_API_KEY'] = saved;
  });

  it('says where each key comes from: none, the environment, then a key set at run time', () => {
    // The sample's local provider names no variable (Ollama takes no key): this one is given one.
    const svc = open({}, (ws) => {
      const file = join(ws, '.toolsmith', 'config.toml');
      writeFileSync(file, withProviderLines(readFileSync(file, 'utf8'), 'api_key_env = "OPENAI_API_KEY"'));
    });
    delete process.env['OPENAI_API_KEY'];
    const local = () => svc.settings.view().providers.find((p) => p.id === 'local')!;
    expect(local()).toEqual({
      id: 'local',
      kind: 'openai',
      model: 'qwen2.5-coder:7b',
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
      keySource: 'none',
      keyNeeded: false, // a server on this machine
    });
    const config = svc.config.providers[0]!;
    expect(svc.settings.providerKey(config)).toBeUndefined();
    process.env['OPENAI_API_KEY'] = 'from-env';
    expect(local().keySource).toBe('env');
    expect(svc.settings.providerKey(config)).toBe('from-env');
    expect(svc.settings.setProviderKey('local', 'set-now')).toEqual({ stored: true, where: 'memory' });
    expect(local().keySource).toBe('memory');
    expect(svc.settings.providerKey(config)).toBe('set-now');
    expect(svc.settings.setProviderKey('local', 'kept', () => 'keychain').where).toBe('keychain');
    expect(local().keySource).toBe('keychain');
    const s = svc.settings.view();
    expect(s.maxGrade).toEqual({ w: 2, d: 1 });
    expect(s.runtimes).toContainEqual({ id: 'bun', enabled: false });
    expect(s.pool['standby']).toBe(1);
    expect(JSON.stringify(s)).not.toContain('kept');
  });

  it('providers for a run: overrides, and not_found for an unknown provider', () => {
    const svc = open();
    expect(svc.settings.providersFor().map((p) => p.id)).toEqual(['local']);
    expect(svc.settings.providersFor({ model: 'other' })).toHaveLength(1);
    expect(() => svc.settings.providersFor({ provider: 'nope' })).toThrow(/no provider nope/);
    expect(() => svc.settings.setProviderKey('nope', 'k')).toThrow(/no provider nope/);
  });
});

describe('system', () => {
  it('status without a sandbox backend says Docker is missing and how to get it', async () => {
    const svc = open();
    const s = await svc.system.status();
    expect(s).toMatchObject({ docker: { available: false, hint: expect.stringMatching(/docker\.io/) } });
    expect(s).toMatchObject({ isolation: 'none', images: [], pools: [] });
    expect(await dispatch(svc, 'system.status', {})).toEqual({ ok: true, value: s });
  });

  it('buildImage pushes every line, then done (or the error), and gives the lines to the caller', async () => {
    let fail = false;
    const { manager } = fakeManager(async (runtime, onProgress) => {
      onProgress('step 1');
      if (fail) throw new Error('no space left');
      return { tag: `toolsmith-${runtime}:x` };
    });
    const svc = open({ sandboxFactory: () => Promise.resolve(manager) });
    const pushed: PushEvent[] = [];
    svc.onPush((e) => pushed.push(e));
    const lines: string[] = [];
    expect(await svc.system.buildImage('python', 'ecommerce', (l) => lines.push(l))).toEqual({
      tag: 'toolsmith-python:x',
    });
    expect(lines).toEqual(['step 1']);
    expect(pushed).toEqual([
      { type: 'image_progress', runtime: 'python', sandbox: 'ecommerce', line: 'step 1' },
      {
        type: 'image_progress',
        runtime: 'python',
        sandbox: 'ecommerce',
        line: 'built toolsmith-python:x',
        done: true,
      },
    ]);
    pushed.length = 0;
    fail = true;
    const r = await dispatch(svc, 'system.buildImage', { runtime: 'node' });
    expect(r).toMatchObject({ ok: false, error: { code: 'internal', message: 'no space left' } });
    expect(pushed.at(-1)).toEqual({
      type: 'image_progress',
      runtime: 'node',
      sandbox: undefined,
      line: 'build failed',
      done: true,
      error: 'no space left',
    });
  });
});

describe('shapes defined once', () => {
  it('run summaries: the store, the contract and core share one type', () => {
    expectTypeOf<RunSummaryView>().toEqualTypeOf<RunSummary>();
    expectTypeOf<StoreRunSummary>().toEqualTypeOf<RunSummary>();
    expectTypeOf<RunSummary['status']>().toEqualTypeOf<(typeof RUN_STATUSES)[number]>();
  });

  it("the contract's run filters use core's literal lists", () => {
    const shape = requests['runs.list'].shape;
    const options = (s: unknown) => (s as z.ZodOptional<z.ZodEnum>).unwrap().options;
    expect(options(shape.mode)).toEqual([...RUN_MODES]);
    expect(options(shape.tier)).toEqual([...TIERS]);
    expect((shape.status.unwrap() as z.ZodArray<z.ZodEnum>).element.options).toEqual([...RUN_STATUSES]);
  });

  it('error codes: ToolsmithError, ApiError and the list are the same', () => {
    expectTypeOf<AppErrorCode>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ApiError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ReturnType<ToolsmithError['toData']>>().toEqualTypeOf<ApiError>();
    expect(ERROR_CODES).toContain(new ToolsmithError('refused', 'x').toData().code);
  });
});

describe('the CLI without the engine it requires reads like the other front ends', () => {
  const saved = { backend: process.env['TOOLSMITH_BACKEND'], host: process.env['DOCKER_HOST'] };
  afterEach(() => {
    for (const [k, v] of [
      ['TOOLSMITH_BACKEND', saved.backend],
      ['DOCKER_HOST', saved.host],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('tool call prints the infra result, pool status says Docker is unavailable', async () => {
    const svc = open();
    process.env['TOOLSMITH_BACKEND'] = 'docker';
    process.env['DOCKER_HOST'] = 'unix:///nonexistent/docker.sock';
    const call = await cli(
      '--workspace',
      svc.workspaceDir,
      'tool',
      'call',
      'get_orders',
      '--sandbox',
      'ecommerce',
      '--json',
    );
    expect(call.code).toBe(1);
    expect(JSON.parse(call.out)).toMatchObject({
      result: { exitReason: 'infra', error: { message: expect.stringMatching(/no Docker engine answers/) } },
    });
    const status = await cli('--workspace', svc.workspaceDir, 'pool', 'status', '--json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({
      docker: { available: false, hint: expect.stringMatching(/docker\.io/) },
      pools: [],
    });
  });
});

describe('opening runs', () => {
  it('two first calls at once (no logger given: pino is loaded first) open one run service and store', async () => {
    const svc = open();
    const [a, b, t] = await Promise.all([svc.runs(), svc.runs(), svc.templates()]);
    expect(a).toBe(b);
    expect(a).toBe(await svc.runs());
    // The template service works over the same run service: a run it knows is the one listed here.
    expect(t).toBe(await svc.templates());
    expect(a.store).toBe((await svc.runs()).store);
  });
});

/**
 * `pool status` answered before main loads (src-main/cli/pool-status-early.ts) prints what main prints,
 * byte for byte, exit code included: main's answer (main() called directly, which keeps the digest the
 * early path reads) and bin/start.mjs's on the same workspace. The cases the early path answers (the
 * engine answering: plain, --json, the config's warnings with a secret in them, bun enabled, a sandbox
 * with a level of its own, a container of a running process) and those it leaves to main (--warm, a
 * leftover container, TOOLSMITH_BACKEND=process, no engine, an engine that never answers, a config
 * edited since the digest, an invalid one). And a verb against an engine that takes the connection and
 * never answers ends after its answer (it never did). Each child is a fresh Node 24. Needs Docker.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Installation } from '../../../src-main/infra/sandbox/installation.ts';
import { createPoolContainer } from './support/pool-container.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { MAIN_SOURCE, runVerb, writeMainAndProbe } from './support/main-or-start.ts';
import type { Answer } from './support/main-or-start.ts';

let dir: string;
let ws: string;
let env: NodeJS.ProcessEnv;
const SECRET = 'sk-pool-status-0123456789';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-pool-status-'));
  ws = tempWorkspace('toolsmith-pool-status-ws-');
  writeMainAndProbe(dir);
  const home = join(dir, 'home');
  env = {
    ...process.env,
    XDG_CACHE_HOME: join(dir, 'cache'),
    TOOLSMITH_HOME: home,
    TOOLSMITH_DATA_DIR: home,
    POOL_STATUS_KEY: SECRET,
    MAIN: MAIN_SOURCE,
  };
  delete env['TOOLSMITH_BACKEND'];
  delete env['DOCKER_HOST'];
  delete env['TOOLSMITH_RESOURCES'];
  // A config naming the secret's variable, and a warning that quotes the secret.
  const config = join(ws, '.toolsmith/config.toml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(
      'model = "qwen2.5-coder:7b"\n',
      'model = "qwen2.5-coder:7b"\napi_key_env = "POOL_STATUS_KEY"\n',
    ),
  );
  appendFileSync(config, `\n[approval]\nkits = ["ordrs", "${SECRET}"]\n`);
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
});

/** One verb: through main() itself, or bin/start.mjs (support/main-or-start.ts). */
const cli = (
  how: 'main' | 'start',
  args: string[],
  more: NodeJS.ProcessEnv = {},
  timeout = 150_000,
): Answer => runVerb(dir, how, args, { ...env, ...more }, timeout);

/** Times of day (the fallback's `at ...`) aside. */
const bytes = (a: Answer) => ({
  out: a.out.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>'),
  err: a.err.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>'),
  code: a.code,
});

/** main's answer, then bin/start.mjs's: the same bytes and exit code; whether main answered the second. */
function same(args: string[], more: NodeJS.ProcessEnv = {}, timeout?: number): Answer & { early: boolean } {
  const byMain = cli('main', args, more, timeout);
  const byStart = cli('start', args, more, timeout);
  expect(bytes(byStart), args.join(' ')).toEqual(bytes(byMain));
  return { ...byStart, early: !byStart.main };
}

describe('pool status before main', () => {
  it('prints what main prints with the engine answering: text and JSON, the warnings with a secret redacted', () => {
    const plain = same(['--workspace', ws, 'pool', 'status']);
    expect(plain.early).toBe(true);
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/^docker: engine \S+\nisolation: docker\nimage python: toolsmith\/python:\S+ /);
    expect(plain.out).toContain('no pool in this process\n');
    expect(plain.err).toMatch(/^toolsmith: warning: .*approval\.kits names no kit "ordrs"/m);
    expect(plain.err).toContain('[redacted]');
    expect(plain.err).not.toContain(SECRET);
    for (const args of [
      ['--workspace', ws, 'pool', 'status', '--json'],
      [`--workspace=${ws}`, 'pool', 'status'],
      ['-w', ws, 'pool', 'status', '--json', '--json'],
    ])
      expect(same(args).early, args.join(' ')).toBe(true);
    const json = JSON.parse(cli('start', ['--workspace', ws, 'pool', 'status', '--json']).out) as {
      configWarnings?: string[];
    };
    expect(json.configWarnings?.length).toBeGreaterThan(0);
  }, 300_000);

  it('with bun enabled and a sandbox of its own level, and a container of a running process', () => {
    const copy = tempWorkspace('toolsmith-pool-status-levels-');
    const data = join(dir, 'home-live');
    const installation = new Installation(data);
    installation.register();
    const made: string[] = [];
    try {
      const config = join(copy, '.toolsmith/config.toml');
      writeFileSync(
        config,
        readFileSync(config, 'utf8')
          .replace('[runtimes.bun]\nenabled = false', '[runtimes.bun]\nenabled = true')
          .replace('[sandboxes.ecommerce]\n', '[sandboxes.ecommerce]\nisolation = "gvisor"\n'),
      );
      const home = { TOOLSMITH_HOME: data, TOOLSMITH_DATA_DIR: data };
      const r = same(['--workspace', copy, 'pool', 'status'], home);
      expect(r.early).toBe(true);
      expect(r.out).toMatch(/^isolation: docker; gvisor: ecommerce$/m);
      expect(r.out).toMatch(/^image bun: /m);
      // A container of this installation made by a process that runs (this one): listed by owner.
      const tag = /^image python: (\S+) present$/m.exec(r.out)?.[1];
      expect(tag).toBeDefined();
      made.push(
        createPoolContainer(tag!, {
          installation: installation.id,
          instance: installation.instance,
          owner: process.pid,
          sandbox: 'ecommerce',
        }),
      );
      const listed = same(['--workspace', copy, 'pool', 'status'], home);
      expect(listed.early).toBe(true);
      expect(listed.out).toContain(
        `containers of this installation (every Toolsmith process): 1\n  pid ${process.pid} sandbox ecommerce: 1 container(s) (created)\n`,
      );
      // A container whose process is gone: main's sweep removes it and says so, so main answers.
      const leftover = () =>
        made.push(createPoolContainer(tag!, { installation: installation.id, instance: randomUUID() }));
      leftover();
      const byStart = cli('start', ['--workspace', copy, 'pool', 'status'], home);
      leftover();
      const byMain = cli('main', ['--workspace', copy, 'pool', 'status'], home);
      expect(byStart.main).toBe(true);
      // (main's line for the removal depends on which of its sweeps removes the container first: the
      // start's, which says so, or the worker factory's, which does not)
      const removed = /^toolsmith: removed 1 container\(s\) left by stopped Toolsmith processes.*\n/m;
      expect({ ...bytes(byStart), err: byStart.err.replace(removed, '') }).toEqual({
        ...bytes(byMain),
        err: byMain.err.replace(removed, ''),
      });
      expect(byStart.out).not.toContain('left by a stopped process');
    } finally {
      installation.unregister();
      for (const id of made) spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
      removeWorkspace(copy);
    }
  }, 300_000);

  it('leaves to main --warm, another option, TOOLSMITH_BACKEND=process, no engine, a changed or invalid config', () => {
    for (const [args, more] of [
      [['pool', 'status', '--warm', 'nosuch'], {}],
      [['pool', 'status', '--bogus'], {}],
      [['pool', 'status', '--json'], { TOOLSMITH_BACKEND: 'process' }],
      [['pool', 'status'], { TOOLSMITH_BACKEND: 'process' }],
      [['pool', 'status'], { DOCKER_HOST: `unix://${join(dir, 'no-docker.sock')}` }],
      [['pool', 'status', '--json'], { DOCKER_HOST: `unix://${join(dir, 'no-docker.sock')}` }],
    ] as const)
      expect(
        same(['--workspace', ws, ...args], more).early,
        `${args.join(' ')} ${JSON.stringify(more)}`,
      ).toBe(false);
    const copy = tempWorkspace('toolsmith-pool-status-edited-');
    try {
      const config = join(copy, '.toolsmith/config.toml');
      expect(same(['--workspace', copy, 'pool', 'status']).early).toBe(true);
      // edited since the digest: main answers (and keeps the digest again)
      appendFileSync(config, '\n[limits2]\nx = 1\n');
      const edited = cli('start', ['--workspace', copy, 'pool', 'status']);
      expect(edited.main).toBe(true);
      expect(edited.err).toMatch(/limits2 is no setting/);
      expect(same(['--workspace', copy, 'pool', 'status']).early).toBe(true);
      // an invalid config: main says it at every start
      appendFileSync(config, 'bogus = = 1\n');
      for (let i = 0; i < 2; i++) {
        const r = same(['--workspace', copy, 'pool', 'status']);
        expect(r.early).toBe(false);
        expect(r.code).toBe(3);
      }
    } finally {
      removeWorkspace(copy);
    }
  }, 600_000);
});

describe('an engine that takes the connection and never answers', () => {
  let server: Server;
  let socket: string;
  beforeAll(async () => {
    socket = join(dir, 'hung.sock');
    server = createServer(() => {}); // (takes every connection, answers nothing)
    await new Promise<void>((r) => server.listen(socket, r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('pool status (text and JSON) and runs list end after their answer, the same from bin/start.mjs as from main', () => {
    // (the service's patience for a busy engine cut to 1 s: the rule is faults/docker-slow.test.ts's)
    const hung = { DOCKER_HOST: `unix://${socket}`, TOOLSMITH_DOCKER_PATIENCE_MS: '1000' };
    for (const args of [
      ['pool', 'status'],
      ['pool', 'status', '--json'],
    ]) {
      // (it ends in ~15 s: the probe's 4 s, the sweep's and the listing's 5 s each; before, never)
      const r = same(['--workspace', ws, ...args], hung, 60_000);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
      expect(r.early).toBe(false);
      expect(r.out).toContain('took the connection but the engine did not answer its version within 4 s');
      expect(r.err).toContain('has not answered in 3 s: a busy engine; waiting up to 1 s more');
    }
    const runs = cli('start', ['--workspace', ws, 'runs', 'list'], hung, 60_000);
    expect(runs.code, runs.err).toBe(0);
  }, 600_000);
});

/**
 * `runs list` and `template list` make no container, so they do not sweep leftover containers (the
 * containers of this installation's stopped processes), through main() or before main loads
 * (bin/start.mjs, src-main/cli/store-verbs.ts): no socket to the engine, and a leftover stays for the
 * next verb that may run a sandbox, which removes it (`pool status` here, as `exec`, `run`, `serve`,
 * `mcp` would). Before, both verbs asked the engine at every start (the sweep's chunk with node:net and
 * its request, ~20 ms of CPU of a ~190 ms start: docs/scaling.md "Issue 29: runs list and template
 * list"). Each child is a fresh Node 24; needs Docker (a leftover container is made, created only).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Installation } from '../../../src-main/infra/sandbox/installation.ts';
import { createPoolContainer } from './support/pool-container.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { MAIN_SOURCE, runVerb, writeMainAndProbe } from './support/main-or-start.ts';

const node = join(repoRoot, 'node_modules/.bin/node');

let dir: string;
let ws: string;
let data: string;
let env: NodeJS.ProcessEnv;
const made: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-store-verbs-sweep-'));
  ws = tempWorkspace('toolsmith-store-verbs-sweep-ws-');
  data = join(dir, 'home');
  writeMainAndProbe(dir);
  env = {
    ...process.env,
    XDG_CACHE_HOME: join(dir, 'cache'),
    TOOLSMITH_HOME: data,
    TOOLSMITH_DATA_DIR: data,
    MAIN: MAIN_SOURCE,
  };
  delete env['TOOLSMITH_BACKEND'];
});

afterAll(() => {
  for (const id of made) spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
});

const exists = (id: string) => spawnSync('docker', ['inspect', id], { stdio: 'ignore' }).status === 0;

/** A container of this installation whose process is gone (its instance has no entry): a leftover. */
function leftover(): string {
  const tag = /^(toolsmith\/python:\S+)/m.exec(
    runVerb(dir, 'start', ['image', 'build'], env, 600_000).out,
  )?.[1];
  expect(tag).toBeDefined();
  const id = createPoolContainer(tag!, {
    installation: new Installation(data).id,
    instance: randomUUID(),
    sandbox: 'ecommerce',
  });
  made.push(id);
  return id;
}

const VERBS = [
  ['runs', 'list'],
  ['runs', 'list', '--json', '--status', 'succeeded'],
  ['template', 'list'],
  ['template', 'list', '--json'],
];

describe('runs list and template list do not sweep leftover containers', () => {
  it('leave a leftover to the next verb that may run a sandbox (pool status), which removes it', () => {
    const left = leftover();
    // main's path first (it keeps the config's digest), then bin/start.mjs's, which answers before main.
    for (const how of ['main', 'start'] as const)
      for (const args of VERBS) {
        const r = runVerb(dir, how, ['--workspace', ws, ...args], env);
        const what = `${how}: ${args.join(' ')}`;
        expect(r.code, `${what}: ${r.err}`).toBe(0);
        if (how === 'start') expect(r.main, what).toBe(false);
        expect(r.err, what).not.toContain('removed');
        expect(exists(left), what).toBe(true);
      }
    const pool = runVerb(dir, 'start', ['--workspace', ws, 'pool', 'status'], env);
    expect(pool.code, pool.err).toBe(0);
    // (removed by the start's sweep, which says so, or by the worker factory's, which does not: as in
    // pool-status-early.test.ts)
    expect(exists(left)).toBe(false);
  }, 600_000);
});

describe('runs list and template list with an engine that takes the connection and never answers', () => {
  let server: Server;
  let socket: string;
  let connections = 0;
  const held: Socket[] = [];
  beforeAll(async () => {
    socket = join(dir, 'hung.sock');
    server = createServer((s) => {
      connections++;
      held.push(s);
    });
    await new Promise<void>((r) => server.listen(socket, r));
  });
  afterAll(() => {
    for (const s of held) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });

  /** One verb in a child the test's event loop runs beside (the engine's connections are counted as they come). */
  const run = (how: 'main' | 'start', args: string[]) =>
    new Promise<{ out: string; err: string; code: number | null }>((resolve) => {
      const child = spawn(
        node,
        [
          how === 'main' ? join(dir, 'main.mjs') : join(repoRoot, 'bin/start.mjs'),
          '--workspace',
          ws,
          ...args,
        ],
        { env: { ...env, DOCKER_HOST: `unix://${socket}` }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => resolve({ out, err, code }));
    });

  it('answer without a connection to the engine, through main and before main', async () => {
    for (const how of ['main', 'start'] as const)
      for (const args of VERBS) {
        const r = await run(how, args);
        const what = `${how}: ${args.join(' ')}`;
        expect(r.code, `${what}: ${r.err}`).toBe(0);
        expect((r.out + r.err).length, what).toBeGreaterThan(0);
        // (a connection the child made is in the server's backlog by the time it has exited: taken at the
        // loop's next poll)
        await new Promise((r) => setTimeout(r, 0));
        await new Promise((r) => setImmediate(r));
        expect(connections, what).toBe(0);
      }
  }, 600_000);
});

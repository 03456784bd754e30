/**
 * SIGTERM and SIGINT end a verb that waits on a Docker engine which takes the connection and never
 * answers (a unix socket as DOCKER_HOST that accepts and says nothing): in main (`pool status`, text and
 * JSON, through main() and through bin/start.mjs, which leaves it to main; `exec`, whose own handler
 * cancels its job) with 128 + the signal's number, and before main loads (bin/start.mjs's `pool status`
 * probe, `runs list` answered early) by the signal itself. Before, main closed the service on the signal
 * and that close waited on the engine (its patience, a minute, then the pool's close): the verb went on
 * long after the signal. Each child is a fresh Node 24; the engine's patience is left at its default.
 * Needs Docker (the early `pool status` answers only after main's answered once with a real engine).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { writeMain } from './support/main-or-start.ts';

const node = join(repoRoot, 'node_modules/.bin/node');
/** Longer than the grace a signal gives the close (3 s) or a command (18 s); far less than the engine's patience. */
const ENDS_WITHIN_MS = 30_000;

let dir: string;
let ws: string;
let server: Server;
let socket: string;
/** Called at each connection the hung engine takes. */
let onConnection: () => void = () => {};
const held: Socket[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-stop-hung-'));
  ws = tempWorkspace('toolsmith-stop-hung-ws-');
  writeFileSync(join(dir, 'script.py'), 'emit_result(1)\n');
  writeMain(dir);
  // Marks, as it happens (a process ended by a signal runs no exit handler), that main's module loaded.
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import module from 'node:module';
const { writeFileSync } = process.getBuiltinModule('node:fs');
module.registerHooks({ resolve(s, c, next) { const r = next(s, c); if (r.url.endsWith('/src-main/cli/main.ts')) writeFileSync(process.env.PROBE_OUT, 'main'); return r; } });
`,
  );
  socket = join(dir, 'hung.sock');
  server = createServer((s) => {
    held.push(s);
    onConnection();
  }); // (takes every connection, answers nothing)
  await new Promise<void>((r) => server.listen(socket, r));
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
});

interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  /** Whether main's module loaded before the process ended. */
  main: boolean;
  /** Whether the process ended within ENDS_WITHIN_MS of the signal (else it was killed). */
  ended: boolean;
}

/**
 * The children's data folder: the early path's own (main's processes ended by a signal leave their
 * installation's entries, which the early path leaves to main to sweep).
 */
let home = 'home';

/** The children's environment: against the hung engine, or (`engine` false) the machine's. */
function childEnv(probe: string, hung = true): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CACHE_HOME: join(dir, 'cache'),
    TOOLSMITH_HOME: join(dir, home),
    TOOLSMITH_DATA_DIR: join(dir, home),
    MAIN: join(repoRoot, 'src-main/cli/main.ts'),
    PROBE_OUT: probe,
  };
  if (hung) env['DOCKER_HOST'] = `unix://${socket}`;
  else delete env['DOCKER_HOST'];
  delete env['TOOLSMITH_BACKEND'];
  delete env['TOOLSMITH_DOCKER_PATIENCE_MS'];
  return env;
}

/**
 * `toolsmith ARGS` through main() or bin/start.mjs against the hung engine; `sig` is sent once `when`
 * says so (given each new piece of stderr and stdout, and each connection the engine takes).
 */
function stopped(
  how: 'main' | 'start',
  args: string[],
  sig: 'SIGTERM' | 'SIGINT',
  when: (seen: { err: string; out: string; connections: number }) => boolean,
): Promise<Stopped> {
  const probe = join(dir, `probe-${Math.random().toString(36).slice(2)}`);
  const env = childEnv(probe);
  const child = spawn(
    node,
    [
      '--import',
      join(dir, 'probe.mjs'),
      how === 'main' ? join(dir, 'main.mjs') : join(repoRoot, 'bin/start.mjs'),
      '--workspace',
      ws,
      ...args,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const seen = { err: '', out: '', connections: 0 };
  let sent = false;
  let killer: ReturnType<typeof setTimeout> | undefined;
  let ended = true;
  const look = () => {
    if (sent || !when(seen)) return;
    sent = true;
    child.kill(sig);
    killer = setTimeout(() => {
      ended = false;
      child.kill('SIGKILL');
    }, ENDS_WITHIN_MS);
  };
  onConnection = () => {
    seen.connections++;
    look();
  };
  child.stderr.on('data', (d: Buffer) => {
    seen.err += d.toString();
    look();
  });
  child.stdout.on('data', (d: Buffer) => {
    seen.out += d.toString();
    look();
  });
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      onConnection = () => {};
      const main = existsSync(probe);
      rmSync(probe, { force: true });
      resolve({ code, signal, out: seen.out, err: seen.err, main, ended: ended && sent });
    });
  });
}

/** The service's line once the engine has kept it waiting 3 s (main is waiting on the engine). */
const waiting = ({ err }: { err: string }) => /has not answered in 3 s: a busy engine/.test(err);

describe('a stop signal while main waits on an engine that never answers', () => {
  for (const [how, args, sig, code] of [
    ['main', ['pool', 'status'], 'SIGTERM', 143],
    ['start', ['pool', 'status', '--json'], 'SIGTERM', 143],
    ['main', ['pool', 'status'], 'SIGINT', 130],
  ] as const)
    it(`${how === 'main' ? 'main()' : 'bin/start.mjs'} ${args.join(' ')}: ${sig} ends it, exit ${code}, saying the close was not waited for`, async () => {
      const r = await stopped(how, [...args], sig, waiting);
      // Before: it went on waiting on the engine, and was killed ENDS_WITHIN_MS after the signal.
      expect(r.ended, r.err).toBe(true);
      expect(r.main).toBe(true);
      expect(r.code, r.err).toBe(code);
      expect(r.err).toContain(
        `toolsmith: ${sig}: the close did not end within 3 s (a sandbox engine or MCP server that does not answer); exiting without it`,
      );
      expect(r.err).not.toMatch(/\n\s+at /);
    }, 120_000);

  it('exec (its handler cancels the job): SIGTERM ends it, exit 143, within the wait a command has to end', async () => {
    const r = await stopped('main', ['exec', join(dir, 'script.py')], 'SIGTERM', waiting);
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.err).toContain(
      'toolsmith: SIGTERM: the command did not end within 18 s of the signal (a sandbox engine or MCP server that does not answer); exiting without it',
    );
  }, 120_000);
});

describe('a stop signal before main loads, while the early path waits on the engine', () => {
  beforeAll(() => {
    home = 'home-early';
    // main's answers once, with the machine's engine: they keep the digests the early paths need.
    for (const args of [
      ['pool', 'status'],
      ['runs', 'list'],
    ]) {
      const r = spawnSync(node, [join(dir, 'main.mjs'), '--workspace', ws, ...args], {
        env: childEnv(join(dir, 'unused'), false),
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
    }
  }, 300_000);

  it('bin/start.mjs pool status: SIGTERM during its probe of the engine ends it (main never loads)', async () => {
    // (the first connection the engine takes is the early path's probe)
    const r = await stopped('start', ['pool', 'status'], 'SIGTERM', ({ connections }) => connections > 0);
    expect(r.ended).toBe(true);
    expect(r.main).toBe(false);
    expect(r.signal).toBe('SIGTERM');
    expect(r.out).toBe('');
  }, 120_000);

  it('bin/start.mjs runs list: answered early, then SIGINT while its sweep waits on the engine ends it', async () => {
    const r = await stopped(
      'start',
      ['runs', 'list'],
      'SIGINT',
      ({ out, connections }) => out.length > 0 && connections > 0,
    );
    expect(r.ended).toBe(true);
    expect(r.main).toBe(false);
    expect(r.out).toBe('0 of 0 run(s)\n');
    expect(r.signal).toBe('SIGINT');
  }, 120_000);
});

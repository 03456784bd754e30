/**
 * SIGTERM and SIGINT end a verb that waits on a Docker engine which takes the connection and never
 * answers (a unix socket as DOCKER_HOST that accepts and says nothing): in main (`pool status`, text and
 * JSON, through main() and through bin/start.mjs, which leaves it to main; `exec` and `run`, whose own
 * handlers cancel their job or run) with 128 + the signal's number, and before main loads
 * (bin/start.mjs's `pool status` probe) by the signal itself. (`runs list` and `template list` do not ask
 * the engine: store-verbs-sweep.test.ts.) In main, the
 * service's close ends the engine probe's wait (app/sandbox-factory.ts, "no longer waited for") and a
 * job cancelled while its backend starts ends at once (app/execution.ts `backendFor`): a run records its
 * end. Before, the close waited on the probe until the 3 s grace ran out ("the close did not end within
 * 3 s"), and `exec` and `run` waited on it until the command's bound (18 s) ended the process, the run
 * left `running` (then `interrupted`). Each child is a fresh Node 24; the engine's patience is left at
 * its default. Needs Docker (the early `pool status` answers only after main's answered once with a
 * real engine).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { repoRoot, removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { writeMain } from './support/main-or-start.ts';
import { runOneArgs, stopOnce } from './support/stop-child.ts';

const node = join(repoRoot, 'node_modules/.bin/node');
/** Longer than the grace a signal gives the close (3 s) or a command (18 s); far less than the engine's patience. */
const ENDS_WITHIN_MS = 30_000;

let dir: string;
let ws: string;
/** The workspace of the `run` case (its run stays in its store, apart from the other cases' workspace). */
let runWs: string;
let server: Server;
let llm: LlmServer;
let socket: string;
/** Called at each connection the hung engine takes. */
let onConnection: () => void = () => {};
const held: Socket[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-stop-hung-'));
  ws = tempWorkspace('toolsmith-stop-hung-ws-');
  runWs = tempWorkspace('toolsmith-stop-hung-run-');
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
  llm = await startLlmServer();
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
  removeWorkspace(runWs);
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
 * The children's data folder: the early path's own (made by main's answers with the machine's engine).
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
  workspace = ws,
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
      workspace,
      ...args,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const seen = { err: '', out: '', connections: 0 };
  const stop = stopOnce(child, sig, () => when(seen), { endsWithinMs: ENDS_WITHIN_MS });
  onConnection = () => {
    seen.connections++;
    stop.look();
  };
  child.stderr.on('data', (d: Buffer) => {
    seen.err += d.toString();
    stop.look();
  });
  child.stdout.on('data', (d: Buffer) => {
    seen.out += d.toString();
    stop.look();
  });
  return stop.exited.then(({ code, signal, ended }) => {
    onConnection = () => {};
    const main = existsSync(probe);
    rmSync(probe, { force: true });
    return { code, signal, out: seen.out, err: seen.err, main, ended };
  });
}

/** The service's line once the engine has kept it waiting 3 s (main is waiting on the engine). */
const waiting = ({ err }: { err: string }) => /has not answered in 3 s: a busy engine/.test(err);

/** What the engine probe says when the service's close ends its wait (app/sandbox-factory.ts). */
const NOT_WAITED =
  /toolsmith: the Docker engine \(unix:\/\/.*hung\.sock\) had not answered when the service began to close: no longer waited for\n/;

describe('a stop signal while main waits on an engine that never answers', () => {
  for (const [how, args, sig, code] of [
    ['main', ['pool', 'status'], 'SIGTERM', 143],
    ['start', ['pool', 'status', '--json'], 'SIGTERM', 143],
    ['main', ['pool', 'status'], 'SIGINT', 130],
  ] as const)
    it(`${how === 'main' ? 'main()' : 'bin/start.mjs'} ${args.join(' ')}: ${sig} ends it, exit ${code}: the close ends the engine probe's wait, saying so`, async () => {
      const r = await stopped(how, [...args], sig, waiting);
      expect(r.ended, r.err).toBe(true);
      expect(r.main).toBe(true);
      expect(r.code, r.err).toBe(code);
      expect(r.err).toMatch(NOT_WAITED);
      // Before: the close waited on the probe until the 3 s grace ran out.
      expect(r.err).not.toContain('did not end within');
      expect(r.err).not.toMatch(/\n\s+at /);
    }, 120_000);

  it('exec (its handler cancels the job): SIGTERM ends it, exit 143, the job cancelled before the engine answered', async () => {
    const r = await stopped('main', ['exec', join(dir, 'script.py')], 'SIGTERM', waiting);
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.out + r.err).toContain(
      'the run was cancelled (the process received SIGTERM) before a sandbox backend started',
    );
    expect(r.err).toMatch(NOT_WAITED);
    // Before: the job waited on the probe (the engine's patience, a minute), and the command's bound
    // (18 s) ended the process: "the command did not end within 18 s of the signal".
    expect(r.err).not.toContain('did not end within');
  }, 120_000);

  it('run (its script waits for the sandbox backend): SIGTERM cancels the run, which records its end, exit 143', async () => {
    llm.fallback = { text: '```python\nemit_result(1)\n```' };
    const r = await stopped('main', runOneArgs(llm.openaiUrl), 'SIGTERM', waiting, runWs);
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    // The run's record, read back from the store once its end was recorded (commands/run.ts).
    expect(r.out).toMatch(/^run \S+: cancelled$/m);
    expect(r.out).toContain('error: cancelled: the process received SIGTERM');
    expect(r.err).toMatch(NOT_WAITED);
    // Before: the run's job waited on the probe and the command's bound (18 s) ended the process
    // without the run's end recorded or printed.
    expect(r.err).not.toContain('did not end within');
  }, 120_000);
});

describe('a stop signal before main loads, while the early path waits on the engine', () => {
  beforeAll(() => {
    home = 'home-early';
    // main's answer once, with the machine's engine: it keeps the digest the early path needs.
    for (const args of [['pool', 'status']]) {
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
});

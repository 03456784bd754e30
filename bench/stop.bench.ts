/**
 * `npm run bench:stop`: prints JSON (progress goes to stderr). How long a verb takes to end after
 * SIGTERM while main waits on a Docker engine that takes the connection and never answers (a unix
 * socket as DOCKER_HOST that accepts and says nothing, as test/integration/cli/stop-hung-engine.test.ts
 * builds): `exec` (its handler cancels the job) and `pool status` (a verb with nothing to cancel), each
 * through bin/start.mjs as a fresh Node 24, the signal sent once the engine probe says it has waited
 * 3 s. Before the probe took the service's shutdown: `exec` ended at the command's bound (18 s), `pool
 * status` at the close's grace (3 s). Then the same against an engine that answers its first requests
 * and hangs later (test/integration/cli/support/engine-that-hangs.ts): `start` (it answered `/_ping` and
 * `/version`; the signal once the worker factory's start waits on its listing of this installation's
 * containers), `exec` and `pool status`; `sweep` (it listed a leftover of this installation; the signal
 * once its removal waits and the probe has waited 3 s), `pool status`. Before the start and the full
 * sweep took the stop, those ended at the close's grace (3 s) or the command's bound (18 s). Then `exec`
 * while its job's container is being made on an engine that hangs there (`create`, `attach`, `start`:
 * the signal once the engine holds that request; `hello`: the engine answered the start and no worker
 * connects): before the spawn's requests took the stop, those ended at the command's bound (18 s).
 * Then `exec` while its job's first container waits on its image: `image check hangs` (the engine holds
 * `GET /images/<tag>/json`), `build hangs` (the image is missing; the engine answers `POST /build` with
 * its first step and says nothing more): before the images' check and build took the stop, those ended
 * at the command's bound (18 s).
 * `TOOLSMITH_BENCH_CASES` (a comma-separated list of parts of names) runs only the cases it names. Each
 * figure is the median and the largest of ROUNDS runs, in ms from the signal to the process's exit, with
 * the exit codes seen.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, removeWorkspace, tempWorkspace } from '../test/support/workspace.ts';
import { engineThatHangs, HELLO } from '../test/integration/cli/support/engine-that-hangs.ts';
import type { EngineThatHangs, HangAt } from '../test/integration/cli/support/engine-that-hangs.ts';
import { stopOnce } from '../test/integration/cli/support/stop-child.ts';

const ROUNDS = Number(process.env['TOOLSMITH_BENCH_ROUNDS'] ?? 5);
const log = (msg: string) => process.stderr.write(`[bench:stop] ${msg}\n`);
const node = join(repoRoot, 'node_modules/.bin/node');

const dir = mkdtempSync(join(tmpdir(), 'toolsmith-bench-stop-'));
const ws = tempWorkspace('toolsmith-bench-stop-ws-');
writeFileSync(join(dir, 'script.py'), 'emit_result(1)\n');
const held: Socket[] = [];
const server = createServer((s) => held.push(s)); // (takes every connection, answers nothing)
const socket = join(dir, 'hung.sock');
await new Promise<void>((r) => server.listen(socket, r));

const laterSocket = join(dir, 'later.sock');
const later: EngineThatHangs = await engineThatHangs(laterSocket, 'start');

/**
 * One verb: ms from SIGTERM to exit, and the exit code. The signal is sent once the hung engine's probe
 * line is seen, or (`hangs`, on the engine that hangs later) once `ready` says so.
 */
function once(
  args: string[],
  hangs?: { ready: (err: string) => boolean },
): Promise<{ ms: number; code: number | null }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOCKER_HOST: `unix://${hangs ? laterSocket : socket}`,
    XDG_CACHE_HOME: join(dir, 'cache'),
    TOOLSMITH_HOME: join(dir, 'home'),
    TOOLSMITH_DATA_DIR: join(dir, 'home'),
  };
  delete env['TOOLSMITH_BACKEND'];
  delete env['TOOLSMITH_DOCKER_PATIENCE_MS'];
  const child = spawn(node, [join(repoRoot, 'bin/start.mjs'), '--workspace', ws, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  later.hung.length = 0;
  const stop = stopOnce(child, 'SIGTERM', () =>
    hangs ? hangs.ready(err) : /has not answered in 3 s/.test(err),
  );
  if (hangs) later.onHang = () => stop.look();
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    stop.look();
  });
  return stop.exited.then(({ code }) => {
    later.onHang = () => {};
    return { ms: Math.round(performance.now() - stop.sentAt), code };
  });
}

/** The worker factory's start waits on the engine that hangs later. */
const startWaits = { ready: () => later.hung.includes('GET /containers/json') };
/** The sweep's removal waits, and main's service waits on the probe (its handler is set). */
const sweepWaits = {
  ready: (err: string) =>
    later.hung.some((h) => h.startsWith('DELETE')) && /has not answered in 3 s/.test(err),
};

/** The job's container is being made: the engine holds `what` (or the worker's hello never comes). */
const holds = (what: RegExp) => ({ ready: () => later.hung.some((h) => what.test(h)) });
const only = (process.env['TOOLSMITH_BENCH_CASES'] ?? '').split(',').filter(Boolean);

const results: Record<string, { medianMs: number; maxMs: number; codes: (number | null)[] }> = {};
try {
  for (const [name, args, hangs, mode] of [
    ['exec', ['exec', join(dir, 'script.py')]],
    ['pool status', ['pool', 'status']],
    ['start hangs: exec', ['exec', join(dir, 'script.py')], startWaits, 'start'],
    ['start hangs: pool status', ['pool', 'status'], startWaits, 'start'],
    ['sweep hangs: pool status', ['pool', 'status'], sweepWaits, 'sweep'],
    ['create hangs: exec', ['exec', join(dir, 'script.py')], holds(/^POST \/containers\/create$/), 'create'],
    [
      'attach hangs: exec',
      ['exec', join(dir, 'script.py')],
      holds(/^POST \/containers\/\w+\/attach$/),
      'attach',
    ],
    [
      'start hangs: exec (container start)',
      ['exec', join(dir, 'script.py')],
      holds(/^POST \/containers\/\w+\/start$/),
      'container-start',
    ],
    ['no hello: exec', ['exec', join(dir, 'script.py')], holds(new RegExp(`^${HELLO}$`)), 'hello'],
    ['image check hangs: exec', ['exec', join(dir, 'script.py')], holds(/^GET \/images\/.+\/json$/), 'image'],
    ['build hangs: exec', ['exec', join(dir, 'script.py')], holds(/^POST \/build$/), 'build'],
  ] as [string, string[], { ready: (err: string) => boolean }?, HangAt?][]) {
    if (only.length && !only.some((o) => name.includes(o))) continue;
    if (mode) later.mode = mode;
    const runs = [];
    for (let i = 0; i < ROUNDS; i++) {
      runs.push(await once([...args], hangs));
      log(`${name}: ${runs.at(-1)!.ms} ms (exit ${runs.at(-1)!.code})`);
    }
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    results[name] = {
      medianMs: ms[Math.floor(ms.length / 2)] ?? 0,
      maxMs: ms.at(-1) ?? 0,
      codes: runs.map((r) => r.code),
    };
  }
} finally {
  for (const s of held) s.destroy();
  server.close();
  await later.close();
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
}
console.log(
  JSON.stringify(
    {
      rounds: ROUNDS,
      cpus: cpus().length,
      loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
      results,
    },
    null,
    2,
  ),
);

/**
 * The stop of a CLI child the stop tests share (stop-hung-engine.test.ts, stop-engine-hangs-later.test.ts,
 * stop-spawn.test.ts, bench/stop.bench.ts): the signal is sent once, the first time the test's condition
 * holds (asked at each thing the test sees: a line, a request the engine holds), and the child is killed
 * if it has not ended `endsWithinMs` after it; the promise settles at the child's exit.
 */
import { spawn as spawnChild } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../../support/workspace.ts';
import { engineThatHangs } from './engine-that-hangs.ts';
import type { EngineThatHangs, HangAt } from './engine-that-hangs.ts';
import { writeMain } from './main-or-start.ts';

export interface ChildStop {
  /** Sends the signal if it was not sent yet and `ready()` holds now. */
  look(): void;
  /** The child's exit: `ended` says it ended within `endsWithinMs` of the signal (and it was sent). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ended: boolean }>;
  /** When the signal was sent (performance.now()), 0 before. */
  readonly sentAt: number;
}

export function stopOnce(
  child: ChildProcess,
  sig: NodeJS.Signals,
  ready: () => boolean,
  opts: { endsWithinMs?: number; onSend?: () => void } = {},
): ChildStop {
  let killer: ReturnType<typeof setTimeout> | undefined;
  let killed = false;
  const stop: { sentAt: number } & ChildStop = {
    sentAt: 0,
    look: () => {
      if (stop.sentAt || !ready()) return;
      stop.sentAt = performance.now();
      opts.onSend?.();
      child.kill(sig);
      killer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, opts.endsWithinMs ?? 30_000);
    },
    exited: new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        clearTimeout(killer);
        resolve({ code, signal, ended: !killed && stop.sentAt > 0 });
      }),
    ),
  };
  return stop;
}

/** What a verb stopped by a signal said and how it ended. */
export interface Stopped {
  code: number | null;
  out: string;
  err: string;
  /** Whether the process ended within its bound after the signal (else it was killed). */
  ended: boolean;
  /** What the engine held unanswered when the signal was sent. */
  hungAtSignal: string[];
}

/**
 * `node DIR/main.mjs --workspace WS ARGS` (support/main-or-start.ts writeMain: main() of the sources) against
 * `engine`, a fake Docker engine on DIR/engine.sock (support/engine-that-hangs.ts), its data folder and
 * cache in DIR; `sig` is sent once `when` says so, asked at each line and each request the engine holds.
 */
export function stopAgainst(
  engine: { hung: string[]; onHang: (what: string) => void },
  dir: string,
  ws: string,
  args: string[],
  sig: 'SIGTERM' | 'SIGINT',
  when: (seen: { err: string; out: string; hung: string[] }) => boolean,
): Promise<Stopped> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOCKER_HOST: `unix://${join(dir, 'engine.sock')}`,
    XDG_CACHE_HOME: join(dir, 'cache'),
    TOOLSMITH_HOME: join(dir, 'home'),
    TOOLSMITH_DATA_DIR: join(dir, 'home'),
    MAIN: join(repoRoot, 'src-main/cli/main.ts'),
  };
  delete env['TOOLSMITH_BACKEND'];
  delete env['TOOLSMITH_DOCKER_PATIENCE_MS'];
  engine.hung.length = 0;
  const child = spawnChild(
    join(repoRoot, 'node_modules/.bin/node'),
    [join(dir, 'main.mjs'), '--workspace', ws, ...args],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const seen = { err: '', out: '', hung: engine.hung };
  let hungAtSignal: string[] = [];
  const stop = stopOnce(child, sig, () => when(seen), {
    onSend: () => (hungAtSignal = [...engine.hung]),
  });
  engine.onHang = () => stop.look();
  child.stderr?.on('data', (d: Buffer) => {
    seen.err += d.toString();
    stop.look();
  });
  child.stdout?.on('data', (d: Buffer) => {
    seen.out += d.toString();
    stop.look();
  });
  return stop.exited.then(({ code, ended }) => {
    engine.onHang = () => {};
    return { code, out: seen.out, err: seen.err, ended, hungAtSignal };
  });
}

/** `run one` in sandbox ecommerce against the LLM server at `url` (model m, no templates, no retry). */
export const runOneArgs = (url: string): string[] =>
  `run one --sandbox ecommerce --no-templates --max-retries 0 --base-url ${url} --model m`.split(' ');

/** A stop test's place: a folder (script.py, main.mjs), a workspace, the fake engine on DIR/engine.sock. */
export interface StopPlace {
  dir: string;
  ws: string;
  engine: EngineThatHangs;
  close(): Promise<void>;
}

export async function stopPlace(name: string, mode: HangAt): Promise<StopPlace> {
  const dir = mkdtempSync(join(tmpdir(), `toolsmith-${name}-`));
  const ws = tempWorkspace(`toolsmith-${name}-ws-`);
  writeFileSync(join(dir, 'script.py'), 'emit_result(1)\n');
  writeMain(dir);
  const engine = await engineThatHangs(join(dir, 'engine.sock'), mode);
  return {
    dir,
    ws,
    engine,
    close: async () => {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
      removeWorkspace(ws);
    },
  };
}

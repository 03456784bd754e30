/**
 * SIGTERM and SIGINT end a verb at once when the Docker engine answered its first requests and then hangs
 * (support/engine-that-hangs.ts, a unix socket as DOCKER_HOST):
 * - on the worker factory's start (it answered `/_ping` and `/version`, then holds the start's listing of
 *   this installation's containers): the close cancels the start's requests (infra/sandbox/docker.ts
 *   `start(stop)`, docker-cancel.ts), saying which one the engine had not answered;
 * - on the leftover sweep's removal (it listed a container of this installation whose process is dead,
 *   then holds its `DELETE`): the close cancels Docker's client's requests of the full sweep too
 *   (app/prune.ts), saying so; the leftover stays for the next start's sweep.
 * Before, the close waited on those requests until the 3 s grace ended the process ("the close did not end
 * within 3 s"), and `exec` until the command's bound (18 s). Each child is a fresh Node 24 running main().
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { writeMain } from './support/main-or-start.ts';
import { engineThatHangs } from './support/engine-that-hangs.ts';
import type { EngineThatHangs } from './support/engine-that-hangs.ts';

const node = join(repoRoot, 'node_modules/.bin/node');
/** Longer than the grace a signal gives the close (3 s) or a command (18 s). */
const ENDS_WITHIN_MS = 30_000;

let dir: string;
let ws: string;
let engine: EngineThatHangs;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-stop-later-'));
  ws = tempWorkspace('toolsmith-stop-later-ws-');
  writeFileSync(join(dir, 'script.py'), 'emit_result(1)\n');
  writeMain(dir);
  engine = await engineThatHangs(join(dir, 'engine.sock'), 'start');
});

afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
});

interface Stopped {
  code: number | null;
  out: string;
  err: string;
  /** Whether the process ended within ENDS_WITHIN_MS of the signal (else it was killed). */
  ended: boolean;
  /** What the engine held unanswered when the signal was sent. */
  hungAtSignal: string[];
}

/** `toolsmith ARGS` through main(); `sig` is sent once `when` says so (at each line and each hung request). */
function stopped(
  args: string[],
  sig: 'SIGTERM' | 'SIGINT',
  when: (seen: { err: string; hung: string[] }) => boolean,
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
  const child = spawn(node, [join(dir, 'main.mjs'), '--workspace', ws, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seen = { err: '', out: '', hung: engine.hung };
  let sent = false;
  let hungAtSignal: string[] = [];
  let killer: ReturnType<typeof setTimeout> | undefined;
  let ended = true;
  const look = () => {
    if (sent || !when(seen)) return;
    sent = true;
    hungAtSignal = [...engine.hung];
    child.kill(sig);
    killer = setTimeout(() => {
      ended = false;
      child.kill('SIGKILL');
    }, ENDS_WITHIN_MS);
  };
  engine.onHang = look;
  child.stderr.on('data', (d: Buffer) => {
    seen.err += d.toString();
    look();
  });
  child.stdout.on('data', (d: Buffer) => {
    seen.out += d.toString();
    look();
  });
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(killer);
      engine.onHang = () => {};
      resolve({ code, out: seen.out, err: seen.err, ended: ended && sent, hungAtSignal });
    });
  });
}

/** The worker factory's start waits on the engine (its listing of this installation's containers). */
const startHangs = ({ hung }: { hung: string[] }) => hung.includes('GET /containers/json');

const START_CUT =
  /toolsmith: the Docker engine \(unix:\/\/.*engine\.sock\) had not answered the sandbox backend's start \(GET \/containers\/json\) when the service began to close: no longer waited for\n/;

describe('a stop signal while the worker factory starts on an engine that answered its version, then hangs', () => {
  beforeAll(() => {
    engine.mode = 'start';
  });

  for (const [sig, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)
    it(`pool status: ${sig} ends it at once, exit ${code}, saying which request the start waited on`, async () => {
      const r = await stopped(['pool', 'status'], sig, startHangs);
      expect(r.ended, r.err).toBe(true);
      expect(r.hungAtSignal).toContain('GET /containers/json');
      expect(r.code, r.err).toBe(code);
      expect(r.err).toMatch(START_CUT);
      // Before: the close waited on the start until the 3 s grace ran out.
      expect(r.err).not.toContain('did not end within');
      expect(r.err).not.toMatch(/\n\s+at /);
      // Nothing was made on the engine: no container create was asked.
      expect(engine.hung.filter((h) => h.startsWith('POST'))).toEqual([]);
    }, 120_000);

  it('exec: SIGTERM cancels the job before the backend started, and the close ends the start, exit 143', async () => {
    const r = await stopped(['exec', join(dir, 'script.py')], 'SIGTERM', startHangs);
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.out + r.err).toContain(
      'the run was cancelled (the process received SIGTERM) before a sandbox backend started',
    );
    expect(r.err).toMatch(START_CUT);
    // Before: the close waited on the start until the command's bound (18 s).
    expect(r.err).not.toContain('did not end within');
  }, 120_000);
});

describe('a stop signal while the leftover sweep removes a leftover on an engine that hangs on the removal', () => {
  beforeAll(() => {
    engine.mode = 'sweep';
  });

  it('pool status: SIGTERM ends it at once, exit 143, the leftover not swept now and said so', async () => {
    // (sent once the removal waits and main's service waits on the probe: its handler is set)
    const r = await stopped(
      ['pool', 'status'],
      'SIGTERM',
      ({ err, hung }) => hung.some((h) => h.startsWith('DELETE')) && /has not answered in 3 s/.test(err),
    );
    expect(r.ended, r.err).toBe(true);
    expect(r.hungAtSignal).toContain(`DELETE /containers/${engine.leftoverId}`);
    expect(r.code, r.err).toBe(143);
    expect(r.err).toContain(
      `toolsmith: the Docker engine (unix://${join(dir, 'engine.sock')}) had not answered the leftover sweep (DELETE /containers/${engine.leftoverId}) when the process began to stop: not swept now (the next start sweeps)\n`,
    );
    // Before: the close waited on the sweep's removal until the 3 s grace ran out.
    expect(r.err).not.toContain('did not end within');
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 120_000);
});

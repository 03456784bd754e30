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
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineThatHangs } from './support/engine-that-hangs.ts';
import { stopAgainst, stopPlace } from './support/stop-child.ts';
import type { StopPlace, Stopped } from './support/stop-child.ts';

let dir: string;
let ws: string;
let engine: EngineThatHangs;
let place: StopPlace;

beforeAll(async () => {
  place = await stopPlace('stop-later', 'start');
  ({ dir, ws, engine } = place);
});

afterAll(async () => {
  await place?.close();
});

/** `toolsmith ARGS` through main(); `sig` is sent once `when` says so (at each line and each hung request). */
const stopped = (
  args: string[],
  sig: 'SIGTERM' | 'SIGINT',
  when: (seen: { err: string; hung: string[] }) => boolean,
): Promise<Stopped> => stopAgainst(engine, dir, ws, args, sig, when);

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

describe("a stop signal while the light leftover sweep's listing waits on the engine", () => {
  beforeAll(() => {
    engine.mode = 'light-sweep';
  });

  it("pool status: SIGTERM ends it, exit 143, the sweep not done now and said in the full sweep's words", async () => {
    const r = await stopped(['pool', 'status'], 'SIGTERM', ({ hung }) =>
      hung.includes('GET /containers/json'),
    );
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    // Before: nothing was said (the light sweep took the stop as no answer).
    expect(r.err).toContain(
      `toolsmith: the Docker engine (unix://${join(dir, 'engine.sock')}) had not answered the leftover sweep (GET /containers/json) when the process began to stop: not swept now (the next start sweeps)\n`,
    );
    expect(r.err).not.toContain('did not end within');
  }, 120_000);
});

/**
 * SIGTERM and SIGINT end `exec` and `run` at once while a job's container is being made on a Docker
 * engine that hangs there (support/engine-that-hangs.ts, a unix socket as DOCKER_HOST): on the
 * container's create, its attach, its start, or (the engine answering everything) the worker's hello on
 * its protocol socket. The job cancelled while it waits for its worker ends at once (pool.ts `run`), the
 * close cuts what the engine has not answered (infra/sandbox/docker.ts `spawn`, docker-cancel.ts) and
 * removes the container made before the stop; an engine that does not answer that removal either gets
 * it given up within a bound, the container left labelled for the next start's sweep, which removes it.
 * Before, the job waited on the spawn until the command's bound (18 s: "the command did not end within
 * 18 s of the signal"). Each child is a fresh Node 24 running main().
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { HELLO } from './support/engine-that-hangs.ts';
import type { EngineThatHangs, HangAt } from './support/engine-that-hangs.ts';
import { runOneArgs, stopAgainst, stopPlace } from './support/stop-child.ts';
import type { StopPlace } from './support/stop-child.ts';

let dir: string;
let ws: string;
let engine: EngineThatHangs;
let place: StopPlace;
let llm: LlmServer;

beforeAll(async () => {
  place = await stopPlace('stop-spawn', 'attach');
  ({ dir, ws, engine } = place);
  llm = await startLlmServer();
});

afterAll(async () => {
  await place?.close();
  await llm?.close();
});

/** What the engine holds while the container is made, by where it hangs. */
const HELD: Record<string, RegExp> = {
  create: /^POST \/containers\/create$/,
  attach: /^POST \/containers\/\w+\/attach$/,
  'container-start': /^POST \/containers\/\w+\/start$/,
  hello: new RegExp(`^${HELLO}$`),
};
const heldNow =
  (mode: HangAt) =>
  ({ hung }: { hung: string[] }) =>
    hung.some((h) => HELD[mode]!.test(h));

/** The containers of this test's installation the engine still has. */
const left = () => [...engine.containers.values()];

describe("a stop signal while a job's container is being made on an engine that hangs there", () => {
  for (const [mode, sig, code] of [
    ['create', 'SIGTERM', 143],
    ['attach', 'SIGTERM', 143],
    ['attach', 'SIGINT', 130],
    ['container-start', 'SIGTERM', 143],
    ['hello', 'SIGTERM', 143],
  ] as const)
    it(`exec, held at ${mode}: ${sig} ends it at once, exit ${code}, the container made removed`, async () => {
      engine.mode = mode;
      engine.removal = 'answer';
      engine.removals.length = 0;
      const r = await stopAgainst(engine, dir, ws, ['exec', join(dir, 'script.py')], sig, heldNow(mode));
      expect(r.ended, r.err).toBe(true);
      expect(r.hungAtSignal.some((h) => HELD[mode]!.test(h))).toBe(true);
      expect(r.code, r.err).toBe(code);
      expect(r.out + r.err).toContain(
        `the run was cancelled (the process received ${sig}) while it waited for its sandbox worker`,
      );
      // The line saying what the close no longer waited for.
      expect(r.err).toMatch(
        mode === 'hello'
          ? /toolsmith: the sandbox worker of container \w{12} had not connected when the service began to close: no longer waited for; the container was removed\n/
          : mode === 'create'
            ? /toolsmith: the Docker engine \(unix:\/\/.*engine\.sock\) had not answered the making of a sandbox container \(POST \/containers\/create\) when the service began to close: no longer waited for\n/
            : /toolsmith: the Docker engine \(unix:\/\/.*engine\.sock\) had not answered the making of a sandbox container \(POST \/containers\/\w+\/(attach|start)\) when the service began to close: no longer waited for; the container was removed\n/,
      );
      // Before: the job waited on the spawn until the command's bound (18 s).
      expect(r.err).not.toContain('did not end within');
      expect(r.err).not.toMatch(/\n\s+at /);
      // Nothing left behind: the container made before the stop was removed (none made at `create`).
      expect(left()).toEqual([]);
      expect(engine.removals.length).toBe(mode === 'create' ? 0 : 1);
    }, 120_000);

  it('run, held at attach: SIGTERM cancels the run, which records its end, exit 143', async () => {
    engine.mode = 'attach';
    engine.removal = 'answer';
    engine.removals.length = 0;
    llm.fallback = { text: '```python\nemit_result(1)\n```' };
    const r = await stopAgainst(engine, dir, ws, runOneArgs(llm.openaiUrl), 'SIGTERM', heldNow('attach'));
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.out).toMatch(/^run \S+: cancelled$/m);
    expect(r.out).toContain('error: cancelled: the process received SIGTERM');
    expect(r.err).not.toContain('did not end within');
    expect(left()).toEqual([]);
    expect(engine.removals.length).toBe(1);
  }, 120_000);

  it('exec, held at start and at the removal: ends at once, the container left labelled, then swept by the next start', async () => {
    engine.mode = 'container-start';
    engine.removal = 'hang';
    engine.removals.length = 0;
    const r = await stopAgainst(
      engine,
      dir,
      ws,
      ['exec', join(dir, 'script.py')],
      'SIGTERM',
      heldNow('container-start'),
    );
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.err).toMatch(
      /toolsmith: the Docker engine \(unix:\/\/.*engine\.sock\) had not answered the making of a sandbox container \(POST \/containers\/\w+\/start\) when the service began to close: no longer waited for; the engine did not answer the removal of container \w{12} within 1 s: left for the next start's sweep\n/,
    );
    expect(r.err).not.toContain('did not end within');
    // The removal was asked, not answered: the container is still there, with the labels the sweep reads.
    expect(engine.removals.length).toBeGreaterThanOrEqual(1);
    const [kept] = left();
    expect(kept?.Labels['toolsmith.installation']).toBeTruthy();
    expect(kept?.Labels['toolsmith.instance']).toBeTruthy();
    expect(left().length).toBe(1);
    // The next start (any verb that opens the workspace) sweeps it: its process is gone.
    engine.mode = 'hello';
    engine.removal = 'answer';
    engine.removals.length = 0;
    const next = await stopAgainst(engine, dir, ws, ['pool', 'status'], 'SIGTERM', () => false);
    expect(next.code, next.err).toBe(0);
    expect(engine.removals).toContain(kept?.Id);
    expect(left()).toEqual([]);
  }, 120_000);

  it("exec, the close's listing of its containers held: the dispose gives up within its bound, saying so", async () => {
    engine.mode = 'hello';
    engine.removal = 'answer';
    engine.removals.length = 0;
    const r = await stopAgainst(engine, dir, ws, ['exec', join(dir, 'script.py')], 'SIGTERM', (seen) => {
      if (!heldNow('hello')(seen)) return false;
      // (from the signal on, Docker's client's listings are held: the dispose's is the first)
      engine.listing = 'hang';
      return true;
    }).finally(() => (engine.listing = 'answer'));
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.err).toMatch(
      /toolsmith: the Docker engine \(unix:\/\/.*engine\.sock\) had not answered the listing of this process's sandbox containers \(GET \/containers\/json\) within 1 s of the stop: any are left for the next start's sweep\n/,
    );
    // Before: the dispose's listing held the close until the command's bound (18 s).
    expect(r.err).not.toContain('did not end within');
    // The worker's container itself was removed by its spawn, given up.
    expect(left()).toEqual([]);
    expect(engine.removals.length).toBe(1);
  }, 120_000);
});

/**
 * SIGTERM and SIGINT end `exec` and `run` at once while a job's first container waits on its image, on a
 * Docker engine that hangs there (support/engine-that-hangs.ts, a unix socket as DOCKER_HOST): the image's
 * check (`GET /images/<tag>/json`), or its build (`POST /build`: answered, its progress stopped after the
 * first step). The image's check and build go through the service's own client, shared by every pool; they
 * are tied to the service's close now (app/sandbox-factory.ts `ensureImageOn`, docker-cancel.ts with
 * `streams`), and the close says what it no longer waited for. A build cut by the stop is never tagged:
 * the next start checks the image again and builds it. Before, the close waited on the check or the
 * build until the command's bound (18 s: "the command did not end within 18 s of the signal"). Each child
 * is a fresh Node 24 running main().
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import type { EngineThatHangs } from './support/engine-that-hangs.ts';
import { runOneArgs, stopAgainst, stopPlace } from './support/stop-child.ts';
import type { StopPlace } from './support/stop-child.ts';

let dir: string;
let ws: string;
let engine: EngineThatHangs;
let place: StopPlace;
let llm: LlmServer;

beforeAll(async () => {
  place = await stopPlace('stop-image', 'image');
  ({ dir, ws, engine } = place);
  llm = await startLlmServer();
});

afterAll(async () => {
  await place?.close();
  await llm?.close();
});

const checkHeld = ({ hung }: { hung: string[] }) => hung.some((h) => /^GET \/images\/.+\/json$/.test(h));
const buildHeld = ({ hung }: { hung: string[] }) => hung.includes('POST /build');

describe("a stop signal while a job's first container waits on its image on an engine that hangs there", () => {
  for (const sig of ['SIGTERM', 'SIGINT'] as const)
    it(`exec, the image's check held: ${sig} ends it at once, saying what was no longer waited for`, async () => {
      engine.mode = 'image';
      engine.removals.length = 0;
      const r = await stopAgainst(engine, dir, ws, ['exec', join(dir, 'script.py')], sig, checkHeld);
      expect(r.ended, r.err).toBe(true);
      expect(r.code, r.err).toBe(sig === 'SIGTERM' ? 143 : 130);
      expect(r.out + r.err).toContain(
        `the run was cancelled (the process received ${sig}) while it waited for its sandbox worker`,
      );
      expect(r.err).toMatch(
        /toolsmith: the Docker engine \(unix:\/\/.*engine\.sock\) had not answered the check of the python sandbox image toolsmith\/python:\w+ \(GET \/images\/toolsmith\/python:\w+\/json\) when the service began to close: no longer waited for\n/,
      );
      // Before: the close waited on the check until the command's bound (18 s).
      expect(r.err).not.toContain('did not end within');
      expect(r.err).not.toMatch(/\n\s+at /);
      // Nothing was made: no container, and no build began.
      expect(engine.containers.size).toBe(0);
      expect(engine.builds).toEqual([]);
    }, 120_000);

  it('exec, the build held: SIGTERM cuts it; never tagged, the next start checks the image again and builds it', async () => {
    engine.mode = 'build';
    engine.builds.length = 0;
    engine.imageChecks.length = 0;
    const r = await stopAgainst(engine, dir, ws, ['exec', join(dir, 'script.py')], 'SIGTERM', buildHeld);
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.err).toMatch(
      /toolsmith: building the python sandbox image toolsmith\/python:\w+ on engine local/,
    );
    expect(r.err).toMatch(
      /toolsmith: the Docker engine \(unix:\/\/.*engine\.sock\) had not finished the build of the python sandbox image (toolsmith\/python:\w+) \(POST \/build\) when the service began to close: no longer waited for; the build was cut, so the image is not tagged \(the next start builds it\)\n/,
    );
    expect(r.err).not.toContain('did not end within');
    expect(r.err).not.toMatch(/\n\s+at /);
    const tag = /image (toolsmith\/python:\w+) \(POST \/build\)/.exec(r.err)?.[1];
    expect(engine.builds).toEqual([tag]);
    // The next start does not take the cut build for a built image: it checks the tag and builds again.
    engine.imageChecks.length = 0;
    const next = await stopAgainst(engine, dir, ws, ['exec', join(dir, 'script.py')], 'SIGINT', buildHeld);
    expect(next.code, next.err).toBe(130);
    expect(engine.imageChecks).toContain(tag);
    expect(engine.builds).toEqual([tag, tag]);
    expect(engine.containers.size).toBe(0);
  }, 120_000);

  it('run, the build held: SIGTERM cancels the run, which records its end, exit 143', async () => {
    engine.mode = 'build';
    llm.fallback = { text: '```python\nemit_result(1)\n```' };
    const r = await stopAgainst(engine, dir, ws, runOneArgs(llm.openaiUrl), 'SIGTERM', buildHeld);
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.out).toMatch(/^run \S+: cancelled$/m);
    expect(r.out).toContain('error: cancelled: the process received SIGTERM');
    expect(r.err).toContain('had not finished the build of the python sandbox image');
    expect(r.err).not.toContain('did not end within');
  }, 120_000);
});

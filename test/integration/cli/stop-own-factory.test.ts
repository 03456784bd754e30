/**
 * A sandbox with a factory of its own (`isolation = "docker"`, `engines = [...]`: app/isolation.ts) stopped
 * while its engine hangs says what the close no longer waited for in the default backend's words, and
 * ends at once: its factory's start takes the service's close (MultiEngineFactory.start(stop)) and its
 * stop notes are said by the service's dispose (app/sandbox-factory.ts). Before, its notes were never
 * printed, and its start, untied to the close, held a stop until the command's bound (18 s). Fake engines
 * of support/engine-that-hangs.ts on unix sockets; each child a fresh Node 24 running main().
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineThatHangs } from './support/engine-that-hangs.ts';
import type { EngineThatHangs } from './support/engine-that-hangs.ts';
import { stopAgainst, stopPlace } from './support/stop-child.ts';
import type { StopPlace } from './support/stop-child.ts';

let place: StopPlace;
let other: EngineThatHangs;
const config = () => join(place.ws, '.toolsmith', 'config.toml');
let sample: string;

beforeAll(async () => {
  place = await stopPlace('stop-own-factory', 'attach');
  other = await engineThatHangs(join(place.dir, 'other.sock'), 'start');
  sample = readFileSync(config(), 'utf8');
});

afterAll(async () => {
  await other?.close();
  await place?.close();
});

/** The sample config with `lines` under `[sandboxes.ecommerce]`, and `extra` at its end. */
function configure(lines: string, extra = ''): void {
  if (!sample.includes('[sandboxes.ecommerce]\n')) throw new Error('no [sandboxes.ecommerce] in the sample');
  writeFileSync(
    config(),
    sample.replace('[sandboxes.ecommerce]\n', `[sandboxes.ecommerce]\n${lines}\n`) + extra,
  );
}

describe('a stop while a sandbox of its own factory waits on its engine', () => {
  it('isolation = "docker", its container held at attach: SIGTERM ends it at once, saying so as the default backend does', async () => {
    configure('isolation = "docker"');
    const { dir, ws, engine } = place;
    engine.mode = 'attach';
    engine.removals.length = 0;
    const r = await stopAgainst(engine, dir, ws, ['exec', join(dir, 'script.py')], 'SIGTERM', ({ hung }) =>
      hung.some((h) => /^POST \/containers\/\w+\/attach$/.test(h)),
    );
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    // Before: the own factory's notes were not said at all.
    expect(r.err).toMatch(
      /toolsmith: the Docker engine \(unix:\/\/.*engine\.sock\) had not answered the making of a sandbox container \(POST \/containers\/\w+\/attach\) when the service began to close: no longer waited for; the container was removed\n/,
    );
    expect(r.err).not.toContain('did not end within');
    expect([...engine.containers.values()]).toEqual([]);
    expect(engine.removals.length).toBe(1);
  }, 120_000);

  it('engines = ["other"], that engine hanging on its factory\'s start: SIGTERM ends it at once, naming the engine', async () => {
    const { dir, ws, engine } = place;
    configure(
      'engines = ["other"]',
      `\n[engines.other]\nhost = "unix://${join(dir, 'other.sock')}"\nmax_workers = 2\n`,
    );
    // (the default backend's engine answers its start; the sandbox's own engine hangs on its listing)
    engine.mode = 'hello';
    other.mode = 'start';
    const r = await stopAgainst(other, dir, ws, ['exec', join(dir, 'script.py')], 'SIGTERM', ({ hung }) =>
      hung.includes('GET /containers/json'),
    );
    expect(r.ended, r.err).toBe(true);
    expect(r.code, r.err).toBe(143);
    expect(r.err).toMatch(
      /toolsmith: the Docker engine \(unix:\/\/.*other\.sock\) had not answered the sandbox backend's start \(GET \/containers\/json\) when the service began to close: no longer waited for\n/,
    );
    // Before: the own factory's start held the close until the command's bound (18 s).
    expect(r.err).not.toContain('did not end within');
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 120_000);
});

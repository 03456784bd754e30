/**
 * Vitest global setup of every node project: the run gets a home of its own, so no test reads or
 * writes the person's Toolsmith data (the default workspace `sample-workspace`, the recent list, the
 * installation id and its containers, the CLI's sandboxes cache), whatever `HOME`,
 * `TOOLSMITH_HOME` or the XDG folders say, and none of the person's settings in the environment
 * (`PERSONAL`) reaches a test. Workers and the processes tests start inherit it; a test that needs its
 * own sets the variable itself. Removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeRunContainers } from './run-containers.ts';

const VARS = [
  'TOOLSMITH_TEST_ROOT',
  'NODE_COMPILE_CACHE',
  'TOOLSMITH_HOME',
  'TOOLSMITH_DATA_DIR',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
] as const;

/**
 * The person's own settings that would change what a test sees: Toolsmith's variables (a default
 * workspace, a forced backend, a log level), OpenTelemetry's (live export of every run to their
 * collector), provider keys (sent to a test's scripted server) and Node's proxy switch. Removed for the
 * run; a test that needs one sets it for the process it starts.
 */
export const PERSONAL = /^(TOOLSMITH_|OTEL_|OPENAI_|ANTHROPIC_)|^NODE_USE_ENV_PROXY$/;

export default function setup(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-test-home-'));
  const personal = Object.keys(process.env).filter(
    (v) => PERSONAL.test(v) && !(VARS as readonly string[]).includes(v),
  );
  const saved = [...VARS, ...personal].map((v) => [v, process.env[v]] as const);
  for (const v of personal) delete process.env[v];
  // Each test file then takes a folder of its own inside this one (`isolated-file-home.ts`).
  process.env['TOOLSMITH_TEST_ROOT'] = dir;
  // One V8 compile cache for every Toolsmith process of the run (bin/start.mjs reads it before
  // $XDG_CACHE_HOME): without it each file's own cache folder starts empty, so every file's first CLI,
  // `serve` or `mcp` process compiled all the sources again, on a loaded machine past its start budget.
  // Entries are keyed by content and checked on read: processes that share the folder are safe.
  process.env['NODE_COMPILE_CACHE'] = join(dir, 'v8-compile-cache');
  process.env['TOOLSMITH_HOME'] = join(dir, 'toolsmith');
  process.env['TOOLSMITH_DATA_DIR'] = join(dir, 'data');
  process.env['XDG_DATA_HOME'] = join(dir, 'xdg-data');
  process.env['XDG_CACHE_HOME'] = join(dir, 'xdg-cache');
  return async () => {
    for (const [v, value] of saved) {
      if (value === undefined) delete process.env[v];
      else process.env[v] = value;
    }
    try {
      await removeRunContainers(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

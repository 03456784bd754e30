/**
 * Vitest global setup of every node project: the run gets a home of its own, so no test reads or
 * writes the person's Toolsmith data (the default workspace `sample-workspace`, the recent list, the
 * installation id and its containers, the CLI's sandboxes cache), whatever `HOME`,
 * `TOOLSMITH_HOME` or the XDG folders say, and none of the person's settings in the environment
 * (`PERSONAL`) reaches a test. `HOME` itself is the run's too (so is every XDG base folder): code that
 * falls back to `~` (Toolsmith's, Chromium's crash reports in `~/.config`, a child process given a
 * trimmed environment) lands in the run's folder. Workers and the processes tests start inherit it; a
 * test that needs its own sets the variable itself. Removed when the run ends.
 *
 * Two inputs of the person's stay shared, on purpose: npm's cache and user config (the install test
 * installs the packed tarball's shipped Node from it, with the registry and proxy the person configured)
 * and the sandbox image build cache (`~/.cache/toolsmith/{forkloop,npm,bookworm-python-minbase}`,
 * filled by ensure-env: a debootstrap and the bun and deno packages, which cannot be fetched offline).
 *
 * And the run checks it: the person's Toolsmith files (`personalPlaces`) are listed with their sizes and
 * modification times when the run starts, and the run fails when it ends, naming every file it created,
 * changed or removed there.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { removeRunContainers } from './run-containers.ts';

const VARS = [
  'TOOLSMITH_TEST_ROOT',
  'NODE_COMPILE_CACHE',
  'TOOLSMITH_HOME',
  'TOOLSMITH_DATA_DIR',
  'HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_STATE_HOME',
  'npm_config_cache',
  'npm_config_userconfig',
] as const;

/**
 * The person's own settings that would change what a test sees: Toolsmith's variables (a default
 * workspace, a forced backend, a log level), OpenTelemetry's (live export of every run to their
 * collector), provider keys (sent to a test's scripted server) and Node's proxy switch. Removed for the
 * run; a test that needs one sets it for the process it starts.
 */
export const PERSONAL = /^(TOOLSMITH_|OTEL_|OPENAI_|ANTHROPIC_)|^NODE_USE_ENV_PROXY$/;

/** The folders of the sandbox image build cache shared with the person's (see the top of the file). */
export const SHARED_IMAGE_CACHE = ['forkloop', 'npm', 'bookworm-python-minbase'] as const;

/**
 * Where the person's Toolsmith data is, read from `env` and `home` as the run found them: the data
 * folders (`$TOOLSMITH_DATA_DIR`, `$TOOLSMITH_HOME`, `$XDG_DATA_HOME/toolsmith`, `~/.local/share/toolsmith`),
 * the cache folders (`$XDG_CACHE_HOME/toolsmith`, `~/.cache/toolsmith`; not the shared image build
 * cache) and a workspace in the home itself (`~/.toolsmith`).
 */
export function personalPlaces(env: NodeJS.ProcessEnv, home: string): { roots: string[]; skip: string[] } {
  const caches = [join(home, '.cache', 'toolsmith')];
  if (env['XDG_CACHE_HOME']) caches.push(join(resolve(env['XDG_CACHE_HOME']), 'toolsmith'));
  const roots = [
    env['TOOLSMITH_DATA_DIR'],
    env['TOOLSMITH_HOME'],
    env['XDG_DATA_HOME'] && join(resolve(env['XDG_DATA_HOME']), 'toolsmith'),
    join(home, '.local', 'share', 'toolsmith'),
    join(home, '.toolsmith'),
    ...caches,
  ].filter((p): p is string => !!p);
  return {
    roots: [...new Set(roots.map((p) => resolve(p)))],
    skip: caches.flatMap((c) => SHARED_IMAGE_CACHE.map((s) => join(c, s))),
  };
}

/** Every file and folder under `roots` (not under `skip`), with its size and modification time. */
export function snapshot(places: { roots: string[]; skip: string[] }): Map<string, string> {
  const seen = new Map<string, string>();
  const walk = (p: string) => {
    if (places.skip.some((s) => p === s || p.startsWith(s + sep)) || seen.size > 100_000) return;
    let st;
    try {
      st = lstatSync(p);
    } catch {
      return;
    }
    seen.set(p, st.isDirectory() ? 'folder' : `${st.size} bytes, modified ${st.mtime.toISOString()}`);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  for (const r of places.roots) walk(r);
  return seen;
}

/** What changed between two snapshots, one line a path; empty when nothing did. */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [p, was] of before) {
    const now = after.get(p);
    if (now === undefined) out.push(`removed ${p}`);
    else if (now !== was) out.push(`changed ${p} (${was} -> ${now})`);
  }
  for (const [p, now] of after) if (!before.has(p)) out.push(`created ${p} (${now})`);
  return out;
}

/** npm's cache and user config as npm resolves them in the person's environment (undefined: no npm). */
function npmPlaces(): { cache?: string; userconfig?: string } {
  try {
    const out = execFileSync('npm', ['config', 'get', 'cache', 'userconfig'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 60_000,
    });
    const value = (k: string) => new RegExp(`^${k}=(.+)$`, 'm').exec(out)?.[1]?.trim();
    return { cache: value('cache'), userconfig: value('userconfig') };
  } catch {
    return {};
  }
}

export default function setup(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-test-home-'));
  // The person's home and Toolsmith files, before anything here changes the environment. (The one
  // support file that reads the home: to keep the run out of it and to check that it did.)
  const personHome = homedir();
  // Every project's global setup runs in the one vitest process, each after the last: the second finds
  // the first's run home in the environment, not the person's, which the first one checks.
  const nested = process.env['TOOLSMITH_TEST_ROOT'] !== undefined;
  const places = nested ? { roots: [], skip: [] } : personalPlaces(process.env, personHome);
  // (made here when missing, before the snapshot: a fresh machine's first run builds into them; a nested
  // set-up's are the first one's links, followed to the person's folders)
  const shared = SHARED_IMAGE_CACHE.map((s) => {
    const theirs = join(personHome, '.cache', 'toolsmith', s);
    if (!existsSync(theirs)) mkdirSync(theirs, { recursive: true });
    return realpathSync(theirs);
  });
  const before = snapshot(places);
  const npm = npmPlaces();
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
  process.env['XDG_CONFIG_HOME'] = join(dir, 'xdg-config');
  process.env['XDG_STATE_HOME'] = join(dir, 'xdg-state');
  const home = join(dir, 'home');
  mkdirSync(home);
  process.env['HOME'] = home;
  // The shared inputs (see the top of the file): npm's own, and the image build cache's folders.
  if (npm.cache) process.env['npm_config_cache'] = npm.cache;
  if (npm.userconfig) process.env['npm_config_userconfig'] = npm.userconfig;
  mkdirSync(join(home, '.cache', 'toolsmith'), { recursive: true });
  for (const [i, s] of SHARED_IMAGE_CACHE.entries())
    symlinkSync(shared[i]!, join(home, '.cache', 'toolsmith', s));
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
    const changed = changes(before, snapshot(places));
    if (changed.length)
      throw new Error(
        `the test run wrote the Toolsmith files of the person running it (it must use its own home, test/support/isolated-home.ts; or a Toolsmith of theirs wrote them while the run lasted):\n  ${changed.slice(0, 50).join('\n  ')}`,
      );
  };
}

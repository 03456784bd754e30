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
 * And the run checks it, at the write: the person's Toolsmith places (`personalPlaces`) go to
 * `person-places.json` in the run's folder, and every Toolsmith process of the run (they all inherit
 * `TOOLSMITH_TEST_ROOT`) refuses to use a place inside them, with an error naming the path, recorded under
 * the run's `leaks/` (src-main/infra/test-run-guard.ts); the run fails when it ends, naming each one.
 * Writes by anything else are found after the fact: the person's files are listed with their sizes and
 * modification times when the run starts, and a file created or changed there whose content names the
 * run's folder fails the run too. Other changes are the person's own Toolsmith at work while the tests
 * ran (their app, `serve`, a CLI command): listed as a note, never blamed on the run.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  readFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { LEAKS_DIR, PERSON_PLACES_FILE } from '../../src-main/infra/test-run-guard.ts';
import { join, resolve, sep } from 'node:path';
import { removeRunContainers } from './run-containers.ts';

const VARS = [
  'TOOLSMITH_TEST_ROOT',
  'TOOLSMITH_TEST_TMP_LIST',
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
  'TMPDIR',
] as const;

/**
 * The run's temporary folders, in the person's temp folder as the run found it (`$TMPDIR`, else /tmp):
 * the run's own (`tst-*`, for the global set-ups and the vitest process) and each test file's (`tsf-*`,
 * made by `isolated-file-home.ts`, which lists it in `TMP_LIST` in the run's folder). Every test and
 * every process it starts writes its temporary files there (Node's `os.tmpdir()`, Python's `tempfile`,
 * mktemp); they are removed when the file ends, and whatever is left (a file whose worker died) when
 * the run ends. Before, each run left ~100 folders in /tmp (`toolsmith-ws-*`, `toolsmith-usage-*`,
 * `cg2-*`, a worker's `toolsmith-protocol-*`...). Short names beside each other, not nested in the run's
 * home: a Unix socket's path (a sandbox's protocol socket, ~65 characters under $TMPDIR) has room for
 * ~107 characters in all, and a person's $TMPDIR may be long already.
 */
export const RUN_TMP_PREFIX = 'tst-';
export const FILE_TMP_PREFIX = 'tsf-';
export const TMP_LIST = 'tmp-dirs';

/**
 * The person's own settings that would change what a test sees: Toolsmith's variables (a default
 * workspace, a forced backend, a log level), OpenTelemetry's (live export of every run to their
 * collector), provider keys (sent to a test's scripted server), Node's proxy switch and the colour
 * variables (`FORCE_COLOR=1`, set by many CI services and shells: the CLI's output and the verb cache's
 * keys change with them, and `start-imports.test.ts` saw `validate FILE` load main where it expects a
 * cached answer), and the `docker` command's choice of engine (`DOCKER_CONTEXT`, `DOCKER_CONFIG`): Toolsmith
 * talks to `DOCKER_HOST` or the default socket and never reads a Docker context, so the tests' own
 * `docker` commands must reach that same engine (with `DOCKER_CONTEXT` set, every one of them failed:
 * the context is the person's, in a `~/.docker` the run's home does not have, `context "..." does not
 * exist`; one the run could read would have pointed them at another engine than the code under test's).
 * Removed for the run; a test that needs one sets it for the process it starts.
 */
export const PERSONAL =
  /^(TOOLSMITH_|OTEL_|OPENAI_|ANTHROPIC_)|^(NODE_USE_ENV_PROXY|FORCE_COLOR|NO_COLOR|CLICOLOR|CLICOLOR_FORCE|NODE_DISABLE_COLORS|DOCKER_CONTEXT|DOCKER_CONFIG)$/;

/** The folders of the sandbox image build cache shared with the person's (see the top of the file). */
export const SHARED_IMAGE_CACHE = ['forkloop', 'npm', 'bookworm-python-minbase'] as const;

/**
 * Where the person's Toolsmith data is, read from `env` and `home` as the run found them: the data
 * folders (`$TOOLSMITH_DATA_DIR`, `$TOOLSMITH_HOME`, `$XDG_DATA_HOME/toolsmith`, `~/.local/share/toolsmith`),
 * the cache folders (`$XDG_CACHE_HOME/toolsmith`, `~/.cache/toolsmith`; not the shared image build
 * cache), a workspace in the home itself (`~/.toolsmith`) and one in the folder the tests were started
 * in (`cwd`, when it holds `.toolsmith/`: the CLI opens the current folder's workspace when none is
 * named, so a process of the run started there without one would use the person's).
 */
export function personalPlaces(
  env: NodeJS.ProcessEnv,
  home: string,
  cwd?: string,
): { roots: string[]; skip: string[] } {
  const caches = [join(home, '.cache', 'toolsmith')];
  if (env['XDG_CACHE_HOME']) caches.push(join(resolve(env['XDG_CACHE_HOME']), 'toolsmith'));
  const roots = [
    env['TOOLSMITH_DATA_DIR'],
    env['TOOLSMITH_HOME'],
    env['XDG_DATA_HOME'] && join(resolve(env['XDG_DATA_HOME']), 'toolsmith'),
    join(home, '.local', 'share', 'toolsmith'),
    join(home, '.toolsmith'),
    cwd && existsSync(join(cwd, '.toolsmith')) ? join(resolve(cwd), '.toolsmith') : undefined,
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

/**
 * The changes (lines of `changes`) a process of the run made: a file created or changed whose content
 * names the run's folder `dir` (a workspace of the run in a recent list or a cache entry). A removal,
 * or content that does not name the run, cannot be told from the person's own Toolsmith at work.
 */
export function byTheRun(changed: string[], dir: string): string[] {
  return changed.filter((line) => {
    const m = /^(?:created|changed) (.+?) \((?!folder\))/.exec(line);
    if (!m) return false;
    try {
      return readFileSync(m[1]!)
        .subarray(0, 1 << 20)
        .includes(dir);
    } catch {
      return false;
    }
  });
}

/** The run's temporary folders and its files' (`TMP_LIST` in the run's folder `dir`). */
export function tmpDirs(dir: string): string[] {
  try {
    return readFileSync(join(dir, TMP_LIST), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** What the run's Toolsmith processes refused (test-run-guard.ts), one line a path and its process. */
export function refusedPlaces(dir: string): string[] {
  const leaks = join(dir, LEAKS_DIR);
  if (!existsSync(leaks)) return [];
  return [
    ...new Set(
      readdirSync(leaks).flatMap((f) =>
        readFileSync(join(leaks, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => `refused ${l.replace('\t', ' ')}`),
      ),
    ),
  ];
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
  // Every project's global setup runs in the one vitest process, each after the last: the second finds
  // the first's run home in the environment, not the person's, which the first one checks; its own
  // folder is made inside the first's and guards the same person's places.
  const outer = process.env['TOOLSMITH_TEST_ROOT'];
  const nested = outer !== undefined;
  const dir = mkdtempSync(join(nested ? outer : tmpdir(), 'toolsmith-test-home-'));
  // The person's home and Toolsmith files, before anything here changes the environment. (The one
  // support file that reads the home: to keep the run out of it and to check that it did.)
  const personHome = homedir();
  const places = nested ? { roots: [], skip: [] } : personalPlaces(process.env, personHome, process.cwd());
  // What every Toolsmith process of the run refuses to use (src-main/infra/test-run-guard.ts).
  writeFileSync(
    join(dir, PERSON_PLACES_FILE),
    nested && existsSync(join(outer, PERSON_PLACES_FILE))
      ? readFileSync(join(outer, PERSON_PLACES_FILE))
      : JSON.stringify(places),
  );
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
  // The run's temporary folder (see RUN_TMP_PREFIX); a nested set-up keeps the first one's.
  const runTmp = nested ? undefined : mkdtempSync(join(tmpdir(), RUN_TMP_PREFIX));
  if (runTmp) {
    // Other users pass through it, as they did through /tmp (the CLI run as another user from the
    // installed package in it, a process-level worker's uid), but do not list it.
    chmodSync(runTmp, 0o711);
    writeFileSync(join(dir, TMP_LIST), `${runTmp}\n`);
    process.env['TMPDIR'] = runTmp;
    // The one list every project's files add their folders to: a nested set-up's own folder (and any
    // list in it) goes with its project, before the run's teardown reads the list.
    process.env['TOOLSMITH_TEST_TMP_LIST'] = join(dir, TMP_LIST);
  }
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
    let refused: string[] = [];
    try {
      await removeRunContainers(dir);
    } finally {
      refused = refusedPlaces(dir);
      const tmp = nested ? [] : tmpDirs(dir);
      const remove = () => {
        for (const t of tmp) rmSync(t, { recursive: true, force: true });
        rmSync(dir, { recursive: true, force: true });
      };
      remove();
      // And again when vitest exits: it closes its workers after the global teardown, and each one
      // (started with NODE_COMPILE_CACHE) writes its compile cache as it exits, which made the run's
      // folder again with only `v8-compile-cache` in it (~150 such folders were left in /tmp).
      process.once('exit', remove);
    }
    const changed = changes(before, snapshot(places));
    const leaked = [...refused, ...byTheRun(changed, dir)];
    const theirs = changed.filter((c) => !leaked.includes(c));
    if (theirs.length)
      process.stderr.write(
        `note: the person's own Toolsmith changed ${theirs.length} of their files while the tests ran (not a process of the run: none named the run's folder or was refused), e.g.\n  ${theirs.slice(0, 5).join('\n  ')}\n`,
      );
    if (leaked.length)
      throw new Error(
        `the test run used the Toolsmith files of the person running it (it must use its own home, test/support/isolated-home.ts):\n  ${leaked.slice(0, 50).join('\n  ')}`,
      );
  };
}

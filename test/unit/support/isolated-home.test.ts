/**
 * The test run's own home (`test/support/isolated-home.ts`): a person's settings in the environment
 * (their default workspace, a forced backend, live trace export to their collector, provider keys) do not
 * reach any test, and are theirs again when the run ends; their home, populated by their own use of
 * Toolsmith, is neither read nor written, and a run that writes it fails naming the files.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import setup, {
  changes,
  FILE_TMP_PREFIX,
  personalPlaces,
  snapshot,
  TMP_LIST,
} from '../../support/isolated-home.ts';
import { nodeBin, runCommand } from '../../support/toolsmith-process.ts';
import { repoRoot } from '../../support/workspace.ts';

const PERSONAL = {
  TOOLSMITH_WORKSPACE: '/srv/person-tools',
  TOOLSMITH_BACKEND: 'process',
  TOOLSMITH_LOG_LEVEL: 'debug',
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318',
  OPENAI_API_KEY: 'sk-person',
  ANTHROPIC_API_KEY: 'sk-ant-person',
  NODE_USE_ENV_PROXY: '1',
  // (the colour variables change the CLI's output and the verb cache's keys)
  FORCE_COLOR: '1',
  CLICOLOR_FORCE: '1',
  NO_COLOR: '1',
  // (the `docker` command's engine: Toolsmith reads neither, the tests' docker commands must not either)
  DOCKER_CONTEXT: 'person-remote',
  DOCKER_CONFIG: '/srv/person-docker',
};
const before = { ...process.env };

afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in before)) delete process.env[k];
  Object.assign(process.env, before);
});

describe('the test run’s home', () => {
  it('takes the person’s settings out of the environment for the run and gives them back after', async () => {
    Object.assign(process.env, PERSONAL, { TS_TEST_UNRELATED: 'kept' });
    const teardown = setup();
    try {
      for (const k of Object.keys(PERSONAL)) expect(process.env[k], k).toBeUndefined();
      expect(process.env['TS_TEST_UNRELATED']).toBe('kept');
      expect(process.env['PATH']).toBe(before['PATH']);
      // the run's own folders instead of the person's
      expect(process.env['TOOLSMITH_HOME']).toContain('toolsmith-test-home-');
      expect(process.env['TOOLSMITH_HOME']).not.toBe(before['TOOLSMITH_HOME']);
    } finally {
      await teardown();
    }
    for (const [k, v] of Object.entries(PERSONAL)) expect(process.env[k], k).toBe(v);
    expect(process.env['TOOLSMITH_HOME']).toBe(before['TOOLSMITH_HOME']);
  });
});

/**
 * A person's home as their own use of Toolsmith leaves it: the copy of the sample workspace with a
 * provider of theirs, an installation, the recent list, the CLI's caches, a workspace in the home itself.
 */
function populatedHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'toolsmith-person-home-'));
  const write = (rel: string, text: string) => {
    mkdirSync(join(home, rel, '..'), { recursive: true });
    writeFileSync(join(home, rel), text);
  };
  const sample = '.local/share/toolsmith/sample-workspace';
  write(
    `${sample}/.toolsmith/config.toml`,
    '[workspace]\nname = "theirs"\n\n[[providers]]\nid = "theirs"\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key_env = "OPENAI_API_KEY"\n',
  );
  write(`${sample}/templates/theirs.toml`, 'name = "theirs"\n');
  write('.local/share/toolsmith/installation-id', 'person-installation\n');
  write('.local/share/toolsmith/recent-workspaces.json', '[]\n');
  write('.cache/toolsmith/verbs-0000000000000000.json', '{}\n');
  write('.toolsmith/config.toml', '[workspace]\nname = "home"\n');
  return home;
}

describe('a person’s populated home', () => {
  it('is out of the run (HOME and the XDG folders are the run’s) and left as it was, also by the CLI', async () => {
    const home = populatedHome();
    try {
      Object.assign(process.env, { HOME: home, XDG_CONFIG_HOME: join(home, '.config') });
      for (const v of [
        'TOOLSMITH_TEST_ROOT',
        'TOOLSMITH_HOME',
        'TOOLSMITH_DATA_DIR',
        'XDG_DATA_HOME',
        'XDG_CACHE_HOME',
      ])
        delete process.env[v];
      const places = personalPlaces(process.env, home);
      const before = snapshot(places);
      expect(before.size).toBeGreaterThan(8);
      const teardown = setup();
      let ok = false;
      try {
        expect(homedir()).not.toBe(home);
        expect(homedir()).toContain('toolsmith-test-home-');
        for (const v of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME'])
          expect(process.env[v], v).toContain('toolsmith-test-home-');
        // The CLI with no workspace named makes and uses the sample's copy: the run's, never theirs; so
        // does one started with a trimmed environment (only PATH and HOME), which falls back to ~.
        for (const env of [process.env, { PATH: process.env['PATH']!, HOME: process.env['HOME']! }]) {
          const r = await runCommand(nodeBin, [join(repoRoot, 'bin/toolsmith.mjs'), 'sandboxes'], {
            cwd: tmpdir(),
            env,
          });
          expect(r.err).toBe('');
          expect(r.out).toMatch(/^workspace .*toolsmith-test-home-.*sample-workspace$/m);
          expect(r.out).not.toContain(home);
        }
        ok = true;
      } finally {
        await teardown();
      }
      expect(ok).toBe(true);
      expect(process.env['HOME']).toBe(home);
      expect(changes(before, snapshot(places))).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  /** The variables that place Toolsmith's data, out of the environment: `HOME` alone says where. */
  const personOnly = (home: string) => {
    process.env['HOME'] = home;
    for (const v of [
      'TOOLSMITH_TEST_ROOT',
      'TOOLSMITH_HOME',
      'TOOLSMITH_DATA_DIR',
      'XDG_DATA_HOME',
      'XDG_CACHE_HOME',
      'NODE_COMPILE_CACHE',
    ])
      delete process.env[v];
  };
  const cli = (args: string[], env: NodeJS.ProcessEnv) =>
    runCommand(nodeBin, [join(repoRoot, 'bin/toolsmith.mjs'), ...args], { cwd: tmpdir(), env });
  const failure = async (teardown: () => Promise<void>) =>
    (await teardown().then(
      () => undefined,
      (e: unknown) => e,
    )) as Error | undefined;

  it('the run’s temporary folder, and each test file’s, are removed when the run ends (a run left ~100 in /tmp)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'toolsmith-person-home-'));
    try {
      personOnly(home);
      const theirs = tmpdir();
      const teardown = setup();
      const runTmp = tmpdir();
      let fileTmp = '';
      try {
        // The run's own, in the person's temp folder (short: a socket path under it must fit)
        expect(dirname(runTmp)).toBe(theirs);
        expect(basename(runTmp)).toMatch(/^tst-/);
        writeFileSync(join(runTmp, 'left-by-a-global-setup'), '');
        // and a file's, as isolated-file-home.ts makes it, with something its processes left there
        fileTmp = mkdtempSync(join(theirs, FILE_TMP_PREFIX));
        appendFileSync(join(process.env['TOOLSMITH_TEST_ROOT']!, TMP_LIST), `${fileTmp}\n`);
        mkdirSync(join(fileTmp, 'toolsmith-ws-left'));
      } finally {
        await teardown();
      }
      expect(existsSync(runTmp)).toBe(false);
      expect(existsSync(fileTmp)).toBe(false);
      expect(tmpdir()).toBe(theirs);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a process of the run that reaches the person’s Toolsmith files is refused at once, and the run fails naming them', async () => {
    const home = populatedHome();
    try {
      personOnly(home);
      const teardown = setup();
      const runRoot = process.env['TOOLSMITH_TEST_ROOT']!;
      // A leak: a Toolsmith process of the run (it inherits TOOLSMITH_TEST_ROOT) whose data and cache
      // variables point at the person's folders. It stops at the first one, naming it, and writes nothing.
      const data = join(home, '.local/share/toolsmith');
      const r = await cli(['sandboxes'], {
        ...process.env,
        TOOLSMITH_HOME: data,
        XDG_CACHE_HOME: join(home, '.cache'),
      });
      expect(r.code).not.toBe(0);
      expect(r.err).toContain(`was about to use ${data}, a Toolsmith file of the person running the tests`);
      // What a leak by other code does: the recent list rewritten with a workspace of the run.
      const recent = join(home, '.local/share/toolsmith/recent-workspaces.json');
      writeFileSync(recent, `${JSON.stringify([join(runRoot, 'ws')])}\n`);
      const err = await failure(teardown);
      expect(err?.message).toMatch(/the test run used the Toolsmith files of the person running it/);
      expect(err?.message).toContain(`refused ${data} (process `);
      expect(err?.message).toContain(`changed ${recent}`);
      expect(readdirSync(join(home, '.cache/toolsmith')).filter((f) => f.endsWith('.json'))).toEqual([
        'verbs-0000000000000000.json',
      ]);
      // The environment is the person's again all the same.
      expect(process.env['HOME']).toBe(home);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a workspace of the person’s in the folder the tests start in is theirs: a process of the run started there without one named is refused, and the run fails naming it', async () => {
    const home = populatedHome();
    // The person's own workspace in the current folder (`toolsmith init .` in the folder they run the
    // tests from), with a run store of theirs.
    const theirWs = mkdtempSync(join(tmpdir(), 'toolsmith-person-cwd-'));
    mkdirSync(join(theirWs, '.toolsmith'));
    writeFileSync(join(theirWs, '.toolsmith', 'config.toml'), '[workspace]\nname = "theirs"\n');
    const was = process.cwd();
    try {
      personOnly(home);
      process.chdir(theirWs);
      let teardown: () => Promise<void>;
      try {
        teardown = setup();
      } finally {
        process.chdir(was);
      }
      // A process of the run started in that folder, naming no workspace: the CLI would open the current
      // folder's (before: it did, writing its run store and logs there, and the run passed).
      const r = await runCommand(nodeBin, [join(repoRoot, 'bin/toolsmith.mjs'), 'runs', 'list'], {
        cwd: theirWs,
        env: process.env,
      });
      const place = join(theirWs, '.toolsmith');
      expect(r.code).not.toBe(0);
      expect(r.err).toContain(`was about to use ${place}, a Toolsmith file of the person running the tests`);
      expect(readdirSync(place)).toEqual(['config.toml']);
      const err = await failure(teardown);
      expect(err?.message).toContain(`refused ${place} (process `);
    } finally {
      process.chdir(was);
      rmSync(home, { recursive: true, force: true });
      rmSync(theirWs, { recursive: true, force: true });
    }
  });

  it('the person’s own Toolsmith writing their files while the run lasts does not fail it', async () => {
    const home = populatedHome();
    try {
      personOnly(home);
      const before = snapshot(personalPlaces(process.env, home));
      const teardown = setup();
      // Their CLI, started outside the run (no TOOLSMITH_TEST_ROOT), in their own home: it answers from
      // and writes to their sample workspace's copy and cache folder, as it should.
      const theirs = await cli(['sandboxes'], { PATH: process.env['PATH']!, HOME: home });
      expect(theirs.err).toBe('');
      expect(theirs.out).toContain(`workspace ${join(home, '.local/share/toolsmith/sample-workspace')}`);
      // Their app registering an instance, and removing their home workspace.
      mkdirSync(join(home, '.local/share/toolsmith/instances'));
      writeFileSync(join(home, '.local/share/toolsmith/instances/theirs.json'), '{"pid":1}\n');
      rmSync(join(home, '.toolsmith'), { recursive: true });
      expect(await failure(teardown)).toBeUndefined();
      // (their files did change meanwhile: their CLI's cache entries are there)
      const changed = changes(before, snapshot(personalPlaces(process.env, home)));
      expect(changed.some((c) => /^created .*\/\.cache\/toolsmith\/verbs-[0-9a-f]{16}\.json /.test(c))).toBe(
        true,
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

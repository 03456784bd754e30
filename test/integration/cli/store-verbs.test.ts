/**
 * `runs list` and `template list` answered before main loads (src-main/cli/store-verbs.ts) print what
 * main prints, byte for byte, exit code included: main's answer (main() called directly) and bin/start.mjs's
 * on the same workspace, once main has kept the config's digest. The cases where the early path answers
 * (a config with warnings, a secret named by the config in a run's task, a damaged store, filters) and
 * where it must leave the answer to main (a --sandbox that lists nothing, a value main refuses, a config
 * edited since the digest, an invalid config). And `init --empty`, made and said before main loads
 * (src-main/cli/init-early.ts), against main's answer on a twin target. Each child is a fresh Node 24, as
 * a user starts it.
 */
import { fileURLToPath } from 'node:url';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { MAIN_SOURCE, runVerb, writeMainAndProbe } from './support/main-or-start.ts';
import type { Answer } from './support/main-or-start.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
let dir: string;
let ws: string;
let env: NodeJS.ProcessEnv;
const SECRET = 'sk-store-verbs-0123456789';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-store-verbs-'));
  ws = tempWorkspace('toolsmith-store-verbs-ws-');
  writeMainAndProbe(dir);
  env = {
    ...process.env,
    XDG_CACHE_HOME: join(dir, 'cache'),
    TOOLSMITH_HOME: join(dir, 'home'),
    TOOLSMITH_BACKEND: 'process',
    STORE_VERBS_KEY: SECRET,
    MAIN: MAIN_SOURCE,
  };
  // Runs: the fixture's, and one whose task holds the secret the config names.
  const fixture = readFileSync(join(root, 'test/fixtures/runs/run-v1.json'), 'utf8');
  const doc = JSON.parse(fixture) as { events: { runId: string; data: { task?: string } }[] };
  for (const e of doc.events) e.runId = '11111111-2222-4333-8444-555555555555';
  doc.events[0]!.data.task = `call with ${SECRET} please`;
  writeFileSync(join(dir, 'secret-run.json'), JSON.stringify(doc));
  for (const file of [join(root, 'test/fixtures/runs/run-v1.json'), join(dir, 'secret-run.json')])
    expect(cli('main', ['--workspace', ws, 'runs', 'import', file]).code).toBe(0);
  // A config naming the secret's variable, and one that warns.
  const config = join(ws, '.toolsmith/config.toml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(
      'model = "qwen2.5-coder:7b"\n',
      'model = "qwen2.5-coder:7b"\napi_key_env = "STORE_VERBS_KEY"\n',
    ),
  );
  appendFileSync(config, '\n[approval]\nkits = ["ordrs"]\n');
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
});

/** One verb: through main() itself, or bin/start.mjs (support/main-or-start.ts). */
const cli = (how: 'main' | 'start', args: string[]): Answer => runVerb(dir, how, args, env);

/** main's answer, then bin/start.mjs's: the same bytes and exit code; whether main answered the second. */
function same(args: string[]): { out: string; err: string; code: number | null; early: boolean } {
  const byMain = cli('main', args);
  const byStart = cli('start', args);
  expect({ out: byStart.out, err: byStart.err, code: byStart.code }, args.join(' ')).toEqual({
    out: byMain.out,
    err: byMain.err,
    code: byMain.code,
  });
  return { ...byStart, early: !byStart.main };
}

describe('runs list and template list before main', () => {
  it('print what main prints: the config warnings, secrets redacted, filters, JSON, templates', () => {
    const list = same(['--workspace', ws, 'runs', 'list']);
    expect(list.early).toBe(true);
    expect(list.out).toContain('6f1c2a9e');
    expect(list.out).toContain('call with [redacted] please');
    expect(list.out).not.toContain(SECRET);
    expect(list.err).toMatch(/^toolsmith: warning: .*approval\.kits names no kit "ordrs"/m);
    for (const args of [
      ['runs', 'list', '--json', '--count'],
      ['runs', 'list', '--status', 'succeeded', '--kind', 'all', '--limit', '1'],
      ['runs', 'list', '--search', 'March', '--sort', 'tokens', '--dir', 'asc'],
      ['runs', 'list', '--sandbox=ecommerce', '--since', '2020-01-01', '--until', '2099-01-01'],
      ['template', 'list'],
      ['template', 'list', '--json'],
    ])
      expect(same(['--workspace', ws, ...args]).early, args.join(' ')).toBe(true);
  });

  it('leave to main what they do not answer as main: a --sandbox with no runs, a refused value, a changed or invalid config', () => {
    for (const args of [
      ['runs', 'list', '--sandbox', 'nosuch'],
      ['runs', 'list', '--sandbox', 'support'],
      ['runs', 'list', '--limit', '0'],
      ['runs', 'list', '--status', ''],
      ['runs', 'list', '--bogus'],
      ['runs', 'list', '--suite-run', 'nope'],
      ['template', 'list', '--count'],
    ])
      expect(same(['--workspace', ws, ...args]).early, args.join(' ')).toBe(false);
    const copy = tempWorkspace('toolsmith-store-verbs-edited-');
    try {
      const config = join(copy, '.toolsmith/config.toml');
      // (a digest is kept for the copy's config, then the config is edited: a key no setting has)
      expect(same(['--workspace', copy, 'runs', 'list']).early).toBe(true);
      appendFileSync(config, '\n[limits2]\nx = 1\n');
      const edited = cli('start', ['--workspace', copy, 'runs', 'list']);
      expect(edited.main).toBe(true);
      expect(edited.err).toMatch(/limits2 is no setting/);
      // an invalid config: main says it on every start
      appendFileSync(config, 'bogus = = 1\n');
      for (let i = 0; i < 2; i++) expect(same(['--workspace', copy, 'runs', 'list']).early).toBe(false);
    } finally {
      removeWorkspace(copy);
    }
  });

  it('list templates as main does: a folder of templates, one that does not parse', () => {
    const copy = tempWorkspace('toolsmith-store-verbs-templates-');
    try {
      mkdirSync(join(copy, 'templates'));
      writeFileSync(
        join(copy, 'templates/email-of.tmpl'),
        '+++\nname = "email-of"\npattern = "email of user {user_id}"\nsandbox = "ecommerce"\nlanguage = "python"\nexamples = []\n\n[slots]\nuser_id = "str"\n\n+++\nr = get_user(user_id={{user_id}})\nemit_result(r.data)\n',
      );
      writeFileSync(join(copy, 'templates/broken.tmpl'), 'no front matter\n');
      for (const args of [
        ['template', 'list'],
        ['template', 'list', '--json'],
        ['runs', 'list'],
      ]) {
        const r = same(['--workspace', copy, ...args]);
        expect(r.early, args.join(' ')).toBe(true);
        if (args[0] === 'template') expect(r.out).toContain('email-of');
        if (args[0] === 'template' && args.length === 2) expect(r.err).toMatch(/broken\.tmpl/);
      }
    } finally {
      removeWorkspace(copy);
    }
  });

  it("say the run store's error as main says it, with --json too", () => {
    const copy = tempWorkspace('toolsmith-store-verbs-damaged-');
    try {
      expect(same(['--workspace', copy, 'runs', 'list']).early).toBe(true); // (the digest, an empty store)
      writeFileSync(join(copy, '.toolsmith/runs.db'), 'this is not a database at all'.repeat(200));
      for (const args of [
        ['runs', 'list'],
        ['runs', 'list', '--json'],
        ['template', 'list', '--json'],
      ]) {
        const r = same(['--workspace', copy, ...args]);
        expect(r.code).toBe(3);
        expect(r.err).toMatch(/^toolsmith: the run store .* is damaged/m);
        expect(r.early, args.join(' ')).toBe(true);
      }
    } finally {
      removeWorkspace(copy);
    }
  });
});

/**
 * `init [DIR] --empty` made and said before main loads (src-main/cli/init-early.ts): main's answer on one
 * target and bin/start.mjs's on a twin of it (the same name and contents in another folder), the folders'
 * names put back to one before comparing. Each case: the target as `setup` leaves it, then the verb.
 */
describe('init --empty before main', () => {
  function sameInit(
    setup: (target: string) => void,
    args: (target: string) => string[],
  ): { out: string; err: string; code: number | null; early: boolean } {
    const parents = { main: mkdtempSync(join(dir, 'init-m-')), start: mkdtempSync(join(dir, 'init-s-')) };
    const shown = { main: '', start: '' };
    const said: Record<string, ReturnType<typeof cli>> = {};
    for (const how of ['main', 'start'] as const) {
      const target = join(parents[how], 'new-ws');
      setup(target);
      said[how] = cli(how, args(target));
      shown[how] = JSON.stringify({
        out: said[how].out,
        err: said[how].err,
        code: said[how].code,
      }).replaceAll(parents[how], 'PARENT');
      if (said[how].code === 0)
        expect(readFileSync(join(target, '.toolsmith/config.toml'), 'utf8')).toContain('name = ');
    }
    expect(shown.start, args('DIR').join(' ')).toBe(shown.main);
    return { ...said['start']!, early: !said['start']!.main };
  }
  const none = () => {};
  // (the `next:` line names the command that ran: the same for both)
  beforeAll(() => {
    env.TOOLSMITH_INVOKED_AS = join(root, 'bin/toolsmith.mjs');
  });
  afterAll(() => {
    delete env.TOOLSMITH_INVOKED_AS;
  });

  it('makes and says the workspace as main does: a new or empty folder, --json, --name', () => {
    for (const args of [
      (t: string) => ['init', t, '--empty'],
      (t: string) => ['init', '--empty', t, '--json'],
      (t: string) => ['init', t, '--empty', '--name', 'my ws "quoted"'],
      (t: string) => ['init', t, '--name=other', '--json', '--empty'],
    ]) {
      const r = sameInit(none, args);
      expect(r.code).toBe(0);
      expect(r.early).toBe(true);
    }
    // an empty folder there already
    expect(
      sameInit(
        (t) => mkdirSync(t),
        (t) => ['init', t, '--empty'],
      ).early,
    ).toBe(true);
  });

  it('refuses what main refuses, as main says it: a workspace, a folder not empty, a file, with --json too', () => {
    const workspace = (t: string) => {
      mkdirSync(join(t, '.toolsmith'), { recursive: true });
      writeFileSync(join(t, '.toolsmith/config.toml'), 'name = "x"\n');
    };
    const notEmpty = (t: string) => {
      mkdirSync(t);
      writeFileSync(join(t, 'notes.txt'), 'mine\n');
    };
    const file = (t: string) => writeFileSync(t, 'a file\n');
    for (const setup of [workspace, notEmpty, file])
      for (const json of [[], ['--json']]) {
        const r = sameInit(setup, (t) => ['init', t, '--empty', ...json]);
        expect(r.code).toBe(2);
        expect(r.err).toMatch(/^toolsmith: /);
        expect(r.early).toBe(true);
      }
  });

  it('leaves to main the command lines it does not read as main does', () => {
    for (const args of [
      (t: string) => ['init', t], // (the sample's copy)
      (t: string) => ['init', t, '--empty', '--name', ''],
      (t: string) => ['init', t, '--empty', '--name', '  '],
      (t: string) => ['init', t, '--empty', '--name', 'a', '--name', 'b'],
      (t: string) => ['init', t, 'other', '--empty'],
      (t: string) => ['init', t, '--empty', '--bogus'],
      (t: string) => ['init', '--empty', '--', t],
      (t: string) => ['--workspace', t, 'init', t, '--empty'],
      () => ['init', '', '--empty'],
    ])
      expect(sameInit(none, args).early, args('DIR').join(' ')).toBe(false);
  });
});

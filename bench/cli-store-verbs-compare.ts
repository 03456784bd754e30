/**
 * `OLD_PREFIX=DIR NEW_PREFIX=DIR node bench/cli-store-verbs-compare.ts`: prints JSON. What `runs list` and
 * `template list` print (stdout, stderr, exit code) through two installed builds (`npm pack` + `npm
 * install -g --prefix DIR` of each, as bench/cli.bench.ts installs one), compared case by case: a check
 * that a change of their start (docs/scaling.md, issue 29) kept their output, not a timing.
 * Each build gets the same workspaces at the same paths, made afresh from the same templates, and a
 * cache folder and Toolsmith home of its own (fresh), so both see the same first start (main's path,
 * which keeps the config's digest), second (the early path keeping the digest key's memo) and third
 * (taking it). The workspaces: no store; six runs (a task with a newline, one with an escape sequence,
 * one holding a secret the config names, another model, a failed one, one left running by a process
 * that is gone: marked interrupted at the store's open) and a config warning; the same with a template
 * folder holding a template and one that does not parse; a damaged store. Then a store copied over the
 * empty one's runs.db and the first three lines run twice more. A case differs when any of the three
 * differs; the differing cases are printed whole.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunStore } from '../src-main/infra/store/run-store.ts';
import { runStarted } from '../test/support/run-records.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const OLD = process.env['OLD_PREFIX'];
const NEW = process.env['NEW_PREFIX'];
if (!OLD || !NEW) throw new Error('OLD_PREFIX and NEW_PREFIX: two prefixes a build was installed into');
const SECRET = 'tok-compare-5a7e';

const base = mkdtempSync(join(tmpdir(), 'toolsmith-compare-store-verbs-'));
const templates = join(base, 'templates');
const work = join(base, 'ws');

function sample(dir: string): void {
  cpSync(join(root, 'resources/workspace'), dir, {
    recursive: true,
    filter: (s) => !/runs\.db|logs/.test(s),
  });
}

/** Six runs written through the store of the sources (the same bytes for both builds). */
function seed(dir: string): void {
  const store = new RunStore(join(dir, '.toolsmith', 'runs.db'));
  const run = (task: string, model: string, end?: 'succeeded' | 'failed') => {
    const id = store.createRun(runStarted(task, { provider: 'local', model }));
    if (end)
      store.append(
        id,
        'run_finished',
        end === 'failed' ? { status: end, error: 'no such user' } : { status: end },
      );
  };
  run('email of user u1', 'coder-7b', 'succeeded');
  run('a task on\ntwo lines', 'coder-7b', 'succeeded');
  run('colours \u001b[31mred\u001b[0m here', 'coder-7b', 'failed');
  run(`call with ${SECRET} please`, 'coder-7b', 'succeeded');
  run('orders in March', 'big-model', 'succeeded');
  run('left running by a process that is gone', 'coder-7b');
  store.close();
}

const warned = (dir: string) =>
  appendFileSync(join(dir, '.toolsmith/config.toml'), '\n[approval]\nkits = ["ordrs"]\n');

function makeTemplates(): string[] {
  sample(join(templates, 'empty'));
  sample(join(templates, 'runs'));
  warned(join(templates, 'runs'));
  // (seeded in a child process that then ends: its running run's process is gone)
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import(${JSON.stringify(import.meta.url)})`],
    {
      env: { ...process.env, COMPARE_SEED: join(templates, 'runs') },
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`seeding: ${r.stderr}`);
  cpSync(join(templates, 'runs'), join(templates, 'templates'), { recursive: true });
  mkdirSync(join(templates, 'templates', 'templates'));
  writeFileSync(
    join(templates, 'templates', 'templates/email-of.tmpl'),
    '+++\nname = "email-of"\npattern = "email of user {user_id}"\nsandbox = "ecommerce"\nlanguage = "python"\nexamples = []\n\n[slots]\nuser_id = "str"\n\n+++\nr = get_user(user_id={{user_id}})\nemit_result(r.data)\n',
  );
  writeFileSync(join(templates, 'templates', 'templates/broken.tmpl'), 'no front matter\n');
  sample(join(templates, 'damaged'));
  writeFileSync(
    join(templates, 'damaged', '.toolsmith/runs.db'),
    'this is not a database at all'.repeat(200),
  );
  return ['empty', 'runs', 'templates', 'damaged'];
}

const LINES: string[][] = [
  ['runs', 'list'],
  ['runs', 'list', '--json'],
  ['runs', 'list', '--status', 'succeeded'],
  ['runs', 'list', '--status=failed'],
  ['runs', 'list', '--model', 'big-model'],
  ['runs', 'list', '--limit', '2'],
  ['runs', 'list', '--limit', '1', '--json', '--count'],
  ['runs', 'list', '--kind', 'all', '--sort', 'started', '--dir', 'asc'],
  ['runs', 'list', '--search', 'March'],
  ['runs', 'list', '--since', '2020-01-01', '--until', '2099-01-01'],
  ['runs', 'list', '--sandbox', 'ecommerce'],
  ['runs', 'list', '--limit', '0'],
  ['template', 'list'],
  ['template', 'list', '--json'],
];

interface Said {
  out: string;
  err: string;
  code: number | null;
}

/** Every case's output through the build in `prefix`, in order. */
function through(prefix: string, names: string[]): Map<string, Said> {
  rmSync(work, { recursive: true, force: true });
  for (const n of names) cpSync(join(templates, n), join(work, n), { recursive: true });
  const home = mkdtempSync(join(base, 'home-'));
  const env = {
    ...process.env,
    PATH: `/usr/bin:${process.env['PATH']}`,
    XDG_CACHE_HOME: join(home, 'cache'),
    TOOLSMITH_HOME: join(home, 'toolsmith'),
    TOOLSMITH_SHOP_TOKEN: SECRET,
  };
  const said = new Map<string, Said>();
  const one = (label: string, ws: string, line: string[]) => {
    const r = spawnSync(join(prefix, 'bin', 'toolsmith'), ['--workspace', join(work, ws), ...line], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    said.set(label, { out: r.stdout, err: r.stderr, code: r.status });
  };
  for (const ws of names)
    for (const line of LINES) for (let i = 1; i <= 3; i++) one(`${ws} | ${line.join(' ')} | #${i}`, ws, line);
  // A store copied over: the runs' store over the empty workspace's (whose digest and memo are kept).
  cpSync(join(work, 'runs', '.toolsmith', 'runs.db'), join(work, 'empty', '.toolsmith', 'runs.db'));
  for (const line of LINES.slice(0, 3))
    for (let i = 1; i <= 2; i++) one(`copied over | ${line.join(' ')} | #${i}`, 'empty', line);
  rmSync(home, { recursive: true, force: true });
  return said;
}

if (process.env['COMPARE_SEED']) seed(process.env['COMPARE_SEED']);
else {
  try {
    const names = makeTemplates();
    const before = through(OLD, names);
    const after = through(NEW, names);
    const differ = [...before].filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(after.get(k)));
    // (that the workspaces hold what they are for, in the old build's output: else "the same" says little)
    const seen = (k: string) => before.get(k) ?? { out: '', err: '', code: null };
    const checks = {
      sixRuns: seen('runs | runs list | #1').out.includes('6 of 6 run(s)'),
      secretRedacted:
        seen('runs | runs list | #3').out.includes('[redacted]') &&
        ![...before.values()].some((v) => v.out.includes(SECRET) || v.err.includes(SECRET)),
      interruptedMarked: seen('runs | runs list --json | #1').out.includes('"interrupted"'),
      configWarning: /approval\.kits names no kit "ordrs"/.test(seen('runs | runs list | #2').err),
      brokenTemplate: /broken\.tmpl/.test(seen('templates | template list | #2').err),
      damagedExit3: seen('damaged | runs list | #1').code === 3,
      copiedOverListed: seen('copied over | runs list | #1').out.includes('6 of 6 run(s)'),
    };
    console.log(
      JSON.stringify(
        {
          cases: before.size,
          same: before.size - differ.length,
          checks,
          exits: [...new Set([...before.values()].map((v) => v.code))],
          differ: differ.map(([k, v]) => ({ case: k, old: v, new: after.get(k) })),
        },
        null,
        2,
      ),
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * `kit list`, `kit info`, `tools`, `sandboxes`, `skill list`, `mcp-servers list` and `validate FILE` as fresh
 * processes answer from the last answer of an
 * unchanged workspace (the verb cache in the user's cache folder) and take the full path again when
 * anything they depend on changes: a kit file, tools.py, config.toml, a skill, the arguments, the script.
 * Every help answers from the last answer of the same arguments and terminal (width, colour variables).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { cliArgv, nodeBin, runToolsmith, shellLine } from '../../support/toolsmith-process.ts';
import type { VerbAnswer } from '../../../src-main/cli/verb-cache.ts';
import { contentHash } from '../../../src-main/core/tools/registry.ts';
import { SkillFiles } from '../../../src-main/infra/workspace/skill-files.ts';

let ws: string;
let cache: string;
let env: Record<string, string>;
const run = (args: string[]) => runToolsmith(ws, args, env);
const cacheFiles = () =>
  existsSync(join(cache, 'toolsmith'))
    ? readdirSync(join(cache, 'toolsmith')).filter((f) => f.startsWith('verbs-'))
    : [];
/** The answers the verb cache holds. */
const answers = (): VerbAnswer[] =>
  cacheFiles().flatMap(
    (f) =>
      (JSON.parse(readFileSync(join(cache, 'toolsmith', f), 'utf8')) as { answers: VerbAnswer[] }).answers,
  );

beforeAll(() => {
  // The colour variables are part of a help's key: the runner's own (a NO_COLOR=1 in a person's shell)
  // made the help without them the same key as the help with NO_COLOR=1, so the test below failed.
  // Each test sets the ones it means.
  for (const v of ['NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE']) delete process.env[v];
  ws = tempWorkspace('toolsmith-verb-cache-');
  cache = mkdtempSync(join(tmpdir(), 'toolsmith-verb-cache-home-'));
  env = { XDG_CACHE_HOME: cache, TOOLSMITH_BACKEND: 'process' };
});
afterAll(() => {
  removeWorkspace(ws);
  rmSync(cache, { recursive: true, force: true });
});

describe('the verb cache of kit list, tools and validate', () => {
  it('kit list: the second answer is the first, from the cache; a changed kit file is read anew', async () => {
    const first = await run(['kit', 'list']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^inventory\s+ecommerce/m);
    expect(cacheFiles()).toHaveLength(1);
    const second = await run(['kit', 'list']);
    expect(second).toEqual(first);

    writeFileSync(
      join(ws, 'kits', 'inventory.kit'),
      'name = "inventory"\nsandbox = "ecommerce"\ntools = ["no_such_tool"]\n',
    );
    const changed = await run(['kit', 'list']);
    expect(changed.code).toBe(0);
    expect(changed.out).toMatch(/^inventory\s+ecommerce\s+REFUSED: .*no_such_tool/m);
    expect(changed.out).not.toEqual(first.out);
  }, 60_000);

  it('kit info NAME: kept like kit list, each name its own answer; a changed kit file is read anew', async () => {
    const orders = await run(['kit', 'info', 'orders']);
    expect(orders.code).toBe(0);
    expect(orders.out).toMatch(/^orders \(sandbox ecommerce\) grade /);
    const helpdesk = await run(['kit', 'info', 'helpdesk', '--json']);
    expect(helpdesk.code).toBe(0);
    expect(JSON.parse(helpdesk.out)).toMatchObject({ name: 'helpdesk', sandbox: 'support' });
    // Both answers are kept, and the next runs are given them.
    expect(answers().map((a) => a.out)).toEqual(expect.arrayContaining([orders.out, helpdesk.out]));
    expect(await run(['kit', 'info', 'orders'])).toEqual(orders);
    expect(await run(['kit', 'info', 'helpdesk', '--json'])).toEqual(helpdesk);
    // A name no kit has is a usage error, never kept.
    const none = await run(['kit', 'info', 'nope']);
    expect(none.code).toBe(2);
    expect(answers().some((a) => a.err === none.err)).toBe(false);

    writeFileSync(
      join(ws, 'kits', 'orders.kit'),
      'name = "orders"\nsandbox = "ecommerce"\ndescription = "Orders, edited."\ntools = ["get_user"]\n',
    );
    const changed = await run(['kit', 'info', 'orders']);
    expect(changed.code).toBe(0);
    expect(changed.out).toContain('Orders, edited.');
    expect(changed.out).not.toEqual(orders.out);
  }, 60_000);

  it('tools: each command line has its own answer; an edited tools.py is read anew', async () => {
    const xml = await run(['tools', '--sandbox', 'ecommerce']);
    const json = await run(['tools', '--sandbox', 'ecommerce', '--format', 'json']);
    expect(xml.code).toBe(0);
    expect(json.code).toBe(0);
    expect(xml.out).not.toEqual(json.out);
    expect(await run(['tools', '--sandbox', 'ecommerce'])).toEqual(xml);
    expect(await run(['tools', '--sandbox', 'ecommerce', '--format', 'json'])).toEqual(json);

    appendFileSync(
      join(ws, 'sandboxes', 'ecommerce', 'tools.py'),
      '\n\n@tool\ndef count_widgets(color: str) -> ToolResponse:\n    """Counts the widgets of one color."""\n    return ToolResponse(success=True, data=3)\n',
    );
    const after = await run(['tools', '--sandbox', 'ecommerce', '--format', 'json']);
    expect(after.code).toBe(0);
    expect(after.out).toContain('count_widgets');
    expect(json.out).not.toContain('count_widgets');
  }, 60_000);

  it('a failing command line is never kept: it fails again with its reason', async () => {
    const bad = await run(['tools', '--sandbox', 'nope']);
    expect(bad.code).not.toBe(0);
    expect(await run(['tools', '--sandbox', 'nope'])).toEqual(bad);
    expect(bad.err).toMatch(/nope/);
  }, 60_000);

  it('validate FILE: an invalid script keeps its answer and exit 1; an edited script or tools.py is read anew', async () => {
    const script = join(ws, 'check.py');
    writeFileSync(script, 'import os\nr = get_user(user_id="u1")\nemit_result(r.data)\n');
    const args = ['validate', script, '--sandbox', 'ecommerce'];
    const bad = await run(args);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/:1:1: no-import: /);
    expect(await run(args)).toEqual(bad);
    // The answer is kept with its exit code (the second run above was answered from it).
    expect(
      answers()
        .filter((a) => a.out === bad.out)
        .map((a) => a.code),
    ).toEqual([1]);

    writeFileSync(script, 'r = get_user(user_id="u1")\nemit_result(r.data)\n');
    const good = await run(args);
    expect(good).toEqual({ code: 0, out: `${script}: valid (python)\n`, err: '' });
    expect(await run(args)).toEqual(good);

    // A tool gone from the sandbox: the same script is checked again and now calls an unknown function.
    const tools = join(ws, 'sandboxes', 'ecommerce', 'tools.py');
    writeFileSync(tools, readFileSync(tools, 'utf8').replace(/\bdef get_user\(/, 'def get_member('));
    const gone = await run(args);
    expect(gone.code).toBe(1);
    expect(gone.out).toMatch(/unknown-function: .*get_user/);
  }, 60_000);

  it('validate FILE: a skill made or deleted changes the answer (the skills a script may call)', async () => {
    const script = join(ws, 'skill-call.py');
    writeFileSync(script, 'emit_result(order_count(user_id="u1"))\n');
    const args = ['validate', script, '--sandbox', 'ecommerce'];
    const before = await run(args);
    expect(before.code).toBe(1);
    expect(before.out).toMatch(/unknown-function: order_count\(\)/);
    expect(await run(args)).toEqual(before);

    // As `skill create` leaves it: the skill's file, and its passing test verdict for that text.
    const text = [
      '# +++',
      '# version = 1',
      '# +++',
      'def order_count(user_id: str):',
      '    """How many orders a user has."""',
      '    return len([o for o in get_orders().data if o["user_id"] == user_id])',
      '',
    ].join('\n');
    const files = new SkillFiles(ws);
    const file = join(ws, 'skills', 'ecommerce', 'order_count.py');
    mkdirSync(join(ws, 'skills', 'ecommerce'), { recursive: true });
    writeFileSync(file, text);
    files.setVerdict('ecommerce', 'order_count', {
      passed: true,
      hash: contentHash(text),
      at: 1,
      failures: [],
    });
    const made = await run(args);
    expect(made).toEqual({ code: 0, out: `${script}: valid (python)\n`, err: '' });

    // As `skill delete` leaves it (its last version kept in the history): the answer about the old set
    // of skills is not given again, nor the first answer ("not defined"): the skill was deleted.
    expect(files.delete('ecommerce', 'order_count')).toBe(true);
    expect(existsSync(file)).toBe(false);
    const deleted = await run(args);
    expect(deleted.code).toBe(1);
    expect(deleted.out).toMatch(
      /skill-not-offered: order_count\(\) is a skill this script is not offered: skill order_count of sandbox ecommerce was deleted/,
    );
    expect(deleted.out).toContain('(its last version, v1, is kept');
    expect(await run(args)).toEqual(deleted);
    // Saved and deleted again (one more version in the history, the rest as before): the answer names
    // the version kept now, not the cached v1.
    writeFileSync(join(ws, '.toolsmith', 'skills-history', 'ecommerce', 'order_count', 'v2.py'), text);
    const again = await run(args);
    expect(again.out).toContain('(its last version, v2, is kept');
  }, 60_000);

  it('validate from standard input and usage errors are never kept', async () => {
    const before = answers();
    const input = await run(['validate', '-', '--sandbox', 'ecommerce']);
    expect(input.code).toBe(1); // nothing on standard input: no statements, no emit
    const usage = await run(['validate', join(ws, 'check.py'), '--sandbox', 'ecommerce', '--tools', 'a']);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/either --sandbox or --tools/);
    expect(answers()).toEqual(before);
  }, 60_000);
});

/** `toolsmith ARGS` as typed (no --workspace added), with the cache folder `xdg`. */
function bare(args: string[], xdg = cache, more: Record<string, string> = {}) {
  const r = spawnSync(...cliArgv(args), {
    env: { ...process.env, ...env, XDG_CACHE_HOME: xdg, ...more },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}
/** `toolsmith ARGS` in a terminal `cols` wide (a pty, util-linux's `script`): what it printed there. */
function inTerminal(cols: number, args: string[], xdg = cache): string {
  const command = `stty cols ${cols}; ${shellLine(cliArgv(args).flat())}`;
  // No locale of the runner's: one the machine lacks (an LC_ALL=tr_TR.UTF-8 passed on by ssh) made the
  // shell `script` starts print "bash: warning: setlocale: ..." into the terminal, before the help.
  const own = Object.entries(process.env).filter(([v]) => !/^(LANG|LANGUAGE|LC_\w+)$/.test(v));
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    // (`script` runs the command with $SHELL -c: a service account's /usr/sbin/nologin started nothing)
    env: { ...Object.fromEntries(own), LANG: 'C.UTF-8', SHELL: '/bin/sh', ...env, XDG_CACHE_HOME: xdg },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}
/** Every kept answer whose output `pick` selects now says PLANTED: a later run printing it was a hit. */
function plant(pick: (a: VerbAnswer) => boolean): number {
  let n = 0;
  for (const f of readdirSync(join(cache, 'toolsmith')).filter((x) => x.startsWith('verbs-'))) {
    const file = join(cache, 'toolsmith', f);
    const data = JSON.parse(readFileSync(file, 'utf8')) as { answers: VerbAnswer[] };
    for (const a of data.answers) {
      if (!pick(a)) continue;
      a.out = 'PLANTED\n';
      n++;
    }
    writeFileSync(file, JSON.stringify(data));
  }
  return n;
}
const PLANTED = { code: 0, out: 'PLANTED\n', err: '' };
/** main's own answer: a cache folder of its own, empty. */
const fresh = () => mkdtempSync(join(tmpdir(), 'toolsmith-verb-cache-fresh-'));

describe('the verb cache of sandboxes', () => {
  it("answers main's very bytes, text and --json, from the cache", async () => {
    for (const args of [['sandboxes'], ['sandboxes', '--json']]) {
      const main = await runToolsmith(ws, args, { ...env, XDG_CACHE_HOME: fresh() });
      expect(main.code).toBe(0);
      expect(main.out).toContain('ecommerce');
      expect(await run(args)).toEqual(main); // (the full path, or the snapshot: kept)
      expect(answers().filter((a) => a.out === main.out)).toHaveLength(1);
      expect(await run(args)).toEqual(main);
    }
  }, 60_000);

  it('a change to config.toml, tools.py, the sandbox folders, a skill or its verdicts is read anew', async () => {
    const changes: [string, () => void][] = [
      ['config.toml', () => appendFileSync(join(ws, '.toolsmith', 'config.toml'), '\n# edited\n')],
      ['tools.py', () => appendFileSync(join(ws, 'sandboxes', 'ecommerce', 'tools.py'), '\n# edited\n')],
      ['a new sandbox folder', () => mkdirSync(join(ws, 'sandboxes', 'zz-new'))],
      [
        'a skill file',
        () => {
          mkdirSync(join(ws, 'skills', 'ecommerce'), { recursive: true });
          writeFileSync(
            join(ws, 'skills', 'ecommerce', 'noop.py'),
            'def noop():\n    """Nothing."""\n    return 1\n',
          );
        },
      ],
      [
        "the skills' verdicts",
        () =>
          new SkillFiles(ws).setVerdict('ecommerce', 'noop', {
            passed: false,
            hash: 'x',
            at: 2,
            failures: [],
          }),
      ],
    ];
    for (const [what, change] of changes) {
      expect((await run(['sandboxes'])).code, what).toBe(0); // the answer of the current state, kept
      expect(
        plant((a) => a.out.startsWith('workspace ')),
        what,
      ).toBeGreaterThan(0);
      expect(await run(['sandboxes']), what).toEqual(PLANTED);
      change();
      const after = await run(['sandboxes']);
      expect(after, what).not.toEqual(PLANTED);
      expect(after, what).toEqual(await runToolsmith(ws, ['sandboxes'], { ...env, XDG_CACHE_HOME: fresh() }));
    }
    // Other arguments are another answer.
    expect(await run(['sandboxes', '--json'])).not.toEqual(PLANTED);
  }, 120_000);

  it('a sandboxes snapshot gone is written again: the kept answer waits for it (validate reads it before main)', async () => {
    const main = await run(['sandboxes']);
    expect(main.code).toBe(0);
    const snapshots = () => readdirSync(join(cache, 'toolsmith')).filter((f) => f.startsWith('sandboxes-'));
    expect(snapshots()).toHaveLength(1);
    plant((a) => a.out.startsWith('workspace '));
    expect(await run(['sandboxes'])).toEqual(PLANTED);
    rmSync(join(cache, 'toolsmith', snapshots()[0]!));
    expect(await run(['sandboxes'])).toEqual(main);
    expect(snapshots()).toHaveLength(1);
    expect(await run(['sandboxes'])).toEqual(main);
  }, 60_000);
});

describe('the verb cache of helps', () => {
  const HELPS = [
    [],
    ['--help'],
    ['-h'],
    ['help'],
    ['help', 'kit'],
    ['kit', '--help'],
    ['kit', 'list', '--help'],
    ['validate', '--help'],
    ['mcp', '--help'],
    ['--workspace', '/no/such/folder', 'run', '--help'],
  ];

  it("answers main's very bytes for every help, from the cache; a group verb without its subcommand is never kept", () => {
    const xdg = fresh();
    for (const args of HELPS) {
      const main = bare(args, xdg);
      expect(main.code, args.join(' ')).toBe(0);
      expect(main.out, args.join(' ')).toMatch(/^Usage: toolsmith/);
      expect(bare(args)).toEqual(main); // the full path: kept
      expect(bare(args)).toEqual(main); // from the cache
    }
    const kept = answers().length;
    expect(plant((a) => a.out.startsWith('Usage: toolsmith'))).toBe(HELPS.length);
    for (const args of HELPS) expect(bare(args), args.join(' ')).toEqual(PLANTED);
    const group = bare(['kit']);
    expect(group.code).toBe(2);
    expect(group.err).toMatch(/^Usage: toolsmith kit/);
    expect(bare(['kit'])).toEqual(group);
    expect(answers()).toHaveLength(kept);
  }, 120_000);

  it("another terminal width or colour variable is another answer (commander wraps to the terminal's width)", () => {
    const xdg = fresh();
    const narrow = inTerminal(60, ['--help'], xdg);
    const wide = inTerminal(200, ['--help'], xdg);
    expect(narrow).toMatch(/^Usage: toolsmith/);
    expect(narrow).not.toEqual(wide);
    expect(inTerminal(60, ['--help'])).toEqual(narrow); // kept
    bare(['--help']); // kept too, not in a terminal (unless an earlier test keeps it already)
    plant((a) => a.out.startsWith('Usage: toolsmith'));
    expect(inTerminal(60, ['--help'])).toBe('PLANTED\r\n');
    expect(inTerminal(200, ['--help'])).toEqual(wide);
    expect(inTerminal(120, ['kit', '--help'])).toEqual(inTerminal(120, ['kit', '--help'], fresh()));
    // Not a terminal (the answers planted above): a colour variable set is another key.
    expect(bare(['--help'])).toEqual(PLANTED);
    expect(bare(['--help'], cache, { NO_COLOR: '1' })).toEqual(bare(['--help'], fresh(), { NO_COLOR: '1' }));
    expect(bare(['--help'], cache, { FORCE_COLOR: '0' }).out).toMatch(/^Usage: toolsmith/);
  }, 120_000);
});

describe('the output of an answer given before main loads (written on the descriptors)', () => {
  // A workspace of its own: the tests above edit tools.py.
  let own: string;
  beforeAll(() => void (own = tempWorkspace('toolsmith-verb-cache-output-')));
  afterAll(() => removeWorkspace(own));
  /** `toolsmith ARGS` with standard output `stdout` (a file descriptor or 'pipe'); its code and stderr. */
  function withStdout(args: string[], stdout: number | 'pipe') {
    const r = spawnSync(...cliArgv(['--workspace', own, ...args]), {
      env: { ...process.env, ...env, XDG_CACHE_HOME: cache },
      stdio: ['ignore', stdout, 'pipe'],
      encoding: 'utf8',
    });
    return { code: r.status ?? -1, err: r.stderr, out: r.stdout };
  }

  it('a full disk is one line and exit 3, a reader gone exit 0, a pipe gets the whole answer: from the cache, validate FILE from the snapshot, and main alike', async () => {
    expect((await runToolsmith(own, ['sandboxes'], env)).code).toBe(0); // the snapshot that validate FILE reads before main
    const kit = ['kit', 'list'];
    const main = await runToolsmith(own, kit, env); // main's answer, kept
    expect(main.code).toBe(0);
    const script = join(own, 'early-output.py');
    let n = 0;
    const newScript = () => {
      writeFileSync(script, `# ${++n}\nr = get_user(user_id="u1")\nemit_result(r.data)\n`);
      return ['validate', script, '--sandbox', 'ecommerce'];
    };
    const full = openSync('/dev/full', 'w');
    try {
      for (const args of [kit, newScript()]) {
        const r = withStdout(args, full);
        expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(3);
        expect(r.err).toMatch(/^toolsmith: disk full: the output could not be written \(ENOSPC: /);
        expect(r.err.trim().split('\n')).toHaveLength(1);
      }
    } finally {
      closeSync(full);
    }
    // A reader that is gone before the answer is written: the pipe's only read end, closed at once.
    for (const args of [kit, newScript()]) {
      const child = spawn(...cliArgv(['--workspace', own, ...args]), {
        env: { ...process.env, ...env, XDG_CACHE_HOME: cache },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.destroy();
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, `${args.join(' ')}: ${err}`).toBe(0);
      expect(err).toBe('');
    }
    // A pipe: the whole answer, the same bytes as main's.
    expect(withStdout(kit, 'pipe').out).toBe(main.out);
    const args = newScript();
    expect(withStdout(args, 'pipe').out).toBe(`${script}: valid (python)\n`);
    expect(answers().some((a) => a.out === `${script}: valid (python)\n`)).toBe(true);
  }, 60_000);
});

describe('the verb cache of skill list and mcp-servers list', () => {
  // A workspace and cache folder of their own: the answers planted here are only these verbs'.
  let ws2: string;
  let cache2: string;
  let env2: Record<string, string>;
  beforeAll(() => {
    ws2 = tempWorkspace('toolsmith-verb-cache-lists-');
    cache2 = mkdtempSync(join(tmpdir(), 'toolsmith-verb-cache-lists-home-'));
    env2 = { XDG_CACHE_HOME: cache2, TOOLSMITH_BACKEND: 'process' };
  });
  afterAll(() => {
    removeWorkspace(ws2);
    rmSync(cache2, { recursive: true, force: true });
  });
  const run2 = (args: string[]) => runToolsmith(ws2, args, env2);
  /** main's own answer: an empty cache folder of its own. */
  const main2 = (args: string[]) => runToolsmith(ws2, args, { ...env2, XDG_CACHE_HOME: fresh() });
  /** Every answer kept in this cache folder now says PLANTED: a later run printing it was a hit. */
  const plantAll = (): number => {
    let n = 0;
    for (const f of readdirSync(join(cache2, 'toolsmith')).filter((x) => x.startsWith('verbs-'))) {
      const file = join(cache2, 'toolsmith', f);
      const data = JSON.parse(readFileSync(file, 'utf8')) as { answers: VerbAnswer[] };
      for (const a of data.answers) {
        a.out = 'PLANTED\n';
        a.err = '';
        n++;
      }
      writeFileSync(file, JSON.stringify(data));
    }
    return n;
  };

  it("skill list: main's answer kept and given from the cache; a skill, its verdict or tools.py changed is read anew; never kept with MCP servers", async () => {
    const lines = [
      ['skill', 'list'],
      ['skill', 'list', '--sandbox', 'ecommerce', '--json'],
    ];
    for (const args of lines) {
      const main = await main2(args);
      expect(main.code).toBe(0);
      expect(await run2(args)).toEqual(main); // (the full path: kept)
      expect(await run2(args)).toEqual(main);
    }
    expect(plantAll()).toBe(lines.length);
    for (const args of lines) expect(await run2(args)).toEqual(PLANTED);

    const skill = 'def noop():\n    """Nothing."""\n    return 1\n';
    const changes: [string, () => void][] = [
      [
        'a skill file',
        () => {
          mkdirSync(join(ws2, 'skills', 'ecommerce'), { recursive: true });
          writeFileSync(join(ws2, 'skills', 'ecommerce', 'noop.py'), skill);
        },
      ],
      [
        "the skills' verdicts",
        () =>
          new SkillFiles(ws2).setVerdict('ecommerce', 'noop', {
            passed: true,
            hash: contentHash(skill),
            at: 2,
            failures: [],
          }),
      ],
      ['tools.py', () => appendFileSync(join(ws2, 'sandboxes', 'ecommerce', 'tools.py'), '\n# edited\n')],
    ];
    for (const [what, change] of changes) {
      change();
      for (const args of lines) {
        const after = await run2(args);
        expect(after, what).not.toEqual(PLANTED);
        expect(after, what).toEqual(await main2(args));
        expect(after.out, what).toContain('noop');
        expect(await run2(args), what).toEqual(after);
      }
      expect(plantAll(), what).toBeGreaterThan(0);
    }
    // A sandbox that is not the workspace's: a usage error, never kept.
    const bad = await run2(['skill', 'list', '--sandbox', 'nope']);
    expect(bad.code).toBe(2);
    expect(await run2(['skill', 'list', '--sandbox', 'nope'])).toEqual(bad);

    // A workspace whose sandboxes import MCP tools: its skills' tools come from live servers, so
    // nothing is kept (as for kit list and tools).
    appendFileSync(
      join(ws2, '.toolsmith', 'config.toml'),
      '\n[mcp_servers.files]\ncommand = "node"\nargs = ["server.mjs"]\n\n[sandboxes.ecommerce.mcp.files]\n',
    );
    const withMcp = await run2(['skill', 'list']);
    expect(withMcp.code, withMcp.err).toBe(0);
    plantAll();
    expect(await run2(['skill', 'list'])).toEqual(withMcp);
  }, 180_000);

  it('mcp-servers list: kept with MCP servers declared or not (it connects to none); a server declared is read anew', async () => {
    // (a workspace of its own: the test before declared a server in its config)
    removeWorkspace(ws2);
    ws2 = tempWorkspace('toolsmith-verb-cache-mcp-');
    const lines = [
      ['mcp-servers', 'list'],
      ['mcp-servers', 'list', '--json'],
    ];
    const before: Record<string, { code: number; out: string; err: string }> = {};
    for (const args of lines) {
      const main = await main2(args);
      expect(main.code).toBe(0);
      expect(await run2(args)).toEqual(main);
      expect(await run2(args)).toEqual(main);
      before[args.join(' ')] = main;
    }
    expect(before['mcp-servers list']!.out).toMatch(/^no MCP servers declared/m);
    plantAll();
    for (const args of lines) expect(await run2(args)).toEqual(PLANTED);

    appendFileSync(
      join(ws2, '.toolsmith', 'config.toml'),
      '\n[mcp_servers.silent]\ncommand = "node"\nargs = ["silent.mjs", "--silent"]\n\n[sandboxes.mute]\ndescription = "A server that never answers."\n\n[sandboxes.mute.mcp.silent]\n',
    );
    for (const args of lines) {
      const after = await run2(args);
      expect(after).not.toEqual(PLANTED);
      expect(after).toEqual(await main2(args));
      expect(after.out).toContain('silent');
      expect(await run2(args)).toEqual(after);
    }
    // Kept, MCP servers and all: the next runs are answered from the cache.
    plantAll();
    for (const args of lines) expect(await run2(args)).toEqual(PLANTED);
  }, 120_000);
});

describe('the verb cache of prompt', () => {
  const SECRET = 'shop-token-0123456789';
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  /**
   * A workspace, cache folder and prompt texts of its own ($TOOLSMITH_RESOURCES: a copy of
   * resources/prompts) for each test: `run` through that cache, `main` through an empty one (main's own
   * answer), `plantAll` makes every kept answer say PLANTED (a later run printing it was a hit).
   */
  function setup(prefix: string) {
    const ws = tempWorkspace(`toolsmith-verb-cache-${prefix}-`);
    const cache = mkdtempSync(join(tmpdir(), `toolsmith-verb-cache-${prefix}-home-`));
    const resources = mkdtempSync(join(tmpdir(), `toolsmith-verb-cache-${prefix}-resources-`));
    made.push(ws, cache, resources);
    cpSync(join(repoRoot, 'resources', 'prompts'), join(resources, 'prompts'), { recursive: true });
    const env = { XDG_CACHE_HOME: cache, TOOLSMITH_BACKEND: 'process', TOOLSMITH_RESOURCES: resources };
    const run = (args: string[], more: Record<string, string> = {}) =>
      runToolsmith(ws, args, { ...env, ...more });
    const kept = (): VerbAnswer[] =>
      existsSync(join(cache, 'toolsmith'))
        ? readdirSync(join(cache, 'toolsmith'))
            .filter((f) => f.startsWith('verbs-'))
            .flatMap(
              (f) =>
                (JSON.parse(readFileSync(join(cache, 'toolsmith', f), 'utf8')) as { answers: VerbAnswer[] })
                  .answers,
            )
        : [];
    const plantAll = (): number => {
      let n = 0;
      for (const f of readdirSync(join(cache, 'toolsmith')).filter((x) => x.startsWith('verbs-'))) {
        const file = join(cache, 'toolsmith', f);
        const data = JSON.parse(readFileSync(file, 'utf8')) as { answers: VerbAnswer[] };
        for (const a of data.answers) {
          a.out = 'PLANTED\n';
          a.err = '';
          n++;
        }
        writeFileSync(file, JSON.stringify(data));
      }
      return n;
    };
    return {
      ws,
      resources,
      env,
      run,
      main: (args: string[], more: Record<string, string> = {}) =>
        run(args, { ...more, XDG_CACHE_HOME: fresh() }),
      kept,
      plantAll,
    };
  }
  // (the runner's own value would make every answer of these tests redacted)
  beforeAll(() => {
    delete process.env['TOOLSMITH_SHOP_TOKEN'];
  });

  it("prompt: main's answer kept and given from the cache; whatever it depends on changed is read anew", async () => {
    const { ws, resources, run, main, plantAll } = setup('prompt');
    writeFileSync(join(ws, 'previous.py'), 'r = get_user(user_id="u1")\nemit_result(r.data.email)\n');
    writeFileSync(join(ws, 'previous.err'), "AttributeError: 'dict' object has no attribute 'email'\n");
    const lines = [
      ['prompt', '--task', 'email of user u1', '--sandbox', 'ecommerce'],
      ['prompt', '--task', `the token ${SECRET} of user u1`, '--json'],
      ['prompt', '--task', 'orders of user u1', '--kit', 'orders', '--lang', 'ts'],
      [
        'prompt',
        '--task',
        'email of user u1',
        '--attempt',
        '2',
        '--previous-script',
        join(ws, 'previous.py'),
        `--previous-error=${join(ws, 'previous.err')}`,
      ],
    ];
    for (const args of lines) {
      const first = await main(args);
      expect(first.code, first.err).toBe(0);
      expect(await run(args)).toEqual(first); // (the full path: kept)
      expect(await run(args)).toEqual(first);
    }
    expect(plantAll()).toBe(lines.length);
    for (const args of lines) expect(await run(args)).toEqual(PLANTED);

    const skill = 'def first_email():\n    """The email of user u1."""\n    return 1\n';
    const changes: [string, () => void][] = [
      ['tools.py', () => appendFileSync(join(ws, 'sandboxes', 'ecommerce', 'tools.py'), '\n# edited\n')],
      ['config.toml', () => appendFileSync(join(ws, '.toolsmith', 'config.toml'), '\n# edited\n')],
      ['a kit file', () => appendFileSync(join(ws, 'kits', 'orders.kit'), '\n# edited\n')],
      [
        'a skill and its verdict',
        () => {
          mkdirSync(join(ws, 'skills', 'ecommerce'), { recursive: true });
          writeFileSync(join(ws, 'skills', 'ecommerce', 'first_email.py'), skill);
          new SkillFiles(ws).setVerdict('ecommerce', 'first_email', {
            passed: true,
            hash: contentHash(skill),
            at: 2,
            failures: [],
          });
        },
      ],
      ["the previous attempt's error", () => appendFileSync(join(ws, 'previous.err'), 'KeyError: email\n')],
      [
        'a prompt text',
        () => appendFileSync(join(resources, 'prompts', 'system.md'), '\nAnswer in one script.\n'),
      ],
    ];
    for (const [what, change] of changes) {
      change();
      let read = 0;
      for (const args of lines) {
        const after = await run(args);
        if (after.out !== PLANTED.out) read++;
        expect(after, `${what}: ${args.join(' ')}`).toEqual(
          after.out === PLANTED.out ? PLANTED : await main(args),
        );
        expect(await run(args), what).toEqual(after);
      }
      // Each change is read anew by every command line (the previous error: only by the retry's, whose
      // key holds the file).
      const expected = what === "the previous attempt's error" ? 1 : lines.length;
      expect(read, what).toBe(expected);
      if (what === 'a skill and its verdict') expect((await run(lines[0]!)).out).toContain('first_email');
      if (what === 'a prompt text') expect((await run(lines[0]!)).out).toContain('Answer in one script.');
      expect(plantAll(), what).toBeGreaterThan(0);
    }

    // A secret the redactor knows from the environment (a variable config.toml names): the answer
    // kept without it set is not given while it is set.
    const secret = lines[1]!;
    expect(await run(secret)).toEqual(PLANTED);
    const redacted = await run(secret, { TOOLSMITH_SHOP_TOKEN: SECRET });
    expect(redacted.out).not.toContain(SECRET);
    expect(redacted.out).toContain('[redacted]');
    expect(redacted).toEqual(await main(secret, { TOOLSMITH_SHOP_TOKEN: SECRET }));
    expect(await run(secret, { TOOLSMITH_SHOP_TOKEN: SECRET })).toEqual(redacted);
  }, 300_000);

  it('tools: an answer kept without a secret in the environment is not given once it is set', async () => {
    const { ws, run, main } = setup('secret');
    appendFileSync(
      join(ws, 'sandboxes', 'ecommerce', 'tools.py'),
      `\n\n@tool\ndef shop_status() -> ToolResponse:\n    """The shop's status (token ${SECRET})."""\n    return ToolResponse(success=True, data=1)\n`,
    );
    const args = ['tools', '--sandbox', 'ecommerce'];
    const plain = await run(args);
    expect(plain.out).toContain(SECRET);
    expect(await run(args)).toEqual(plain);
    const set = await run(args, { TOOLSMITH_SHOP_TOKEN: SECRET });
    expect(set.out).not.toContain(SECRET);
    expect(set).toEqual(await main(args, { TOOLSMITH_SHOP_TOKEN: SECRET }));
  }, 120_000);

  it('prompt: from standard input, a usage error, or with MCP servers: never kept', async () => {
    const { ws, env, run, kept } = setup('prompt-never');
    const stdin = await runToolsmith(
      ws,
      ['prompt', '--task', 't', '--attempt', '2', '--previous-script', '-'],
      env,
      'x = 1\n',
    );
    expect(stdin.code, stdin.err).toBe(0);
    expect(stdin.out).toContain('x = 1');
    const unknown = await run(['prompt', '--task', 't', '--sandbox', 'nope']);
    expect(unknown.code).toBe(2);
    expect(await run(['prompt', '--task', 't', '--sandbox', 'nope'])).toEqual(unknown);
    const missing = await run(['prompt', '--task', 't', '--attempt', '2', '--previous-script', 'nope.py']);
    expect(missing.code).toBe(2);
    expect(kept()).toEqual([]);

    appendFileSync(
      join(ws, '.toolsmith', 'config.toml'),
      `\n[mcp_servers.files]\ncommand = ${JSON.stringify(nodeBin)}\nargs = [${JSON.stringify(join(repoRoot, 'test/fixtures/mcp/faulty-server.mjs'))}]\n\n[sandboxes.ecommerce.mcp.files]\n`,
    );
    const withMcp = await run(['prompt', '--task', 't', '--sandbox', 'ecommerce']);
    expect(withMcp.code, withMcp.err).toBe(0);
    expect(kept()).toEqual([]);
  }, 120_000);
});

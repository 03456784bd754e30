/**
 * The command line as a new user meets it: a suite run id taken by a unique start (as run ids are), an
 * ambiguous start refused naming the candidates; an unknown subcommand of a verb group answered with
 * the group's subcommands; `kit create --json`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import type { SuiteRunSpec } from '../../../src-main/core/suites/run.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { tempWorkspace } from '../../support/workspace.ts';

let ws: string;
const spec = (suite: string): SuiteRunSpec => ({
  suite,
  sandbox: 'ecommerce',
  columns: [],
  cases: [],
  concurrency: 1,
  planned: 0,
  toolsHash: 'x',
});
// Two suite runs that share their first 6 characters, one that is alone under its start.
const A = 'abcdef01-0000-4000-8000-000000000001';
const B = 'abcdef02-0000-4000-8000-000000000002';
const C = '77770000-0000-4000-8000-000000000003';

beforeAll(() => {
  ws = tempWorkspace();
  const store = new RunStore(join(ws, '.toolsmith/runs.db'));
  const suites = new SuiteStore(store);
  suites.create(spec('other'), A);
  suites.create(spec('other'), B);
  suites.create(spec('other'), C);
  for (const id of [A, B, C]) suites.finish(id, 'passed');
  store.close();
});
afterAll(() => {});

describe('suite run ids: a unique start is taken, an ambiguous one names the candidates', () => {
  it('runs list --suite-run takes a unique start (before: "no suite run 7777", exit 2)', async () => {
    const r = await runToolsmith(ws, ['runs', 'list', '--suite-run', '7777', '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { runs: unknown[] }).runs).toEqual([]);
  });

  it('runs list --suite-run refuses an ambiguous start, naming both suite runs', async () => {
    const r = await runToolsmith(ws, ['runs', 'list', '--suite-run', 'abcdef']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(A);
    expect(r.err).toContain(B);
    expect(r.err).not.toContain(C);
    expect(r.err).toMatch(/start of more than one suite run id/);
  });

  it('eval --compare takes a unique start: the suite run it names is found (a run of suite other)', async () => {
    const r = await runToolsmith(ws, ['eval', 'ecommerce', '--compare', 'abcdef02']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--compare abcdef02 is a run of suite other, not of ecommerce/);
    const amb = await runToolsmith(ws, ['eval', 'ecommerce', '--compare', 'abcdef']);
    expect(amb.code).toBe(2);
    expect(amb.err).toContain(`${A}, ${B}`);
  });

  it('an unknown suite run id is still "no suite run"', async () => {
    const r = await runToolsmith(ws, ['runs', 'list', '--suite-run', 'ffffffff']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no suite run ffffffff/);
  });
});

describe('an unknown subcommand of a verb group lists the valid ones', () => {
  const groups: [string, string[]][] = [
    ['kit', ['list', 'info', 'create']],
    ['runs', ['list', 'show', 'replay']],
    ['skill', ['create', 'list', 'show', 'test', 'delete']],
    ['template', ['create', 'list', 'test', 'delete']],
    ['pool', ['prune', 'status']],
    ['tool', ['call']],
    ['image', ['build']],
    ['mcp-servers', ['list', 'test']],
  ];
  it.each(groups)('toolsmith %s bogus', async (group, subs) => {
    const r = await runToolsmith(ws, [group, 'bogus']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    const line = r.err.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(new RegExp(`^toolsmith: unknown command 'bogus'; toolsmith ${group} commands: `));
    for (const s of subs) expect(line.split('commands: ')[1]?.split(', ')).toContain(s);
  });

  it('an unknown verb lists the verbs', async () => {
    const r = await runToolsmith(ws, ['bogus']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^toolsmith: unknown command 'bogus'; toolsmith commands: validate, .*kit, .*eval/);
  });
});

describe('kit create --json', () => {
  it('prints the created kit as JSON (file, tools with their grades); a second time without --force is refused', async () => {
    const r = await runToolsmith(ws, [
      'kit',
      'create',
      'kb',
      '--sandbox',
      'support',
      '--tools',
      'kb=search_kb',
      '--json',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const k = JSON.parse(r.out) as {
      name: string;
      sandbox: string;
      file: string;
      replaced: boolean;
      tools: { alias: string; tool: string; grade: unknown }[];
      grade: unknown;
    };
    expect(k).toMatchObject({ name: 'kb', sandbox: 'support', replaced: false });
    expect(k.tools).toEqual([expect.objectContaining({ alias: 'kb', tool: 'search_kb' })]);
    expect(k.grade).toBeDefined();
    expect(readFileSync(k.file, 'utf8')).toMatch(/search_kb/);
    const again = await runToolsmith(ws, [
      'kit',
      'create',
      'kb',
      '--sandbox',
      'support',
      '--tools',
      'kb=search_kb',
      '--json',
    ]);
    expect(again.code).toBe(2);
    // (--json: the refusal as one JSON object on stdout too, README "A verb that fails")
    expect(JSON.parse(again.out)).toMatchObject({
      error: {
        kind: 'usage',
        exit: 2,
        message: expect.stringMatching(/^kit kb exists .*use --force to overwrite$/),
      },
    });
    const forced = await runToolsmith(ws, [
      'kit',
      'create',
      'kb',
      '--sandbox',
      'support',
      '--tools',
      'search_kb',
      '--json',
      '--force',
    ]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.out)).toMatchObject({ replaced: true, tools: [{ alias: 'search_kb' }] });
  });
});

/**
 * `.toolsmith/skill-tests.json` holds every skill's last test verdict; a skill is offered to scripts only
 * while its verdict there says passed. The file is one people and tools touch: a git merge leaves its
 * conflict markers in it, a copy or a full disk cuts it short, a hand edit leaves `null`, something else
 * takes its path. It was read as "no verdicts" whatever the cause, said nowhere (every skill read as
 * "untested since it was last saved or edited"), a verdicts file holding `null` ended every verb that
 * looks at skills (`validate`, `run`, `exec`, `skill list`) with an internal TypeError, and the next test
 * of any one skill wrote a file with that skill's verdict alone over it: the others were lost for good.
 *
 * Now the cause is named (skill list's problems, the validator's `skill-not-offered`), a file that is not
 * one of verdicts is kept aside when the next verdict is written (said on stderr), and a path that cannot
 * be read is never written over. Through the CLI, as a process, with skills tested in real containers.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requireDocker } from '../../support/sandbox.ts';
import { skillCreateArgs } from '../../support/skill-cli.ts';
import { USER_TIER_PY, initCliWorkspace } from './support/cli-workspace.ts';
import type { CliWorkspace } from './support/cli-workspace.ts';

let w: CliWorkspace;
let good: string;
const verdictsFile = () => join(w.ws, '.toolsmith', 'skill-tests.json');
const setAside = () => readdirSync(join(w.ws, '.toolsmith')).filter((f) => f.startsWith('skill-tests.json.'));
const callsUserTier = () => w.file('calls.py', 'emit_result(user_tier(user_id="u1"))\n');

beforeAll(async () => {
  await requireDocker();
  w = initCliWorkspace('toolsmith-skill-verdicts-');
  // Two skills whose tests pass: both offered, both verdicts in the file.
  for (const name of ['user_tier', 'user_tier2']) {
    const made = await w.cli(
      skillCreateArgs(name, w.file(`${name}.py`, USER_TIER_PY.replaceAll('user_tier', name)), {
        args: { user_id: 'u1' },
        expect: 'gold',
      }),
    );
    expect(made.code, made.out + made.err).toBe(0);
  }
  good = readFileSync(verdictsFile(), 'utf8');
  expect(Object.keys(JSON.parse(good) as object).sort()).toEqual([
    'ecommerce/user_tier',
    'ecommerce/user_tier2',
  ]);
}, 600_000);

afterAll(() => w?.remove());

beforeEach(() => {
  rmSync(verdictsFile(), { recursive: true, force: true });
  for (const f of setAside()) rmSync(join(w.ws, '.toolsmith', f));
});

describe('the skills’ verdicts file damaged or replaced', () => {
  it('with a merge’s conflict markers: named by skill list and the validator; the next test keeps it aside, never writes over it', async () => {
    const damaged = `<<<<<<< HEAD\n${good}=======\n{}\n>>>>>>> other\n`;
    writeFileSync(verdictsFile(), damaged);
    const cause = `${verdictsFile()} is not JSON (`;

    const list = await w.cli(['skill', 'list']);
    expect(list.code, list.err).toBe(0);
    expect(list.err).toContain(`the skills' test verdicts cannot be read: ${cause}`);
    expect(list.err).toContain('until it is fixed or removed every skill reads as untested');

    const v = await w.cli(['validate', callsUserTier(), '--sandbox', 'ecommerce']);
    expect(v.code, v.err).toBe(1);
    expect(v.out).toContain(
      `skill user_tier belongs to sandbox ecommerce but has no test verdict that can be read: the skills' test verdicts cannot be read: ${cause}`,
    );
    expect(v.out).not.toContain('untested since it was last saved or edited');

    // Testing one skill: the damaged file, which still holds the other's verdict, is kept aside and said.
    const t = await w.cli(['skill', 'test', 'user_tier2', '--sandbox', 'ecommerce']);
    expect(t.code, t.out + t.err).toBe(0);
    const aside = setAside();
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(w.ws, '.toolsmith', aside[0]!), 'utf8')).toBe(damaged);
    expect(t.err).toContain(`${verdictsFile()} was not JSON (Unexpected token '<'`);
    expect(t.err).toContain(
      `it is kept as ${join(w.ws, '.toolsmith', aside[0]!)}, and a new file of test verdicts was started`,
    );
    expect(Object.keys(JSON.parse(readFileSync(verdictsFile(), 'utf8')) as object)).toEqual([
      'ecommerce/user_tier2',
    ]);
    const after = await w.cli(['skill', 'list']);
    expect(after.out).toMatch(/ecommerce\/user_tier2 +python v1 +passed/);
  }, 300_000);

  it('holding null: every verb that looks at skills answers (no internal TypeError), naming the file', async () => {
    writeFileSync(verdictsFile(), 'null\n');
    const list = await w.cli(['skill', 'list', '--json']);
    expect(list.code, list.out + list.err).toBe(0);
    const problems = (JSON.parse(list.out) as { problems: { file: string; error: string }[] }).problems;
    expect(problems).toEqual([
      {
        file: verdictsFile(),
        error: expect.stringContaining(
          `${verdictsFile()} is not a JSON object of skill test verdicts (it holds null)`,
        ),
      },
    ]);
    const v = await w.cli(['validate', callsUserTier(), '--sandbox', 'ecommerce']);
    expect(v.err).not.toMatch(/internal error|TypeError/);
    expect(v.code, v.out + v.err).toBe(1);
    expect(v.out).toContain('(it holds null)');
  }, 120_000);

  it('a named pipe in its place: a test’s verdict is refused naming it, and the pipe is not written over', async () => {
    execFileSync('mkfifo', [verdictsFile()]);
    const t = await w.cli(['skill', 'test', 'user_tier', '--sandbox', 'ecommerce']);
    expect(t.code, t.out + t.err).toBe(3);
    expect(t.err).toContain(
      `the tests of skill user_tier passed, but the test verdict of skill user_tier was not saved: the skills' test verdicts cannot be read: ${verdictsFile()} cannot be read: it is a named pipe (FIFO)`,
    );
    expect(lstatSync(verdictsFile()).isFIFO()).toBe(true);
    expect(existsSync(`${verdictsFile()}.tmp`)).toBe(false);
  }, 120_000);

  it('a named pipe in its place: skill create says the skill was saved and what its tests found, then that the verdict was not', async () => {
    // (it said only "the test verdict of skill user_tier3 was not saved: ...", exit 3: read as a create
    // that failed, whose retry is refused as a name that exists, and the tests' outcome was lost)
    execFileSync('mkfifo', [verdictsFile()]);
    const made = await w.cli(
      skillCreateArgs(
        'user_tier3',
        w.file('user_tier3.py', USER_TIER_PY.replaceAll('user_tier', 'user_tier3')),
        { args: { user_id: 'u1' }, expect: 'gold' },
      ),
    );
    expect(made.code, made.out + made.err).toBe(3);
    expect(made.err).toContain(
      `skill user_tier3 was saved as v1; the tests of skill user_tier3 passed, but the test verdict of skill user_tier3 was not saved: the skills' test verdicts cannot be read: ${verdictsFile()} cannot be read: it is a named pipe (FIFO)`,
    );
    expect(existsSync(join(w.ws, 'skills', 'ecommerce', 'user_tier3.py'))).toBe(true);
    expect(lstatSync(verdictsFile()).isFIFO()).toBe(true);
    rmSync(join(w.ws, 'skills', 'ecommerce', 'user_tier3.py'));
  }, 120_000);
});

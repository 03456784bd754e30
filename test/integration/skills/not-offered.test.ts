/**
 * A script that calls a skill the workspace has but does not offer to it was refused with "x() is not
 * defined: the tools are ..." (the validator), or failed in the sandbox with Python's plain `NameError:
 * name 'x' is not defined` (a script run without validation), as if the skill did not exist. Now the
 * validator's `skill-not-offered` violation, and the run-time error, say the skill exists, why this script
 * is not offered it, and how it would be: another sandbox's skill, a language its scripts may not call,
 * untested (edited since its tests passed) or failing tests, a tool outside the script's kit.
 *
 * Through the CLI as a process in a workspace made by `toolsmith init`: skills saved and tested by `skill
 * create` in real containers, `toolsmith run` against the scripted LLM server (the refusal recorded on
 * the attempt and sent back to the model in its correction), `validate`, and `exec --no-validate`.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { requireDocker } from '../../support/sandbox.ts';
import { scriptedConfig } from '../../support/suite-oracle.ts';
import { USER_TIER_PY, initCliWorkspace } from './support/cli-workspace.ts';
import type { CliWorkspace } from './support/cli-workspace.ts';
import { skillCreateArgs } from '../../support/skill-cli.ts';

const USER_CITY_JS = `/**
 * A customer's city.
 * @param {string} user_id The customer's id (e.g. "u1").
 * @returns The city.
 */
async function user_city(user_id) {
  return (await get_user({ user_id })).data.city;
}
`;

let llm: LlmServer;
let w: CliWorkspace;
const cli = (args: string[]) => w.cli(args);
const file = (name: string, text: string) => w.file(name, text);

beforeAll(async () => {
  await requireDocker();
  llm = await startLlmServer();
  w = initCliWorkspace('toolsmith-not-offered-');
  scriptedConfig(w.ws, llm.openaiUrl);
  // A JS skill whose test passes (offered to JS/TS scripts of ecommerce), a Python one whose test fails.
  const js = await cli(
    skillCreateArgs('user_city', file('user_city.js', USER_CITY_JS), {
      args: { user_id: 'u1' },
      expect: 'London',
    }),
  );
  expect(js.code, js.out + js.err).toBe(0);
  const py = await cli(
    skillCreateArgs('user_tier', file('user_tier.py', USER_TIER_PY), {
      args: { user_id: 'u1' },
      expect: 'platinum',
    }),
  );
  expect(py.out).toMatch(/not offered to scripts until its tests pass/);
  expect(py.code).toBe(1);
}, 600_000);

afterAll(async () => {
  await llm?.close();
  w?.remove();
});

const WHY = {
  language:
    'user_city() is a skill this script is not offered: skill user_city belongs to sandbox ecommerce and is written in JavaScript: JavaScript and TypeScript scripts call it, not Python ones; write its steps in the script instead',
  sandbox:
    'user_city() is a skill this script is not offered: skill user_city belongs to sandbox ecommerce, and a skill is offered only to scripts of its own sandbox: run this script in sandbox ecommerce, or save the skill in sandbox support too',
  kit: "user_city() is a skill this script is not offered: skill user_city belongs to sandbox ecommerce and calls get_user, which this script may not call (outside its kit, or above the workspace's maximum grade): run the script without the kit, or with one that has it",
  failed:
    /^user_tier\(\) is a skill this script is not offered: skill user_tier belongs to sandbox ecommerce but failed its tests \(.*\): it is offered once they pass \(toolsmith skill test user_tier --sandbox ecommerce, or Test in the Skills view\)$/,
};

describe('a skill the script is not offered', () => {
  it('toolsmith run: the attempt is refused saying why, and the model is told so in its correction', async () => {
    llm.reset();
    llm.push(
      '```python\nemit_result(user_city(user_id="u1"))\n```',
      '```python\nemit_result(get_user(user_id="u1").data["city"])\n```',
    );
    const r = await cli(['run', 'City of user u1', '--sandbox', 'ecommerce', '--json']);
    expect(r.code, r.err).toBe(0);
    const rec = JSON.parse(r.out) as {
      status: string;
      result: unknown;
      attempts: { rejected: { violations: { rule: string; message: string }[] }[] }[];
    };
    expect(rec).toMatchObject({ status: 'succeeded', result: 'London' });
    const refused = rec.attempts.flatMap((a) => a.rejected.flatMap((x) => x.violations));
    expect(refused.map((v) => [v.rule, v.message])).toEqual([['skill-not-offered', WHY.language]]);
    // The correction the model got names the cause, not "is not defined".
    const correction = JSON.stringify(llm.requests[1]);
    expect(correction).toContain('written in JavaScript: JavaScript and TypeScript scripts call it');
    expect(correction).not.toMatch(/user_city\(\) is not defined/);
  }, 240_000);

  it('validate: another sandbox, a failing skill, a kit without its tool, a language it is not for', async () => {
    const cases: { args: string[]; code: string; want: string | RegExp }[] = [
      {
        args: ['--sandbox', 'support'],
        code: 'emitResult(await user_city("u1"));\n',
        want: WHY.sandbox,
      },
      { args: ['--sandbox', 'ecommerce'], code: 'emit_result(user_tier(user_id="u1"))\n', want: WHY.failed },
      {
        args: ['--sandbox', 'ecommerce', '--kit', 'inventory'],
        code: 'emitResult(await user_city("u1"));\n',
        want: WHY.kit,
      },
      {
        args: ['--sandbox', 'ecommerce'],
        code: 'emit_result(user_city(user_id="u1"))\n',
        want: WHY.language,
      },
    ];
    for (const [i, c] of cases.entries()) {
      const script = file(`case${i}.${c.code.includes('emitResult') ? 'js' : 'py'}`, c.code);
      const r = await cli(['validate', script, ...c.args, '--json']);
      const v = JSON.parse(r.out) as { valid: boolean; violations: { rule: string; message: string }[] };
      expect(r.code, c.args.join(' ')).toBe(1);
      expect(v.violations.map((x) => x.rule)).toEqual(['skill-not-offered']);
      if (typeof c.want === 'string') expect(v.violations[0]!.message).toBe(c.want);
      else expect(v.violations[0]!.message).toMatch(c.want);
    }
    // The skill is offered where it belongs: the same call validates in a JS script of ecommerce.
    const ok = await cli([
      'validate',
      file('ok.js', 'emitResult(await user_city("u1"));\n'),
      '--sandbox',
      'ecommerce',
    ]);
    expect(ok.code, ok.out).toBe(0);
    // Edited by hand since its tests passed: untested, not offered until tested again.
    appendFileSync(join(w.ws, 'skills/ecommerce/user_city.js'), '// edited\n');
    const edited = await cli([
      'validate',
      file('ok.js', 'emitResult(await user_city("u1"));\n'),
      '--sandbox',
      'ecommerce',
      '--json',
    ]);
    expect(edited.code).toBe(1);
    expect(
      (JSON.parse(edited.out) as { violations: { message: string }[] }).violations.map((v) => v.message),
    ).toEqual([
      'user_city() is a skill this script is not offered: skill user_city belongs to sandbox ecommerce but is untested since it was last saved or edited: it is offered once its tests pass (toolsmith skill test user_city --sandbox ecommerce, or Test in the Skills view)',
    ]);
  }, 240_000);

  it('a skill deleted (or renamed: saved under a new name, the old one deleted) is said to be deleted', async () => {
    const source = (name: string) => USER_TIER_PY.replace('def user_tier(', `def ${name}(`);
    for (const name of ['old_tier', 'member_tier']) {
      const made = await cli([
        'skill',
        'create',
        name,
        '--sandbox',
        'ecommerce',
        '--file',
        file(`${name}.py`, source(name)),
        '--case',
        '{"args": {"user_id": "u1"}, "expect": "gold"}',
      ]);
      expect(made.code, made.out + made.err).toBe(0);
    }
    expect((await cli(['skill', 'delete', 'old_tier', '--sandbox', 'ecommerce'])).code).toBe(0);
    const why =
      'old_tier() is a skill this script is not offered: skill old_tier of sandbox ecommerce was deleted (its last version, v1, is kept: toolsmith skill show old_tier --sandbox ecommerce --revision 1): save it again to call it, or write its steps in the script';
    const r = await cli([
      'validate',
      file('deleted.py', 'emit_result(old_tier(user_id="u1"))\n'),
      '--sandbox',
      'ecommerce',
      '--json',
    ]);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.out) as { violations: { rule: string; message: string }[] }).violations).toEqual([
      expect.objectContaining({ rule: 'skill-not-offered', message: why }),
    ]);
    // The revision it names is there; the new name is offered.
    const shown = await cli(['skill', 'show', 'old_tier', '--sandbox', 'ecommerce', '--revision', '1']);
    expect(shown.out).toContain('def old_tier(user_id: str) -> str:');
    const renamed = await cli([
      'exec',
      file('renamed.py', 'emit_result(member_tier(user_id="u1"))\n'),
      '--sandbox',
      'ecommerce',
      '--json',
    ]);
    expect(renamed.code, renamed.out).toBe(0);
    expect(JSON.parse(renamed.out)).toMatchObject({ success: true, data: 'gold' });
  }, 240_000);

  it('exec --no-validate: the NameError / ReferenceError in the sandbox says why', async () => {
    const py = await cli([
      'exec',
      file('nv.py', 'emit_result(user_city(user_id="u1"))\n'),
      '--sandbox',
      'ecommerce',
      '--no-validate',
      '--json',
    ]);
    expect(py.code).toBe(1);
    expect(JSON.parse(py.out)).toMatchObject({
      error: { type: 'NameError', message: `name 'user_city' is not defined: ${WHY.language}` },
    });
    const js = await cli([
      'exec',
      file('nv.js', 'emitResult(await user_city("u1"));\n'),
      '--sandbox',
      'support',
      '--no-validate',
      '--json',
    ]);
    expect(js.code).toBe(1);
    expect(JSON.parse(js.out)).toMatchObject({
      error: { type: 'ReferenceError', message: `user_city is not defined: ${WHY.sandbox}` },
    });
  }, 240_000);
});

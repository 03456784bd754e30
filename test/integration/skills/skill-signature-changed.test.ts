/**
 * A skill whose tests passed is offered only while its own tool calls bind to the tools' signatures. When
 * tools.py changes a tool it calls (here get_user gains a required `region`), the skill is no longer
 * offered, and a script that calls it was refused with the vague "does not validate against this script's
 * tools". Now the `skill-not-offered` reason names the call that no longer binds (the `tool-arguments`
 * message: the tool, the argument, the signature) and how to make the skill offered again.
 *
 * Through the CLI as a process in a workspace made by `toolsmith init`: the skill saved and tested by
 * `skill create` in a real container, then `validate`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDocker } from '../../support/sandbox.ts';
import { USER_TIER_PY, initCliWorkspace } from './support/cli-workspace.ts';
import type { CliWorkspace } from './support/cli-workspace.ts';

let w: CliWorkspace;
const cli = (args: string[]) => w.cli(args);
const file = (name: string, text: string) => w.file(name, text);

beforeAll(async () => {
  await requireDocker();
  w = initCliWorkspace('toolsmith-skill-signature-');
  const py = await cli([
    'skill',
    'create',
    'user_tier',
    '--sandbox',
    'ecommerce',
    '--file',
    file('user_tier.py', USER_TIER_PY),
    '--case',
    '{"args": {"user_id": "u1"}, "expect": "gold"}',
  ]);
  expect(py.code, py.out + py.err).toBe(0);
}, 600_000);

afterAll(() => {
  w?.remove();
});

describe('a tested skill whose tool changed its signature', () => {
  it('is not offered, and validate names the call that no longer binds', async () => {
    const script = file('s.py', 'emit_result(user_tier(user_id="u1"))\n');
    const before = await cli(['validate', script, '--sandbox', 'ecommerce']);
    expect(before.code, before.out + before.err).toBe(0);

    const tools = join(w.ws, 'sandboxes/ecommerce/tools.py');
    const text = readFileSync(tools, 'utf8');
    expect(text).toContain('def get_user(user_id: str) -> ToolResponse:');
    writeFileSync(
      tools,
      text.replace(
        'def get_user(user_id: str) -> ToolResponse:',
        'def get_user(user_id: str, region: str) -> ToolResponse:',
      ),
    );

    const r = await cli(['validate', script, '--sandbox', 'ecommerce', '--json']);
    expect(r.code, r.out + r.err).toBe(1);
    const v = JSON.parse(r.out) as { violations: { rule: string; message: string }[] };
    expect(v.violations.map((x) => x.rule)).toEqual(['skill-not-offered']);
    const message = v.violations[0]!.message;
    expect(message).toMatch(
      /^user_tier\(\) is a skill this script is not offered: skill user_tier belongs to sandbox ecommerce but its own tool call no longer fits the tool's signature \(/,
    );
    expect(message).toContain("get_user() missing required argument 'region'");
    expect(message).toContain('toolsmith skill test user_tier --sandbox ecommerce');
    expect(message).not.toContain("does not validate against this script's tools");
  }, 240_000);
});

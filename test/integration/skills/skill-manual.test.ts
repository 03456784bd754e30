/**
 * What the model's manual says of skills, as the scripted LLM server receives it from a real run (the
 * CLI as a process, real containers). The rules said "Every tool returns a ToolResponse ... Check
 * .success before using .data" and listed skills among the tools with nothing more, so a model that
 * followed them wrote `r = user_tier(user_id="u2")`, `r.success`, and the attempt failed with
 * AttributeError: 'str' object has no attribute 'success'. The rules now say that a skill returns its
 * value itself, where skills are offered only (a manual without skills is as small as before).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { createSkills } from '../../support/skill-cli.ts';
import { tempFiles } from '../../support/workspace.ts';
import { cliProcess } from '../faults/support/processes.ts';
import { USER_TIER_PY } from './support/cli-workspace.ts';

const fx = useScriptedWorkspace({ docker: true });
const files = tempFiles('toolsmith-skill-manual-');
afterAll(() => rmSync(files.dir, { recursive: true, force: true }));
const cli = (args: string[]) => cliProcess(fx.ws, fx.data, args).done;
const fence = (s: string) => '```python\n' + s + '\n```';
const SAYS = 'A skill (location="skill") is not a\n   tool: it returns its value itself';

beforeAll(async () => {
  await createSkills(cli, [
    ['user_tier', files.file('user_tier.py', USER_TIER_PY), { user_id: 'u1' }, 'gold'],
  ]);
}, 300_000);

/** The prompt text the model got in the run's first request. */
const promptOf = (i: number) => JSON.stringify(fx.llm.requests[i]!.body);

describe("the model's manual of skills", () => {
  it('says a skill returns its value, and the script that uses it so succeeds', async () => {
    fx.llm.reset();
    fx.llm.push(fence('t = user_tier(user_id="u2")\nemit_result(t)'));
    const r = await cli(['run', 'Tier of user u2', '--sandbox', 'ecommerce', '--no-templates', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).status).toBe('succeeded');
    const prompt = promptOf(0);
    expect(prompt).toContain('<tool name=\\"user_tier\\" location=\\"skill\\">');
    expect(
      JSON.parse(prompt)
        .messages.map((m: { content: string }) => m.content)
        .join('\n'),
    ).toContain(SAYS);
  }, 300_000);

  it('a sandbox without skills gets the rules as before', async () => {
    fx.llm.reset();
    fx.llm.push(fence('emit_result(1)'));
    const r = await cli(['run', 'One', '--sandbox', 'support', '--no-templates', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(promptOf(0)).not.toContain('A skill (location');
  }, 300_000);
});

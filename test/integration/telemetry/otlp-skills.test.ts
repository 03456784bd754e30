/**
 * Skills as a user meets them outside a recorded run and in a run's trace, through the CLI as a process
 * against real containers and a real OTLP receiver:
 * - `toolsmith exec` (a script run directly, as MCP `execute_code` runs one) records the calls a skill
 *   makes under its name, in Python and in JS, and says so in its text output (they went unnamed: the
 *   direct path did not tell the worker the job's skills);
 * - a run whose script calls a skill is exported with each `execute_tool` span of the skill's calls
 *   carrying `toolsmith.tool.skill` (the trace did not say which calls a skill made), and the run's
 *   progress says "in skill";
 * - OTEL_RESOURCE_ATTRIBUTES reaches the trace's resource whole (only its `service.name` was read).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import { tempFiles } from '../../support/workspace.ts';
import { cliProcess } from '../faults/support/processes.ts';
import { USER_TIER_PY } from '../skills/support/cli-workspace.ts';
import { createSkills } from '../../support/skill-cli.ts';

const fx = useScriptedWorkspace({ docker: true });
const files = tempFiles('toolsmith-otlp-skills-');
afterAll(() => rmSync(files.dir, { recursive: true, force: true }));

const USER_CITY_JS = `/**
 * A customer's city.
 * @param {string} user_id The customer's id (e.g. "u1").
 * @returns The city.
 */
async function user_city(user_id) {
  return (await get_user({ user_id })).data.city;
}
`;

const cli = (args: string[], env: Record<string, string> = {}) => cliProcess(fx.ws, fx.data, args, env).done;

interface Call {
  name: string;
  skill?: string;
}

beforeAll(async () => {
  await createSkills(cli, [
    ['user_tier', files.file('user_tier.py', USER_TIER_PY), { user_id: 'u1' }, 'gold'],
    ['user_city', files.file('user_city.js', USER_CITY_JS), { user_id: 'u1' }, 'London'],
  ]);
}, 300_000);

describe('skills outside a run and in its trace', () => {
  it('exec records the calls a skill makes under its name, in Python and in JS', async () => {
    for (const [lang, body] of [
      ['python', 'emit_result([user_tier(user_id="u4"), get_user(user_id="u1").data["tier"]])\n'],
      ['js', 'emitResult([await user_city("u4"), (await get_user({ user_id: "u1" })).data.tier]);\n'],
    ] as const) {
      const script = files.file(`direct.${lang === 'python' ? 'py' : 'js'}`, body);
      const json = await cli(['exec', script, '--sandbox', 'ecommerce', '--json']);
      expect(json.code, json.err).toBe(0);
      const r = JSON.parse(json.out) as { success: boolean; toolCalls: Call[] };
      expect(r.success).toBe(true);
      const skill = lang === 'python' ? 'user_tier' : 'user_city';
      expect(r.toolCalls.map((c) => [c.name, c.skill])).toEqual([
        ['get_user', skill],
        ['get_user', undefined],
      ]);
      const text = await cli(['exec', script, '--sandbox', 'ecommerce']);
      expect(text.code, text.err).toBe(0);
      const lines = text.out.split('\n').filter((l) => l.startsWith('  tool '));
      expect(lines[0]).toMatch(
        new RegExp(`^  tool get_user\\(\\{"user_id":"u4"\\}\\) in skill ${skill} ok `),
      );
      expect(lines[1]).toMatch(/^ {2}tool get_user\(\{"user_id":"u1"\}\) ok /);
    }
  }, 300_000);

  it("a run's trace names the skill of each tool call it made; OTEL_RESOURCE_ATTRIBUTES is the resource", async () => {
    const receiver = await startOtlpReceiver();
    try {
      fx.llm.push(
        '```python\nt = user_tier(user_id="u2")\nc = get_user(user_id="u3").data["city"]\nemit_result([t, c])\n```',
      );
      const run = await cli(
        ['run', 'Tier of u2 and city of u3', '--sandbox', 'ecommerce', '--no-templates', '--json'],
        {
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base,
          OTEL_RESOURCE_ATTRIBUTES:
            'service.name=agents%20lab,deployment.environment.name=staging,service.namespace=qa',
        },
      );
      expect(run.code, run.err).toBe(0);
      const rec = JSON.parse(run.out) as { id: string; status: string };
      expect(rec.status).toBe('succeeded');
      expect(receiver.requests).toHaveLength(1);
      const tools = receiver.spans
        .filter((s) => s.name === 'execute_tool get_user')
        .sort((a, b) =>
          String(a.attributes['gen_ai.tool.call.id']).localeCompare(
            String(b.attributes['gen_ai.tool.call.id']),
          ),
        );
      expect(
        tools.map((t) => [t.attributes['gen_ai.tool.call.id'], t.attributes['toolsmith.tool.skill']]),
      ).toEqual([
        ['1.1', 'user_tier'],
        ['1.2', undefined],
      ]);
      const root = receiver.spans.find((s) => s.name === 'invoke_agent toolsmith')!;
      expect(root.resource).toMatchObject({
        'service.name': 'agents lab',
        'deployment.environment.name': 'staging',
        'service.namespace': 'qa',
      });
      // The run's progress (stderr beside --json) says which calls the skill made.
      expect(run.err).toMatch(/^ {2}tool get_user in skill user_tier ok /m);
      expect(run.err).toMatch(/^ {2}tool get_user ok /m);
    } finally {
      await receiver.close();
    }
  }, 300_000);

  it('an OTEL_RESOURCE_ATTRIBUTES that is not key=value pairs is named in a warning, not sent in part', async () => {
    const receiver = await startOtlpReceiver();
    try {
      fx.llm.push('```python\nemit_result(get_user(user_id="u1").data["tier"])\n```');
      const run = await cli(['run', 'Tier of u1', '--sandbox', 'ecommerce', '--no-templates'], {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base,
        OTEL_RESOURCE_ATTRIBUTES: 'team=agents,staging',
      });
      expect(run.code, run.err).toBe(0);
      expect(run.err).toContain(
        'OTEL_RESOURCE_ATTRIBUTES is ignored: "staging" is not key=value (expected key1=value1,key2=value2, values percent-encoded)',
      );
      const root = receiver.spans.find((s) => s.name === 'invoke_agent toolsmith')!;
      expect(root.resource['service.name']).toBe('toolsmith');
      expect(root.resource['team']).toBeUndefined();
    } finally {
      await receiver.close();
    }
  }, 300_000);
});

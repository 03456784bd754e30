/**
 * A skill call has a record and a span of its own, through the CLI as a process against real containers
 * and a real OTLP receiver (docs/skills.md "How a skill runs", docs/telemetry.md "Spans"):
 * - `toolsmith exec --json` (a script run directly, as MCP `execute_code` runs one) returns each skill
 *   call (its number, the skill call that made it, its arguments, how long it ran, the exception it
 *   ended with) and names, on each tool call, the skill call that made it; in Python and in JS, with a
 *   skill that calls a skill (itself) and one that raises;
 * - a run's trace has a `skill <name>` span per skill call, nested as the calls were (a skill called by a
 *   skill under its caller), with the tool calls each made under it, and a failed call's exception as
 *   the span's ERROR status and `exception` event, in Python and in JS.
 * Before, a skill call had neither: only `toolsmith.tool.skill` on the tool calls it made.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { ReceivedSpan } from '../../support/otlp-receiver.ts';
import { tempFiles } from '../../support/workspace.ts';
import { cliProcess } from '../faults/support/processes.ts';
import { CHAIN_PY, STRICT_PY } from '../../support/skill-sources.ts';
import { createSkills } from '../../support/skill-cli.ts';

const fx = useScriptedWorkspace({ docker: true });
const files = tempFiles('toolsmith-otlp-skill-calls-');
/** A waiting job's time (`exec --timeout`, seconds). */
const JOB_S = '8';
afterAll(() => rmSync(files.dir, { recursive: true, force: true }));

const CHAIN_JS = `/**
 * A customer's tier, looked up once more at each depth.
 * @param {string} user_id The customer's id (e.g. "u1").
 * @param {number} depth How many more times to look it up.
 * @returns The tier.
 */
async function chain_tier_js(user_id, depth) {
  const tier = (await get_user({ user_id })).data.tier;
  if (depth > 0) return await chain_tier_js(user_id, depth - 1);
  return tier;
}
`;

const STRICT_JS = `/**
 * A customer's tier, which must be gold.
 * @param {string} user_id The customer's id (e.g. "u1").
 * @returns The tier.
 */
async function strict_tier_js(user_id) {
  const tier = (await get_user({ user_id })).data.tier;
  if (tier !== "gold") throw new TypeError(user_id + " is " + tier + ", not gold");
  return tier;
}
`;

const TIER_TS = `/**
 * A customer's tier.
 * @param user_id The customer's id (e.g. "u1").
 * @returns The tier.
 */
async function tier_ts(user_id: string): Promise<string> {
  const tier: string = (await get_user({ user_id })).data.tier;
  return tier;
}
`;

const WAIT_PY = `def wait_tier(user_id: str, loops: int) -> str:
    """A customer's tier, after counting to loops.

    Args:
        user_id: The customer's id (e.g. "u1").
        loops: How far to count first.

    Returns:
        The tier.
    """
    n = 0
    while n < loops:
        n += 1
    return get_user(user_id=user_id).data["tier"]
`;

const WAIT_JS = `/**
 * A customer's tier, after counting to loops.
 * @param {string} user_id The customer's id (e.g. "u1").
 * @param {number} loops How far to count first.
 * @returns The tier.
 */
async function wait_tier_js(user_id, loops) {
  let n = 0;
  while (n < loops) n += 1;
  return (await get_user({ user_id })).data.tier;
}
`;

const SCRIPTS = {
  python: `t = chain_tier(user_id="u2", depth=1)
try:
    strict_tier(user_id="u4")
except ValueError:
    t = t + "!"
emit_result(t)
`,
  js: `let t = await chain_tier_js("u2", 1);
try {
  await strict_tier_js("u4");
} catch (e) {
  t = t + "!";
}
emitResult(t);
`,
} as const;

const NAMES = {
  python: { chain: 'chain_tier', strict: 'strict_tier', error: 'ValueError' },
  js: { chain: 'chain_tier_js', strict: 'strict_tier_js', error: 'TypeError' },
} as const;

const cli = (args: string[], env: Record<string, string> = {}) => cliProcess(fx.ws, fx.data, args, env).done;

interface SkillCall {
  id: number;
  name: string;
  parent?: number;
  args: Record<string, unknown>;
  at: number;
  ms: number;
  error?: { type: string; message: string };
  unfinished?: boolean;
}
interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  skill?: string;
  skillCall?: number;
}

beforeAll(async () => {
  await createSkills(cli, [
    ['chain_tier', files.file('chain_tier.py', CHAIN_PY), { user_id: 'u1', depth: 1 }, 'gold'],
    ['strict_tier', files.file('strict_tier.py', STRICT_PY), { user_id: 'u1' }, 'gold'],
    ['chain_tier_js', files.file('chain_tier_js.js', CHAIN_JS), { user_id: 'u1', depth: 1 }, 'gold'],
    ['strict_tier_js', files.file('strict_tier_js.js', STRICT_JS), { user_id: 'u1' }, 'gold'],
    ['wait_tier', files.file('wait_tier.py', WAIT_PY), { user_id: 'u1', loops: 1 }, 'gold'],
    ['tier_ts', files.file('tier_ts.ts', TIER_TS), { user_id: 'u1' }, 'gold'],
    ['wait_tier_js', files.file('wait_tier_js.js', WAIT_JS), { user_id: 'u1', loops: 1 }, 'gold'],
  ]);
}, 300_000);

describe('skill calls: a record and a span of their own', () => {
  it('exec returns each skill call, nested and with its exception, and the skill call of each tool call', async () => {
    for (const lang of ['python', 'js'] as const) {
      const n = NAMES[lang];
      const script = files.file(`calls.${lang === 'python' ? 'py' : 'js'}`, SCRIPTS[lang]);
      const json = await cli(['exec', script, '--sandbox', 'ecommerce', '--json']);
      expect(json.code, json.err).toBe(0);
      const r = JSON.parse(json.out) as {
        success: boolean;
        data: unknown;
        durationMs: number;
        toolCalls: ToolCall[];
        skillCalls?: SkillCall[];
      };
      expect(r.success, json.out).toBe(true);
      expect(r.data).toBe('silver!');
      const calls = r.skillCalls ?? [];
      expect(
        calls.map((c) => [c.id, c.name, c.parent, c.args, c.error, c.unfinished]),
        lang,
      ).toEqual([
        [1, n.chain, undefined, { user_id: 'u2', depth: 1 }, undefined, undefined],
        [2, n.chain, 1, { user_id: 'u2', depth: 0 }, undefined, undefined],
        [
          3,
          n.strict,
          undefined,
          { user_id: 'u4' },
          { type: n.error, message: 'u4 is bronze, not gold' },
          undefined,
        ],
      ]);
      // The inner call ran inside the outer one, and every call within the job.
      const [outer, inner, strict] = calls as [SkillCall, SkillCall, SkillCall];
      expect(inner.at).toBeGreaterThanOrEqual(outer.at);
      expect(inner.ms).toBeLessThanOrEqual(outer.ms);
      expect(strict.at).toBeGreaterThanOrEqual(outer.at);
      for (const c of calls) expect(c.at + c.ms).toBeLessThanOrEqual(r.durationMs + 1);
      // The text output says the same, a line per skill call.
      const text = await cli(['exec', script, '--sandbox', 'ecommerce']);
      expect(text.code, text.err).toBe(0);
      expect(text.out.split('\n').filter((l) => l.startsWith('  skill '))).toEqual([
        expect.stringMatching(
          new RegExp(`^  skill ${n.chain} #1\\(\\{"user_id":"u2","depth":1\\}\\) returned [\\d.]+ ms$`),
        ),
        expect.stringMatching(
          new RegExp(`^  skill ${n.chain} #2 in #1\\(\\{"user_id":"u2","depth":0\\}\\) returned `),
        ),
        expect.stringMatching(
          new RegExp(
            `^  skill ${n.strict} #3\\(\\{"user_id":"u4"\\}\\) raised ${n.error}: u4 is bronze, not gold `,
          ),
        ),
      ]);
      expect(r.toolCalls.map((c) => [c.name, c.args, c.skill, c.skillCall])).toEqual([
        ['get_user', { user_id: 'u2' }, n.chain, 1],
        ['get_user', { user_id: 'u2' }, n.chain, 2],
        ['get_user', { user_id: 'u4' }, n.strict, 3],
      ]);
    }
  }, 300_000);

  it('a TypeScript script: its JS and TS skills record their calls (the types stripped, every offset kept)', async () => {
    const script = files.file(
      'calls.ts',
      'const t: string = await chain_tier_js("u2", 1);\nconst u: string = await tier_ts("u4");\nemitResult([t, u]);\n',
    );
    const json = await cli(['exec', script, '--sandbox', 'ecommerce', '--json']);
    expect(json.code, json.err).toBe(0);
    const r = JSON.parse(json.out) as { data: unknown; toolCalls: ToolCall[]; skillCalls?: SkillCall[] };
    expect(r.data).toEqual(['silver', 'bronze']);
    expect((r.skillCalls ?? []).map((c) => [c.id, c.name, c.parent, c.args])).toEqual([
      [1, 'chain_tier_js', undefined, { user_id: 'u2', depth: 1 }],
      [2, 'chain_tier_js', 1, { user_id: 'u2', depth: 0 }],
      [3, 'tier_ts', undefined, { user_id: 'u4' }],
    ]);
    expect(r.toolCalls.map((c) => [c.skill, c.skillCall])).toEqual([
      ['chain_tier_js', 1],
      ['chain_tier_js', 2],
      ['tier_ts', 3],
    ]);
  }, 300_000);

  it('a skill call still running when the job timed out is unfinished; one that returned before is not', async () => {
    // The first call must return within the job's time: at load 25-30 (CI, every project at once) a JS
    // job's first call had not returned after 3 s. Each language's job waits for its whole time, so the
    // two run at once.
    const waited = async ([lang, body]: readonly [string, string]) => {
      const script = files.file(`wait.${lang === 'python' ? 'py' : 'js'}`, body);
      const json = await cli(['exec', script, '--sandbox', 'ecommerce', '--timeout', JOB_S, '--json']);
      const r = JSON.parse(json.out) as { exitReason: string; durationMs: number; skillCalls?: SkillCall[] };
      expect(r.exitReason, json.out).toBe('timeout');
      const calls = r.skillCalls ?? [];
      expect(
        calls.map((c) => [c.id, c.args, c.unfinished, c.error]),
        lang,
      ).toEqual([
        [1, { user_id: 'u1', loops: 1 }, undefined, undefined],
        [2, { user_id: 'u2', loops: 1e12 }, true, undefined],
      ]);
      // The unfinished call ran until the job's end.
      expect(calls[1]!.at + calls[1]!.ms).toBeCloseTo(r.durationMs, -1);
    };
    await Promise.all(
      (
        [
          [
            'python',
            'a = wait_tier(user_id="u1", loops=1)\nb = wait_tier(user_id="u2", loops=10**12)\nemit_result([a, b])\n',
          ],
          [
            'js',
            'const a = await wait_tier_js("u1", 1);\nconst b = await wait_tier_js("u2", 1e12);\nemitResult([a, b]);\n',
          ],
        ] as const
      ).map(waited),
    );
    // A call that returned, then the script itself never ends: the call's end was told as it ended (a
    // Python end once waited for the job's next line, which never came: the call read as unfinished).
    const spun = async ([lang, body]: readonly [string, string]) => {
      const script = files.file(`spin.${lang === 'python' ? 'py' : 'js'}`, body);
      const json = await cli(['exec', script, '--sandbox', 'ecommerce', '--timeout', JOB_S, '--json']);
      const r = JSON.parse(json.out) as { exitReason: string; durationMs: number; skillCalls?: SkillCall[] };
      expect(r.exitReason, json.out).toBe('timeout');
      // Its end is when it returned, not the job's end (the job spun on for the rest of its time).
      expect(
        (r.skillCalls ?? []).map((c) => [c.id, c.unfinished, c.at + c.ms < r.durationMs - 1000]),
        lang,
      ).toEqual([[1, undefined, true]]);
    };
    await Promise.all(
      (
        [
          [
            'python',
            'a = wait_tier(user_id="u1", loops=1)\nn = 0\nwhile n < 10**12:\n    n += 1\nemit_result(a)\n',
          ],
          [
            'js',
            'const a = await wait_tier_js("u1", 1);\nlet n = 0;\nwhile (n < 1e12) n += 1;\nemitResult(a);\n',
          ],
        ] as const
      ).map(spun),
    );
  }, 300_000);

  it('skill calls past limits.tool_calls are counted, not recorded, in Python and JS', async () => {
    const configFile = join(fx.ws, '.toolsmith/config.toml');
    const config = readFileSync(configFile, 'utf8');
    expect(config).toMatch(/^output_kb = 50$/m);
    writeFileSync(configFile, config.replace(/^output_kb = 50$/m, 'output_kb = 50\ntool_calls = 4'));
    try {
      for (const [lang, body] of [
        ['python', 'emit_result(chain_tier(user_id="u1", depth=9))\n'],
        ['js', 'emitResult(await chain_tier_js("u1", 9));\n'],
      ] as const) {
        const script = files.file(`bound.${lang === 'python' ? 'py' : 'js'}`, body);
        const json = await cli(['exec', script, '--sandbox', 'ecommerce', '--json']);
        expect(json.code, json.err).toBe(0);
        const r = JSON.parse(json.out) as {
          data: unknown;
          skillCalls?: SkillCall[];
          skillCallsNotRecorded?: number;
          toolCalls: ToolCall[];
        };
        expect(r.data).toBe('gold');
        expect(
          (r.skillCalls ?? []).map((c) => [c.id, c.parent]),
          lang,
        ).toEqual([
          [1, undefined],
          [2, 1],
          [3, 2],
          [4, 3],
        ]);
        expect(r.skillCallsNotRecorded, lang).toBe(6);
        // The tool calls kept (the bound holds for them too) name the skill calls kept.
        expect(r.toolCalls.map((c) => c.skillCall)).toEqual([1, 2, 3, 4]);
      }
    } finally {
      writeFileSync(configFile, config);
    }
  }, 300_000);

  it("a run's trace has a span per skill call, nested, with its tool calls under it and its exception", async () => {
    for (const lang of ['python', 'js'] as const) {
      const n = NAMES[lang];
      const receiver = await startOtlpReceiver();
      try {
        fx.llm.push(`\`\`\`${lang === 'python' ? 'python' : 'javascript'}\n${SCRIPTS[lang]}\`\`\``);
        const run = await cli(
          ['run', 'Tiers of u2 and u4', '--sandbox', 'ecommerce', '--no-templates', '--lang', lang, '--json'],
          { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base },
        );
        expect(run.code, run.err).toBe(0);
        expect((JSON.parse(run.out) as { status: string }).status).toBe('succeeded');
        // The run's progress names the skill call that failed, with its arguments and exception.
        expect(run.err).toMatch(
          new RegExp(
            `^ {2}skill ${n.strict} #3\\(\\{"user_id":"u4"\\}\\) raised ${n.error}: u4 is bronze, not gold `,
            'm',
          ),
        );
        expect(run.err).not.toMatch(new RegExp(`skill ${n.chain} #`));
        // And so does `runs show` later.
        const runId = (JSON.parse(run.out) as { id: string }).id;
        const shown = await cli(['runs', 'show', runId]);
        expect(shown.out).toMatch(
          new RegExp(`^ {5}skill ${n.strict} #3\\(\\{"user_id":"u4"\\}\\) raised ${n.error}`, 'm'),
        );
        expect(receiver.requests).toHaveLength(1);
        const spans = receiver.spans;
        const byId = new Map(spans.map((s) => [s.spanId, s]));
        const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);
        const skills = spans
          .filter((s) => s.name.startsWith('skill '))
          .sort((a, b) =>
            String(a.attributes['toolsmith.skill.call.id']).localeCompare(
              String(b.attributes['toolsmith.skill.call.id']),
            ),
          );
        expect(
          skills.map((s) => [s.name, s.attributes['toolsmith.skill.call.id']]),
          lang,
        ).toEqual([
          [`skill ${n.chain}`, '1.s1'],
          [`skill ${n.chain}`, '1.s2'],
          [`skill ${n.strict}`, '1.s3'],
        ]);
        const [outer, inner, strict] = skills as [ReceivedSpan, ReceivedSpan, ReceivedSpan];
        // Nested as the calls were: the outer call and the failing one under the job, the inner under the outer.
        expect(parentOf(outer)?.name).toMatch(/^sandbox\.execute /);
        expect(parentOf(strict)?.name).toMatch(/^sandbox\.execute /);
        expect(inner.parentSpanId).toBe(outer.spanId);
        expect(inner.startMs).toBeGreaterThanOrEqual(outer.startMs);
        expect(inner.endMs).toBeLessThanOrEqual(outer.endMs);
        // Each tool call under the skill call that made it.
        const tools = spans.filter((s) => s.name === 'execute_tool get_user');
        expect(
          tools
            .map((t) => [
              parentOf(t)?.attributes['toolsmith.skill.call.id'],
              t.attributes['toolsmith.tool.skill'],
            ])
            .sort(),
        ).toEqual([
          ['1.s1', n.chain],
          ['1.s2', n.chain],
          ['1.s3', n.strict],
        ]);
        for (const t of tools) {
          const p = parentOf(t) as ReceivedSpan;
          expect(t.startMs).toBeGreaterThanOrEqual(p.startMs);
          expect(t.endMs).toBeLessThanOrEqual(p.endMs);
        }
        for (const s of [outer, inner]) {
          expect(s.attributes).toMatchObject({
            'toolsmith.skill.name': n.chain,
            'toolsmith.skill.status': 'ok',
            'toolsmith.skill.tool_calls': 1,
          });
          expect(s.status.code).not.toBe(2);
        }
        // Its arguments' size only, never their text.
        expect(outer.attributes['toolsmith.skill.args_bytes']).toBe(
          JSON.stringify({ user_id: 'u2', depth: 1 }).length,
        );
        expect(JSON.stringify(spans)).not.toContain('"u2"');
        // The failed call: ERROR with the exception's type and message, as OpenTelemetry records one.
        expect(strict.attributes['toolsmith.skill.status']).toBe('error');
        expect(strict.attributes['error.type']).toBe(n.error);
        expect(strict.status).toMatchObject({ code: 2, message: 'u4 is bronze, not gold' });
        expect(strict.events.find((e) => e.name === 'exception')?.attributes).toEqual({
          'exception.type': n.error,
          'exception.message': 'u4 is bronze, not gold',
        });
      } finally {
        await receiver.close();
      }
    }
  }, 300_000);
});

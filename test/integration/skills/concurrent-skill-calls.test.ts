/**
 * Skill calls running at once in a JS job (`await Promise.all([a(...), b(...)])`): each tool call is
 * credited to the skill call that made it, and each skill call to the one that made it, through the CLI
 * as a process against real containers, in the stored record (`exec --json`, `runs show --json`) and in
 * a run's OpenTelemetry trace (the tool-call spans under the right `skill <name>` span), against a real
 * OTLP receiver (docs/skills.md, "How a skill runs").
 *
 * The interleaving is made by awaits, not by time: every skill call first awaits a turn of the microtask
 * queue, so all of them have started before any makes a tool call, and each call's later tool calls come
 * while the others are still running.
 *
 * Before, the node worker found the skill by the stack and then took the latest call of that name still
 * running: `user_tier("u1")`'s tool calls went to `user_tier("u2")`, and a call nested under a call
 * running at once with another of the same skill was put under the wrong one.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { ReceivedSpan } from '../../support/otlp-receiver.ts';
import { tempFiles } from '../../support/workspace.ts';
import { cliProcess } from '../faults/support/processes.ts';
import { createSkills } from '../../support/skill-cli.ts';

const fx = useScriptedWorkspace({ docker: true });
const files = tempFiles('toolsmith-concurrent-skills-');
afterAll(() => rmSync(files.dir, { recursive: true, force: true }));

const USER_TIER = `/**
 * A customer's tier and a product's name.
 * @param {string} user_id The customer's id (e.g. "u1").
 * @param {string} product_id A product's id (e.g. "p1").
 * @returns The tier and the product's name.
 */
async function user_tier(user_id, product_id) {
  await null;
  const tier = (await get_user({ user_id })).data.tier;
  await null;
  const name = (await get_product({ product_id })).data.name;
  return tier + " " + name;
}
`;

const STOCK = `/**
 * How many units of a product a warehouse holds.
 * @param {string} product_id The product's id (e.g. "p1").
 * @param {string} warehouse The warehouse.
 * @returns The product's price and the units in stock.
 */
async function stock(product_id, warehouse) {
  await null;
  const price = (await get_product({ product_id })).data.price;
  const units = (await check_inventory({ product_id, warehouse })).data.in_stock;
  return price + "x" + units;
}
`;

const TIERS = `/**
 * The tiers of customers, looked up half and half at once.
 * @param {string[]} ids The customers' ids (e.g. ["u1"]).
 * @returns Their tiers.
 */
async function tiers(ids) {
  if (ids.length > 1) {
    const half = Math.floor(ids.length / 2);
    const [a, b] = await Promise.all([tiers(ids.slice(0, half)), tiers(ids.slice(half))]);
    return a.concat(b);
  }
  await null;
  return [(await get_user({ user_id: ids[0] })).data.tier];
}
`;

const SCRIPT = `const both = await Promise.all([user_tier("u1", "p2"), stock("p4", "Berlin"), user_tier("u2", "p3")]);
const t = await tiers(["u1", "u2", "u3", "u4"]);
emitResult([both, t]);
`;

const RESULT = [
  ['gold USB-C dock', '24x7', 'silver 27in monitor'],
  ['gold', 'silver', 'gold', 'bronze'],
];

/** The skill calls: [id, skill, the call that made it, arguments]. */
const SKILL_CALLS = [
  [1, 'user_tier', undefined, { user_id: 'u1', product_id: 'p2' }],
  [2, 'stock', undefined, { product_id: 'p4', warehouse: 'Berlin' }],
  [3, 'user_tier', undefined, { user_id: 'u2', product_id: 'p3' }],
  [4, 'tiers', undefined, { ids: ['u1', 'u2', 'u3', 'u4'] }],
  [5, 'tiers', 4, { ids: ['u1', 'u2'] }],
  [6, 'tiers', 5, { ids: ['u1'] }],
  [7, 'tiers', 5, { ids: ['u2'] }],
  [8, 'tiers', 4, { ids: ['u3', 'u4'] }],
  [9, 'tiers', 8, { ids: ['u3'] }],
  [10, 'tiers', 8, { ids: ['u4'] }],
];

/** Each tool call: [tool, arguments, skill, skill call], in a stable order (by their text). */
const TOOL_CALLS = [
  ['check_inventory', { product_id: 'p4', warehouse: 'Berlin' }, 'stock', 2],
  ['get_product', { product_id: 'p2' }, 'user_tier', 1],
  ['get_product', { product_id: 'p3' }, 'user_tier', 3],
  ['get_product', { product_id: 'p4' }, 'stock', 2],
  ['get_user', { user_id: 'u1' }, 'tiers', 6],
  ['get_user', { user_id: 'u1' }, 'user_tier', 1],
  ['get_user', { user_id: 'u2' }, 'tiers', 7],
  ['get_user', { user_id: 'u2' }, 'user_tier', 3],
  ['get_user', { user_id: 'u3' }, 'tiers', 9],
  ['get_user', { user_id: 'u4' }, 'tiers', 10],
];

const cli = (args: string[], env: Record<string, string> = {}) => cliProcess(fx.ws, fx.data, args, env).done;

interface SkillCall {
  id: number;
  name: string;
  parent?: number;
  args: Record<string, unknown>;
}
interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  skill?: string;
  skillCall?: number;
}

const byText = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
const owners = (calls: ToolCall[]) => calls.map((c) => [c.name, c.args, c.skill, c.skillCall]).sort(byText);
const skillCalls = (calls: SkillCall[] | undefined) =>
  (calls ?? []).map((c) => [c.id, c.name, c.parent, c.args]);

beforeAll(async () => {
  await createSkills(cli, [
    [
      'user_tier',
      files.file('user_tier.js', USER_TIER),
      { user_id: 'u1', product_id: 'p1' },
      'gold Mechanical keyboard',
    ],
    ['stock', files.file('stock.js', STOCK), { product_id: 'p1', warehouse: 'Berlin' }, '129x3'],
    ['tiers', files.file('tiers.js', TIERS), { ids: ['u1', 'u4'] }, ['gold', 'bronze']],
  ]);
}, 300_000);

describe('skill calls running at once (JS): each tool call belongs to the call that made it', () => {
  it('exec --json: the tool calls of concurrent calls of one skill, of two skills and of nested calls', async () => {
    const json = await cli(['exec', files.file('both.js', SCRIPT), '--sandbox', 'ecommerce', '--json']);
    expect(json.code, json.err).toBe(0);
    const r = JSON.parse(json.out) as { data: unknown; toolCalls: ToolCall[]; skillCalls?: SkillCall[] };
    expect(r.data).toEqual(RESULT);
    expect({ skillCalls: skillCalls(r.skillCalls), toolCalls: owners(r.toolCalls) }).toEqual({
      skillCalls: SKILL_CALLS,
      toolCalls: TOOL_CALLS,
    });
  }, 300_000);

  it("a run's stored record and its trace: each tool-call span under its own skill call's span", async () => {
    const receiver = await startOtlpReceiver();
    try {
      fx.llm.push(`\`\`\`javascript\n${SCRIPT}\`\`\``);
      const run = await cli(
        [
          'run',
          'Tiers and stock, at once',
          '--sandbox',
          'ecommerce',
          '--no-templates',
          '--lang',
          'js',
          '--json',
        ],
        { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base },
      );
      expect(run.code, run.err).toBe(0);
      const runId = (JSON.parse(run.out) as { id: string; status: string }).id;
      expect((JSON.parse(run.out) as { status: string }).status).toBe('succeeded');

      // The stored run, read back from the run store.
      const shown = await cli(['runs', 'show', runId, '--json']);
      expect(shown.code, shown.err).toBe(0);
      const stored = JSON.parse(shown.out) as {
        attempts: { execution?: { toolCalls: ToolCall[]; skillCalls?: SkillCall[] } }[];
      };
      const execution = stored.attempts.at(-1)?.execution;
      expect({
        skillCalls: skillCalls(execution?.skillCalls),
        toolCalls: owners(execution?.toolCalls ?? []),
      }).toEqual({ skillCalls: SKILL_CALLS, toolCalls: TOOL_CALLS });

      // The exported trace: a `skill <name>` span per call, nested as the calls were, each tool-call span
      // under the span of the call that made it.
      expect(receiver.requests).toHaveLength(1);
      const spans = receiver.spans;
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const callOf = (s: ReceivedSpan | undefined) => {
        const id = s?.attributes['toolsmith.skill.call.id'];
        return typeof id === 'string' ? Number(/\.s(\d+)$/.exec(id)?.[1]) : undefined;
      };
      const skills = spans.filter((s) => s.name.startsWith('skill '));
      expect(
        skills
          .map((s) => [callOf(s), s.name.slice('skill '.length), callOf(byId.get(s.parentSpanId))])
          .sort((a, b) => Number(a[0]) - Number(b[0])),
      ).toEqual(SKILL_CALLS.map(([id, name, parent]) => [id, name, parent]));
      for (const s of skills)
        if (callOf(byId.get(s.parentSpanId)) === undefined)
          expect(byId.get(s.parentSpanId)?.name).toMatch(/^sandbox\.execute /);
      const tools = spans.filter((s) => s.name.startsWith('execute_tool '));
      expect(
        tools
          .map((t) => [
            t.name.slice('execute_tool '.length),
            t.attributes['toolsmith.tool.skill'],
            callOf(byId.get(t.parentSpanId)),
          ])
          .sort(byText),
      ).toEqual(TOOL_CALLS.map(([name, , skill, call]) => [name, skill, call]).sort(byText));
    } finally {
      await receiver.close();
    }
  }, 300_000);
});

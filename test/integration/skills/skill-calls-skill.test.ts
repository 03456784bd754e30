/**
 * A skill that calls another skill of its sandbox (not supported in v1: a skill calls the sandbox's
 * tools only) is refused saying so, in Python and in JS, not as "spent_by() is not defined: the tools
 * are ..." of a name nobody has. A skill calling itself is recursion, allowed (and bounded).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkills, skillCreateArgs } from '../../support/skill-cli.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
const cli = (args: string[]) => runToolsmith(ws, args);
const file = (name: string, text: string) => {
  const f = join(ws, name);
  writeFileSync(f, text);
  return f;
};

const SPENT_BY = `def spent_by(user_id: str) -> float:
    """What a customer spent.

    Args:
        user_id: The customer's id.

    Returns:
        The sum of the totals of the customer's orders.
    """
    return round(sum(o["total"] for o in get_orders().data if o["user_id"] == user_id), 2)
`;
const TWICE = `def twice(user_id: str) -> float:
    """Twice what a customer spent.

    Args:
        user_id: The customer's id.

    Returns:
        Twice the sum.
    """
    return spent_by(user_id) * 2
`;
const ORDER_TOTAL = `/**
 * The total of a customer's orders.
 * @param {string} user_id The customer's id.
 * @returns The sum.
 */
async function order_total(user_id) {
  const orders = (await get_orders({})).data;
  return orders.filter((o) => o.user_id === user_id).reduce((a, o) => a + o.total, 0);
}
`;
const TWICE_JS = `/**
 * Twice the total.
 * @param {string} user_id The customer's id.
 * @returns Twice the sum.
 */
async function twice_js(user_id) {
  return (await order_total(user_id)) * 2;
}
`;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-skill-calls-skill-');
  await createSkills(cli, [
    ['spent_by', file('spent_by.py', SPENT_BY), { user_id: 'u1' }, 201],
    ['order_total', file('order_total.js', ORDER_TOTAL), { user_id: 'u1' }, 201],
  ]);
}, 180_000);
afterAll(() => removeWorkspace(ws));

describe('a skill calling another skill', () => {
  it.each([
    ['twice', 'twice.py', TWICE, 'spent_by', 'line 10:12'],
    ['twice_js', 'twice_js.js', TWICE_JS, 'order_total', 'line 7:17'],
  ])(
    '%s is refused naming the other skill and the v1 limit',
    async (name, f, source, other, where) => {
      const r = await cli(skillCreateArgs(name, file(f, source), { args: { user_id: 'u1' }, expect: 402 }));
      expect(r.code).toBe(2);
      expect(r.err).toContain(`toolsmith: skill ${name}: ${where} skill-not-offered: ${other}() is a skill`);
      expect(r.err).toContain(`skill ${other} is another skill of sandbox ecommerce`);
      expect(r.err).toContain('never another skill (v1)');
      expect(r.err).not.toContain('is not defined');
      // Nothing was saved.
      const list = await cli(['skill', 'list', '--sandbox', 'ecommerce', '--json']);
      expect(
        (JSON.parse(list.out) as { skills: { name: string }[] }).skills.map((s) => s.name).sort(),
      ).toEqual(['order_total', 'spent_by']);
    },
    120_000,
  );
});

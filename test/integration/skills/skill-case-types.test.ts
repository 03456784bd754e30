/**
 * A test case whose argument has another type than its parameter (`{"n": "5"}` for `n: int`) could
 * never pass (its script is refused by validation, `tool-argument-type`); `skill create --force` with it
 * saved a new, failing version over the passing one, which scripts were no longer offered. It is refused
 * like an unknown argument, before anything is saved.
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
const FACT = `def fact(n: int) -> int:
    """Factorial.

    Args:
        n: n.

    Returns:
        n!.
    """
    return 1 if n <= 1 else n * fact(n - 1)
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

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-skill-case-types-');
  await createSkills(cli, [
    ['fact', file('fact.py', FACT), { n: 5 }, 120],
    ['order_total', file('order_total.js', ORDER_TOTAL), { user_id: 'u1' }, 201],
  ]);
}, 180_000);
afterAll(() => removeWorkspace(ws));

const listed = async () =>
  (
    JSON.parse((await cli(['skill', 'list', '--json'])).out) as {
      skills: { name: string; version: number; status: string }[];
    }
  ).skills.map((s) => [s.name, s.version, s.status]);

describe('a test case of the wrong type', () => {
  it.each([
    ['fact', 'fact.py', { n: '5' }, 'test 1: argument n must be int, got "5"'],
    ['order_total', 'order_total.js', { user_id: 5 }, 'test 1: argument user_id must be string, got 5'],
  ])(
    '%s: refused before saving, the passing version kept',
    async (name, f, args, message) => {
      const r = await cli([...skillCreateArgs(name, join(ws, f), { args, expect: 1 }), '--force']);
      expect(r.code).toBe(2);
      expect(r.err).toContain(message);
      expect(await listed()).toEqual([
        ['fact', 1, 'passed'],
        ['order_total', 1, 'passed'],
      ]);
    },
    120_000,
  );

  it('a bool for an int is accepted (as Python takes it)', async () => {
    const r = await cli([
      ...skillCreateArgs('fact', join(ws, 'fact.py'), { args: { n: true }, expect: 1 }),
      '--force',
    ]);
    expect(r.out).toContain('offered to scripts');
    expect(r.code).toBe(0);
  }, 120_000);
});

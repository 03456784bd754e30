import { describe, expect, it } from 'vitest';
import {
  callsInline,
  formatSaving,
  skillSavings,
  toolCallLines,
  toolSequence,
} from '../../../src-main/core/skills/savings.ts';

const CITY = `def city_of_order(order_id: str) -> str:
    """The city of an order's customer."""
    order = [o for o in get_orders().data if o["id"] == order_id][0]
    return get_user(user_id=order["user_id"]).data["city"]
`;
const call = (name: string, skill?: string) => (skill ? { name, skill } : { name });

describe('skill savings', () => {
  it("a skill's sequence is its tools in the order of their first call in the source", () => {
    expect(toolSequence(CITY, ['get_user', 'get_orders'])).toEqual(['get_orders', 'get_user']);
    // A method of the same name is not the tool; a tool named but never called is left out.
    expect(toolSequence('x = r.get_user()\ny = get_orders()\n', ['get_user', 'get_orders'])).toEqual([
      'get_orders',
    ]);
  });

  it('matches a contiguous run of the recorded calls, repeats in a row collapsed', () => {
    const seq = ['get_orders', 'get_user'];
    expect(callsInline(seq, [call('get_orders'), call('get_user'), call('get_user')])).toBe(true);
    expect(callsInline(seq, [call('get_user'), call('get_orders'), call('get_user')])).toBe(true);
    // The same tools in the other order, or with another call between them, are not the skill's steps.
    expect(callsInline(seq, [call('get_user'), call('get_orders')])).toBe(false);
    expect(callsInline(seq, [call('get_orders'), call('get_product'), call('get_user')])).toBe(false);
    // Calls the skill itself made are not inline steps; nor are refused calls.
    expect(callsInline(seq, [call('get_orders', 'city_of_order'), call('get_user', 'city_of_order')])).toBe(
      false,
    );
    expect(callsInline(seq, [{ name: 'get_orders', refused: true }, call('get_user')])).toBe(false);
    expect(callsInline([], [call('get_orders')])).toBe(false);
  });

  it('counts the lines that call the tools in the runs that match, and the runs', () => {
    expect(
      toolCallLines('a = get_orders().data\nb = 1\nc = get_user(user_id="u1")\n', ['get_orders', 'get_user']),
    ).toEqual([1, 3]);
    const runs = [
      {
        runId: 'r1',
        caseId: 'order-city',
        column: 'm',
        body: 'order = [o for o in get_orders().data if o["id"] == "o4"][0]\nemit_result(get_user(user_id=order["user_id"]).data["city"])',
        calls: [call('get_orders'), call('get_user')],
      },
      {
        runId: 'r2',
        caseId: 'user-name',
        column: 'm',
        body: 'emit_result(get_user(user_id="u1").data["name"])',
        calls: [call('get_user')],
      },
      {
        runId: 'r3',
        caseId: 'order-city',
        column: 'm',
        body: 'emit_result(city_of_order(order_id="o4"))',
        calls: [call('get_orders', 'city_of_order'), call('get_user', 'city_of_order')],
      },
    ];
    const out = skillSavings(
      [
        { name: 'city_of_order', status: 'passed', source: CITY, tools: ['get_orders', 'get_user'] },
        { name: 'nothing', status: 'passed', source: 'def nothing() -> int:\n    return 1\n', tools: [] },
      ],
      runs,
    );
    expect(out).toEqual([
      {
        skill: 'city_of_order',
        status: 'passed',
        sequence: ['get_orders', 'get_user'],
        lines: 2,
        runs: 1,
        matches: [{ runId: 'r1', caseId: 'order-city', column: 'm', lines: [1, 2] }],
      },
    ]);
    expect(formatSaving(out[0] as (typeof out)[0])).toBe(
      'city_of_order would have saved 2 tool-call lines in 1 run (get_orders → get_user)',
    );
    expect(formatSaving({ ...(out[0] as (typeof out)[0]), status: 'untested', runs: 0, lines: 0 })).toBe(
      'city_of_order (untested) would have saved 0 tool-call lines in 0 runs (get_orders → get_user)',
    );
  });
});

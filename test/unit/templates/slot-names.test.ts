/**
 * A template promoted from a run names its slots after what they fill in the run's script (the tool
 * parameter, the key, the variable), deduplicated and valid as identifiers; a template stored with
 * `slotN` names still loads and serves. Before, every proposed slot was `slot1`, `slot2`...
 */
import { describe, expect, it } from 'vitest';
import type { CallShape } from '../../../src-main/core/lang/signature.ts';
import { templateFromParts } from '../../../src-main/core/templates/file.ts';
import { proposeTemplate } from '../../../src-main/core/templates/propose.ts';
import { checkTemplate, instantiate, slotNamesFromScript } from '../../../src-main/core/templates/slots.ts';
import { matchTemplate, patternSlots } from '../../../src-main/core/templates/template.ts';
import type { Template } from '../../../src-main/core/templates/template.ts';

/** The signatures a script of the sample ecommerce sandbox calls (Python), and a JS skill's. */
const PY_SHAPES: Record<string, CallShape> = {
  get_user: { text: 'get_user(user_id: str)', params: [{ name: 'user_id', kind: 'either', required: true }] },
  check_inventory: {
    text: 'check_inventory(product_id: str, warehouse: str = "New York")',
    params: [
      { name: 'product_id', kind: 'either', required: true },
      { name: 'warehouse', kind: 'either', required: false },
    ],
  },
};
const JS_SHAPES: Record<string, CallShape> = {
  get_user: {
    text: 'get_user({user_id: string})',
    params: [{ name: 'user_id', kind: 'keyword', required: true }],
    objectArgument: true,
  },
  order_total: {
    text: 'order_total(user_id: string)',
    params: [{ name: 'user_id', kind: 'positional', required: true }],
  },
};

/** A proposal as the template it would be saved as (its task the one example). */
const asTemplate = (task: string, p: ReturnType<typeof proposeTemplate>, language: Template['language']) => ({
  name: 'proposed',
  pattern: p.pattern,
  slots: p.slots,
  sandbox: 'ecommerce',
  language,
  body: p.body,
  examples: [{ intent: task }],
});

describe('proposed slots are named after what they fill', () => {
  it('Python: a keyword, a positional parameter, a dict key, a variable; the same parameter twice is numbered', () => {
    const task = 'Tiers of u1 and u3, stock of p2 in "Tokyo", and 5 of "gold" for #104';
    const script = [
      'where = "Tokyo"',
      'a = get_user(user_id="u1").data["tier"]',
      'b = get_user("u3").data["tier"]',
      's = check_inventory(product_id="p2", warehouse=where).data["in_stock"]',
      'q = {"min-count": 5, "tier": "gold"}',
      'emit_result([a, b, s, q, "#104"])',
    ].join('\n');
    const p = proposeTemplate(task, script, 'python', PY_SHAPES);
    expect(p.pattern).toBe(
      'Tiers of {user_id} and {user_id_2}, stock of {product_id} in {where}, and {min_count} of {tier} for #{slot7}',
    );
    expect(p.slots).toEqual({
      user_id: 'str',
      user_id_2: 'str',
      product_id: 'str',
      where: 'str',
      min_count: 'int',
      tier: 'str',
      slot7: 'int',
    });
    expect(p.values).toEqual({
      user_id: 'u1',
      user_id_2: 'u3',
      product_id: 'p2',
      where: 'Tokyo',
      min_count: 5,
      tier: 'gold',
      slot7: 104,
    });
    expect(p.body).toBe(
      [
        'where = {{where}}',
        'a = get_user(user_id={{user_id}}).data["tier"]',
        'b = get_user({{user_id_2}}).data["tier"]',
        's = check_inventory(product_id={{product_id}}, warehouse=where).data["in_stock"]',
        'q = {"min-count": {{min_count}}, "tier": {{tier}}}',
        'emit_result([a, b, s, q, "#104"])',
      ].join('\n'),
    );
    // A valid template that serves a matching intent with the named slots.
    const t = asTemplate(task, p, 'python');
    expect(checkTemplate(t)).toEqual([]);
    const values = matchTemplate(t, 'Tiers of u2 and u4, stock of p3 in "Berlin", and 7 of "silver" for #9');
    expect(values).toEqual({
      user_id: 'u2',
      user_id_2: 'u4',
      product_id: 'p3',
      where: 'Berlin',
      min_count: 7,
      tier: 'silver',
      slot7: 9,
    });
    expect(instantiate(t, values!)).toContain('b = get_user("u4").data["tier"]');
  });

  it('JS and TS: an object key, a declared or assigned name, a skill parameter by position', () => {
    const task = 'Orders of u1 and u2 over 3 for "Ada"';
    const script = [
      'const who = "Ada";',
      'const a = await get_user({ user_id: "u1" });',
      'let over;',
      'over = 3;',
      'const b = await order_total("u2");',
      'emitResult([a, b, who, over]);',
    ].join('\n');
    for (const language of ['js', 'ts'] as const) {
      const p = proposeTemplate(task, script, language, JS_SHAPES);
      expect(p.pattern, language).toBe('Orders of {user_id} and {user_id_2} over {over} for {who}');
      expect(p.body, language).toContain('get_user({ user_id: {{user_id}} })');
      expect(p.body, language).toContain('order_total({{user_id_2}})');
      expect(p.body, language).toContain('over = {{over}};');
      expect(p.body, language).toContain('const who = {{who}};');
      const t = asTemplate(task, p, language);
      expect(checkTemplate(t), language).toEqual([]);
      expect(matchTemplate(t, 'Orders of u3 and u4 over 8 for "Bo"'), language).toEqual({
        user_id: 'u3',
        user_id_2: 'u4',
        over: 8,
        who: 'Bo',
      });
    }
  });

  it('names are identifiers: keys that are not are made so; unnamed slots and unparsable scripts keep slotN', () => {
    const values = { slot1: 'u1', slot2: 'u2', slot3: 'u3', slot4: 'u4' };
    const names = slotNamesFromScript(
      'f({"2nd-id": "u1", "été": "u2", "--": "u3"})\nemit_result("u4")',
      values,
      'python',
    );
    expect(names).toEqual({ slot1: '_2nd_id', slot2: '_t_', slot3: 'slot3', slot4: 'slot4' });
    for (const n of Object.values(names)) expect(n).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    // A long name is cut; one that is taken by an earlier slot's is numbered.
    expect(
      slotNamesFromScript(`x = {"${'k'.repeat(80)}": "u1"}\nslot2 = "u3"\ny = "u2"`, values, 'python'),
    ).toEqual({ slot1: 'k'.repeat(40), slot2: 'y', slot3: 'slot2', slot4: 'slot4' });
    expect(slotNamesFromScript('slot2 = "u1"', values, 'python')).toEqual({
      slot1: 'slot2',
      slot2: 'slot2_2',
      slot3: 'slot3',
      slot4: 'slot4',
    });
    expect(slotNamesFromScript('x = = "u1"', values, 'python')).toEqual({
      slot1: 'slot1',
      slot2: 'slot2',
      slot3: 'slot3',
      slot4: 'slot4',
    });
    // Without the signatures, a positional argument names nothing.
    expect(slotNamesFromScript('get_user("u1")', { slot1: 'u1' }, 'python')).toEqual({ slot1: 'slot1' });
  });

  it('a template stored with slotN names reads and serves unchanged', () => {
    const stored = templateFromParts(
      {
        name: 'user-tier',
        pattern: 'Tier of user {slot1}',
        slots: { slot1: 'str' },
        sandbox: 'ecommerce',
        language: 'python',
        examples: [{ intent: 'Tier of user u4' }],
      },
      'r = get_user(user_id={{slot1}})\nemit_result(r.data["tier"])\n',
    );
    expect(checkTemplate(stored)).toEqual([]);
    expect(patternSlots(stored.pattern)).toEqual(['slot1']);
    const values = matchTemplate(stored, 'tier of user u2');
    expect(values).toEqual({ slot1: 'u2' });
    expect(instantiate(stored, values!)).toBe('r = get_user(user_id="u2")\nemit_result(r.data["tier"])\n');
  });
});

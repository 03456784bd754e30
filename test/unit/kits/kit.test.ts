import { describe, expect, it } from 'vitest';
import { defaultKit, KitError, kitToolView, resolveKit } from '../../../src-main/core/kits/kit.ts';
import type { SandboxTool } from '../../../src-main/core/tools/extract.ts';
import { maxGrade } from '../../../src-main/core/tools/grade.ts';

const t = (name: string, w: number, d: number): SandboxTool => ({
  name,
  description: name,
  parameters: [],
  location: 'sandbox',
  grade: { w, d },
});
const tools = [t('get_orders', 1, 0), t('get_user', 1, 0), t('refund', 2, 2), t('notes', 0, 1)];

describe('kits', () => {
  it('resolves the list form', () => {
    const k = resolveKit({ name: 'k', sandbox: 's', tools: ['get_orders', 'notes'] }, tools);
    expect(k.tools.map((x) => [x.alias, x.tool.name])).toEqual([
      ['get_orders', 'get_orders'],
      ['notes', 'notes'],
    ]);
    expect(k.grade).toEqual({ w: 1, d: 1 });
  });

  it('resolves the mapping form with aliases', () => {
    const k = resolveKit(
      { name: 'k', sandbox: 's', tools: { orders: 'get_orders', user: 'get_user' } },
      tools,
    );
    expect(kitToolView(k).map((x) => x.name)).toEqual(['orders', 'user']);
    expect(k.grade).toEqual({ w: 1, d: 0 });
  });

  it('resolves the nested form with groups', () => {
    const k = resolveKit(
      { name: 'k', sandbox: 's', tools: { read: { orders: 'get_orders' }, write: { memo: 'notes' } } },
      tools,
    );
    expect(k.tools.map((x) => `${x.group}/${x.alias}`)).toEqual(['read/orders', 'write/memo']);
  });

  it('the grade is the element-wise maximum', () => {
    expect(
      maxGrade([
        { w: 2, d: 0 },
        { w: 0, d: 1 },
      ]),
    ).toEqual({ w: 2, d: 1 });
    expect(maxGrade([])).toEqual({ w: 0, d: 0 });
  });

  it('refuses a kit above the workspace maximum grade, naming the offending tools', () => {
    expect(() =>
      resolveKit({ name: 'danger', sandbox: 's', tools: ['get_orders', 'refund'] }, tools, { w: 2, d: 1 }),
    ).toThrow(
      'kit danger has grade (w=2, d=2), above the workspace maximum (w=2, d=1); tools over the limit: refund (w=2, d=2)',
    );
    expect(() =>
      resolveKit({ name: 'ok', sandbox: 's', tools: ['get_orders'] }, tools, { w: 1, d: 0 }),
    ).not.toThrow();
  });

  it.each([
    [{ name: 'k', sandbox: 's', tools: ['nope'] }, /no tool nope in sandbox s; available: get_orders/],
    [{ name: 'k', sandbox: 's', tools: { a: 'get_orders', b: { a: 'get_user' } } }, /alias a is used twice/],
    [{ name: 'k', sandbox: 's', tools: { 'bad-alias': 'get_orders' } }, /not a valid identifier/],
    [{ name: 'k', sandbox: 's', tools: [] }, /lists no tools/],
  ])('refuses invalid kits with a clear error', (def, msg) => {
    expect(() => resolveKit(def, tools)).toThrow(KitError);
    expect(() => resolveKit(def, tools)).toThrow(msg);
  });

  it('a default kit covers every tool', () => {
    expect(defaultKit('s', tools).grade).toEqual({ w: 2, d: 2 });
  });
});

import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../../src-main/core/tools/schema.ts';
import { draftToJson, emptyOption, initialDraft, kindOf, placeholderOf, typeLabel } from './schema-form.ts';

/** An MCP-style input schema with a nested object and an array of objects. */
const order: JsonSchema = {
  type: 'object',
  required: ['customer', 'items'],
  properties: {
    customer: { type: 'string' },
    priority: { enum: ['low', 'high'], default: 'low' },
    address: {
      type: 'object',
      required: ['city'],
      properties: { city: { type: 'string' }, zip: { type: 'integer' } },
    },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sku', 'qty'],
        properties: { sku: { type: 'string' }, qty: { type: 'integer' }, gift: { type: 'boolean' } },
      },
    },
    note: { type: ['string', 'null'] },
    extra: { type: 'object' },
  },
};

describe('tool forms from JSON Schema', () => {
  it('picks an input per schema node, nested objects and arrays included', () => {
    expect(kindOf(order)).toBe('object');
    expect(kindOf(order.properties!['items']!)).toBe('array');
    expect(kindOf(order.properties!['priority']!)).toBe('enum');
    expect(kindOf(order.properties!['note']!)).toBe('string');
    // No properties to render: a JSON text input.
    expect(kindOf(order.properties!['extra']!)).toBe('json');
    expect(kindOf({ type: 'array', items: {} })).toBe('json');
    expect(kindOf({ type: ['string', 'integer'] })).toBe('json');
  });

  it('starts with scalars empty (the tool default applies), arrays empty or their default items', () => {
    expect(initialDraft(order)).toEqual({
      customer: '',
      priority: '',
      address: { city: '', zip: '' },
      items: [],
      note: '',
      extra: '',
    });
    expect(initialDraft({ type: 'array', items: { type: 'integer' }, default: [1, 2] })).toEqual(['1', '2']);
  });

  it('builds the nested arguments, leaving out empty optional fields', () => {
    const d = initialDraft(order) as Record<string, unknown>;
    const draft = {
      ...d,
      customer: 'u4',
      address: { city: 'Oslo', zip: '' },
      items: [
        { sku: 'A-1', qty: '2', gift: 'true' },
        { sku: 'B-2', qty: '1', gift: '' },
      ],
      extra: '{"via": "form"}',
    };
    expect(draftToJson(order, draft as never)).toEqual({
      value: {
        customer: 'u4',
        address: { city: 'Oslo' },
        items: [
          { sku: 'A-1', qty: 2, gift: true },
          { sku: 'B-2', qty: 1 },
        ],
        extra: { via: 'form' },
      },
      errors: {},
    });
  });

  it('names every bad or missing field by its path, deep in arrays too', () => {
    const draft = {
      customer: '',
      priority: '"urgent"',
      address: { city: '', zip: 'ten' },
      items: [{ sku: 'A-1', qty: '2.5', gift: 'maybe' }],
      note: '',
      extra: '[1]',
    };
    const r = draftToJson(order, draft);
    expect(r.value).toBeUndefined();
    expect(Object.keys(r.errors).sort()).toEqual(
      [
        'address.city',
        'address.zip',
        'customer',
        'extra',
        'items[0].gift',
        'items[0].qty',
        'priority',
      ].sort(),
    );
    expect(r.errors['items[0].qty']).toMatch(/integer/);
    expect(r.errors['priority']).toMatch(/one of "low", "high"/);
  });

  it('an optional object left empty is left out; a required array may be empty', () => {
    const s: JsonSchema = {
      type: 'object',
      required: ['tags'],
      properties: {
        tags: { type: 'array', items: { type: 'string' } },
        filter: { type: 'object', properties: { from: { type: 'string' } } },
      },
    };
    expect(draftToJson(s, initialDraft(s))).toEqual({ value: { tags: [] }, errors: {} });
    expect(draftToJson(s, { tags: ['a', ''], filter: { from: '' } })).toEqual({
      errors: { 'tags[1]': 'required' },
    });
  });
});

describe('what a field shows before it is filled', () => {
  it('examples and the default first, then the expected shape', () => {
    expect(placeholderOf({ type: 'string', examples: ['x', 2] })).toBe('e.g. x, 2');
    expect(placeholderOf({ type: 'integer', default: 5 })).toBe('default 5');
    expect(placeholderOf({ type: 'integer' })).toBe('integer');
    expect(placeholderOf({ type: 'array' })).toBe('JSON list');
    expect(placeholderOf({ type: 'object' })).toBe('JSON object');
    expect(placeholderOf({ type: 'string' })).toBe('');
  });

  it('a select offers the default it leaves to the tool; types read as Python-ish labels', () => {
    expect(emptyOption({ enum: ['a', 'b'], default: 'a' })).toBe('default ("a")');
    expect(emptyOption({ type: 'boolean' })).toBe('— choose —');
    expect(typeLabel({ type: 'array', items: { type: 'number' } })).toBe('list[number]');
    expect(typeLabel({ type: ['integer', 'null'] })).toBe('integer | null');
  });

  it('an Optional field takes None or null', () => {
    expect(draftToJson({ type: ['integer', 'null'] }, 'None')).toEqual({ value: null, errors: {} });
    expect(draftToJson({ type: 'integer' }, 'None').errors).toEqual({
      '(arguments)': expect.stringContaining('integer'),
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { ToolParameter } from '../../../../src-main/core/tools/model.ts';
import { checkForm, coerceParam, coerceText, isEmptyField, placeholderFor, showValue } from './coerce.ts';

const param = (p: Partial<ToolParameter> & Pick<ToolParameter, 'name' | 'type'>): ToolParameter => ({
  description: '',
  required: false,
  source: 'context',
  ...p,
});

describe('coerceText', () => {
  it('keeps a str as typed', () => {
    expect(coerceText('str', '  a b ')).toEqual({ ok: true, value: '  a b ' });
  });

  it('reads integers and refuses fractions, words and unsafe sizes', () => {
    expect(coerceText('int', ' -42 ')).toEqual({ ok: true, value: -42 });
    expect(coerceText('int', '+7')).toEqual({ ok: true, value: 7 });
    expect(coerceText('int', '1.5')).toMatchObject({ ok: false, error: expect.stringContaining('integer') });
    expect(coerceText('int', 'x')).toMatchObject({ ok: false });
    expect(coerceText('int', '99999999999999999999')).toEqual({
      ok: false,
      error: 'this integer is too large',
    });
  });

  it('reads floats, not Infinity or hex', () => {
    expect(coerceText('float', '2.5')).toEqual({ ok: true, value: 2.5 });
    expect(coerceText('float', '.5')).toEqual({ ok: true, value: 0.5 });
    expect(coerceText('float', '1e3')).toEqual({ ok: true, value: 1000 });
    expect(coerceText('float', 'Infinity')).toMatchObject({ ok: false });
    expect(coerceText('float', '0x10')).toMatchObject({ ok: false });
  });

  it('reads booleans in their usual spellings', () => {
    for (const t of ['true', 'True', '1', 'yes'])
      expect(coerceText('bool', t)).toEqual({ ok: true, value: true });
    for (const t of ['false', 'False', '0', 'no'])
      expect(coerceText('bool', t)).toEqual({ ok: true, value: false });
    expect(coerceText('bool', 'maybe')).toMatchObject({ ok: false });
  });

  it('wants JSON lists and objects of the right shape', () => {
    expect(coerceText('list', '["a", 1]')).toEqual({ ok: true, value: ['a', 1] });
    expect(coerceText('list', '1')).toEqual({
      ok: false,
      error: 'expects a JSON list (e.g. ["a", 1]), not a single value',
    });
    expect(coerceText('list', '[')).toMatchObject({ ok: false, error: expect.stringContaining('JSON list') });
    expect(coerceText('dict', '{"k": 1}')).toEqual({ ok: true, value: { k: 1 } });
    expect(coerceText('dict', '[1]')).toEqual({ ok: false, error: 'expects a JSON object (e.g. {"k": 1})' });
    expect(coerceText('dict', 'null')).toMatchObject({ ok: false });
  });

  it('any: JSON when it parses, the text otherwise', () => {
    expect(coerceText('any', '3')).toEqual({ ok: true, value: 3 });
    expect(coerceText('any', '{"a": [true]}')).toEqual({ ok: true, value: { a: [true] } });
    expect(coerceText('any', 'plain text')).toEqual({ ok: true, value: 'plain text' });
  });
});

describe('coerceParam', () => {
  it('checks the item type of a typed list', () => {
    const p = param({ name: 'values', type: 'list', items: 'float' });
    expect(coerceParam(p, '[1, 2.5]')).toEqual({ ok: true, value: [1, 2.5] });
    expect(coerceParam(p, '[1, "a"]')).toEqual({
      ok: false,
      error: 'expects a list of numbers (list[float]); item 2 is "a"',
    });
    expect(coerceParam(param({ name: 'n', type: 'list', items: 'int' }), '[1.5]')).toMatchObject({
      ok: false,
    });
  });

  it('lets an Optional parameter be None or null', () => {
    const p = param({ name: 'w', type: 'int', nullable: true });
    expect(coerceParam(p, 'None')).toEqual({ ok: true, value: null });
    expect(coerceParam(p, ' null ')).toEqual({ ok: true, value: null });
    expect(coerceParam(param({ name: 'w', type: 'int' }), 'None')).toMatchObject({ ok: false });
  });
});

describe('checkForm', () => {
  const params = [
    param({ name: 'city', type: 'str', required: true, displayName: 'City' }),
    param({ name: 'days', type: 'int' }),
    param({ name: 'unit', type: 'str', options: ['C', 'F'] }),
  ];

  it('needs the required fields and leaves empty optional ones out', () => {
    expect(checkForm(params, {})).toEqual({ args: {}, errors: { city: 'City is required' } });
    expect(
      checkForm(params, { city: { kind: 'text', text: 'Oslo' }, days: { kind: 'text', text: ' ' } }),
    ).toEqual({ args: { city: 'Oslo' }, errors: {} });
  });

  it('coerces every filled field and picks options by index', () => {
    expect(
      checkForm(params, {
        city: { kind: 'text', text: 'Oslo' },
        days: { kind: 'text', text: '3' },
        unit: { kind: 'option', index: 1 },
      }),
    ).toEqual({ args: { city: 'Oslo', days: 3, unit: 'F' }, errors: {} });
    expect(
      checkForm(params, {
        city: { kind: 'text', text: 'Oslo' },
        days: { kind: 'text', text: 'three' },
        unit: { kind: 'option', index: 5 },
      }).errors,
    ).toEqual({ days: expect.stringContaining('integer'), unit: 'pick one of the options' });
  });

  it('knows an empty field', () => {
    expect(isEmptyField(undefined)).toBe(true);
    expect(isEmptyField({ kind: 'text', text: '  ' })).toBe(true);
    expect(isEmptyField({ kind: 'option', index: undefined })).toBe(true);
    expect(isEmptyField({ kind: 'option', index: 0 })).toBe(false);
  });
});

describe('placeholders', () => {
  it('shows examples and the default first, then the expected shape', () => {
    expect(placeholderFor(param({ name: 'a', type: 'str', examples: ['x', 2] }))).toBe('e.g. x, 2');
    expect(placeholderFor(param({ name: 'a', type: 'int', default: 5 }))).toBe('default 5');
    expect(placeholderFor(param({ name: 'a', type: 'int', default: 5, required: true }))).toBe('integer');
    expect(placeholderFor(param({ name: 'a', type: 'list', items: 'str' }))).toBe('JSON list of strings');
    expect(placeholderFor(param({ name: 'a', type: 'dict' }))).toBe('JSON object');
    expect(placeholderFor(param({ name: 'a', type: 'str' }))).toBe('');
  });

  it('shows values as JSON', () => {
    expect(showValue('a')).toBe('"a"');
    expect(showValue(undefined)).toBe('');
    expect(showValue([1])).toBe('[1]');
  });
});

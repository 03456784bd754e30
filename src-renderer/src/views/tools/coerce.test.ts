import { describe, expect, it } from 'vitest';
import { coerceText, showValue } from './coerce.ts';

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

describe('showValue', () => {
  it('shows values as JSON', () => {
    expect(showValue('a')).toBe('"a"');
    expect(showValue(undefined)).toBe('');
    expect(showValue([1])).toBe('[1]');
  });
});

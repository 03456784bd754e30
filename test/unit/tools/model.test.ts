import { describe, expect, it } from 'vitest';
import {
  fail,
  findNonJsonValue,
  ok,
  toolResponse,
  ToolResponseError,
} from '../../../src-main/core/tools/model.ts';

describe('ToolResponse', () => {
  it('requires a message when success is false', () => {
    expect(() => toolResponse(false)).toThrow(ToolResponseError);
    expect(() => toolResponse(false, '   ')).toThrow(/needs a message/);
    expect(fail('no such user')).toEqual({ success: false, message: 'no such user' });
  });

  it('accepts JSON-safe data and keeps it as is', () => {
    const data = { a: [1, 2.5, 'x', null, true], b: { c: {} } };
    expect(ok(data)).toEqual({ success: true, data });
  });

  it.each([
    ['a function', { f: () => 1 }, '$.f (function)'],
    ['NaN', [1, Number.NaN], '$[1] (NaN)'],
    ['Infinity', { x: Infinity }, '$.x (Infinity)'],
    ['undefined', { x: undefined }, '$.x (undefined)'],
    ['a Date', { when: new Date(0) }, '$.when (Date instance)'],
    ['a Map', new Map(), '$ (Map instance)'],
    ['a bigint', { n: 10n }, '$.n (bigint)'],
  ])('rejects %s with the path of the bad value', (_label, data, path) => {
    expect(findNonJsonValue(data)).toBe(path);
    expect(() => ok(data)).toThrow(`ToolResponse data must be JSON-safe; ${path} is not`);
  });

  it('rejects circular data', () => {
    const a: Record<string, unknown> = {};
    a['self'] = a;
    expect(() => ok(a)).toThrow(/circular reference/);
  });

  it('allows the same object twice when it is not circular', () => {
    const shared = { x: 1 };
    expect(() => ok({ a: shared, b: shared })).not.toThrow();
  });
});

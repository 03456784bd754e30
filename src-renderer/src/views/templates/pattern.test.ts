import { describe, expect, it } from 'vitest';
import { analysePattern, blockingPatternProblems, bodySlots, renameSlot, suggestName } from './pattern.ts';

describe('bodySlots', () => {
  it('lists the {{slot}} uses of a body once each', () => {
    expect(bodySlots('a = {{x}}\nb = {{y}} + {{x}}\nc = {single} {{1bad}}')).toEqual(['x', 'y']);
  });
});

describe('analysePattern', () => {
  it('finds nothing wrong in a consistent template', () => {
    const a = analysePattern({ pattern: 'weather in {city}', slots: { city: 'str' }, body: 'w({{city}})' });
    expect(a).toEqual({
      inPattern: ['city'],
      duplicates: [],
      untyped: [],
      notInPattern: [],
      bodyUnknown: [],
      unusedInBody: [],
      notSlots: [],
      unclosed: [],
    });
    expect(blockingPatternProblems(a)).toBe(0);
  });

  it('reports untyped, stray, duplicated, unknown and unused slots', () => {
    const a = analysePattern({
      pattern: 'from {a} to {b} and {a} {not a slot}',
      slots: { a: 'str', c: 'int' },
      body: '{{a}} {{d}}',
    });
    expect(a.inPattern).toEqual(['a', 'b']);
    expect(a.duplicates).toEqual(['a']);
    expect(a.untyped).toEqual(['b']);
    expect(a.notInPattern).toEqual(['c']);
    expect(a.bodyUnknown).toEqual(['d']);
    expect(a.unusedInBody).toEqual(['b']);
    expect(a.notSlots).toEqual(['{not a slot}']);
    // One untyped slot and one typed slot the pattern lost: a rename.
    expect(a.rename).toEqual({ from: 'c', to: 'b' });
    expect(blockingPatternProblems(a)).toBe(4);
  });

  it('reports a slot left open (a { with no }), which the service would take as plain text', () => {
    const a = analysePattern({
      pattern: 'name of {user_id: str',
      slots: { user_id: 'str' },
      body: '{{user_id}}',
    });
    expect(a.unclosed).toEqual(['{user_id: str']);
    expect(analysePattern({ pattern: 'from {a to {b}', slots: {}, body: '' }).unclosed).toEqual(['{a to ']);
    expect(analysePattern({ pattern: 'from {a} to {b}', slots: {}, body: '' }).unclosed).toEqual([]);
  });

  it('proposes no rename when it is ambiguous', () => {
    const a = analysePattern({ pattern: '{x} {y}', slots: { p: 'str' }, body: '' });
    expect(a.rename).toBeUndefined();
  });
});

describe('renameSlot', () => {
  it('renames in the pattern, the types and the body at once', () => {
    expect(
      renameSlot(
        { pattern: 'user {id} of {org}', slots: { id: 'int', org: 'str' }, body: 'get({{id}}, {{org}})' },
        'id',
        'user_id',
      ),
    ).toEqual({
      pattern: 'user {user_id} of {org}',
      slots: { user_id: 'int', org: 'str' },
      body: 'get({{user_id}}, {{org}})',
    });
  });

  it('keeps the type of the target when the source had none', () => {
    expect(renameSlot({ pattern: '{a}', slots: { b: 'float' }, body: '' }, 'a', 'b')).toEqual({
      pattern: '{b}',
      slots: { b: 'float' },
      body: '',
    });
  });
});

describe('suggestName', () => {
  it('takes the words of the pattern without its slots', () => {
    expect(suggestName('What is the weather in {city}?')).toBe('what-is-the-weather-in');
    expect(suggestName('{a} {b}')).toBe('template');
    expect(suggestName('x'.repeat(60)).length).toBe(48);
    expect(suggestName('a'.repeat(47) + ' b c')).toBe('a'.repeat(47));
  });
});

import { describe, expect, it } from 'vitest';
import { defaultBase } from './derive.ts';

describe('defaultBase', () => {
  const history = [
    { id: 'c', createdAt: 300 },
    { id: 'b', createdAt: 200 },
    { id: 'a', createdAt: 100 },
  ];
  it('is the latest earlier run of the suite (what eval --compare uses)', () => {
    expect(defaultBase(history, { id: 'c', createdAt: 300 })).toBe('b');
    expect(defaultBase(history, { id: 'b', createdAt: 200 })).toBe('a');
  });
  it('is undefined for the first run', () => {
    expect(defaultBase(history, { id: 'a', createdAt: 100 })).toBeUndefined();
  });
  it('does not depend on the order of the history', () => {
    expect(defaultBase([...history].reverse(), { id: 'c', createdAt: 300 })).toBe('b');
  });
});

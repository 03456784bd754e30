import { describe, expect, it } from 'vitest';
import { errorMessage } from '../../../src-main/core/errors.ts';

describe('errorMessage', () => {
  it("is an Error's message", () => {
    expect(errorMessage(new TypeError('bad type'))).toBe('bad type');
  });
  it("is a thrown object's message string, else the object as JSON", () => {
    expect(errorMessage({ message: 'from a plain object', code: 1 })).toBe('from a plain object');
    expect(errorMessage({ code: 'E_X' })).toBe('{"code":"E_X"}');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(errorMessage(cyclic)).toBe('[object Object]');
  });
  it('is the value as text for anything else', () => {
    expect(errorMessage('plain words')).toBe('plain words');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});

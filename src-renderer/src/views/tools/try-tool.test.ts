import { describe, expect, it } from 'vitest';
import type { ToolParameter } from '../../../../src-main/core/tools/model.ts';
import { errorSummary, initialTry, tryReducer } from './try-tool.ts';
import type { CallResult } from './try-tool.ts';

const param = (name: string, over: Partial<ToolParameter> = {}): ToolParameter =>
  ({ name, type: 'str', description: '', required: true, source: 'user', ...over }) as ToolParameter;

describe('the Try tool state', () => {
  it('starts each field empty: options unchosen, text empty', () => {
    expect(initialTry([param('id'), param('unit', { options: ['C', 'F'] })])).toEqual({
      values: { id: { kind: 'text', text: '' }, unit: { kind: 'option', index: undefined } },
      errors: {},
    });
  });

  it('editing a field clears its error only', () => {
    let s = initialTry([param('a'), param('b')]);
    s = tryReducer(s, { type: 'checked', errors: { a: 'a is required', b: 'b is required' } });
    s = tryReducer(s, { type: 'field', name: 'a', value: { kind: 'text', text: 'x' } });
    expect(s.errors).toEqual({ b: 'b is required' });
    expect(s.values.a).toEqual({ kind: 'text', text: 'x' });
  });

  it('a call shows its outcome with the arguments sent; a failed call shows none', () => {
    const call = { response: { success: true, data: 1 } } as unknown as CallResult;
    let s = tryReducer(initialTry([]), { type: 'called', call, args: { id: 'u1' } });
    expect(s.outcome).toEqual({ call, args: { id: 'u1' } });
    s = tryReducer(s, { type: 'callFailed' });
    expect(s.outcome).toBeUndefined();
  });

  it('counts the fields to fix', () => {
    expect(errorSummary({})).toBeUndefined();
    expect(errorSummary({ a: 'x' })).toBe('Fix 1 field before calling.');
    expect(errorSummary({ a: 'x', b: 'y' })).toBe('Fix 2 fields before calling.');
  });
});

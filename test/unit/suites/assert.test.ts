import { describe, expect, it } from 'vitest';
import {
  evaluateAssertion,
  jsonContains,
  pythonLiteral,
  select,
} from '../../../src-main/core/suites/assert.ts';
import type { CaseOutcome } from '../../../src-main/core/suites/assert.ts';

const outcome = (o: Partial<CaseOutcome> = {}): CaseOutcome => ({
  status: 'succeeded',
  result: {
    orders: [
      { id: 'o1', total: 10 },
      { id: 'o2', total: 5.5 },
    ],
    name: 'Ada',
  },
  attempts: 1,
  tokens: { prompt: 100, completion: 20, total: 120 },
  durationMs: 300,
  tier: 'llm',
  finalCalls: [
    { name: 'get_user', args: { user_id: 'u1' } },
    { name: 'get_user', args: { user_id: 'u2' } },
  ],
  allCalls: [{ name: 'add_note', args: { ticket_id: 1 } }],
  validationFailures: 0,
  ...o,
});

describe('assertions', () => {
  it('equals / contains / matches with JSONPath', () => {
    expect(
      evaluateAssertion({ type: 'equals', path: '$.orders[1].total', value: 5.5 }, outcome()).passed,
    ).toBe(true);
    expect(
      evaluateAssertion({ type: 'equals', path: '$.orders[*].id', value: ['o1', 'o2'] }, outcome()).passed,
    ).toBe(true);
    const miss = evaluateAssertion({ type: 'equals', path: '$.nope', value: 1 }, outcome());
    expect(miss).toMatchObject({ passed: false, message: expect.stringMatching(/nothing at \$\.nope/) });
    expect(evaluateAssertion({ type: 'contains', value: { name: 'Ada' } }, outcome()).passed).toBe(true);
    expect(
      evaluateAssertion({ type: 'contains', path: '$.orders', value: { id: 'o2' } }, outcome()).passed,
    ).toBe(true);
    expect(evaluateAssertion({ type: 'contains', path: '$.name', value: 'Bob' }, outcome()).passed).toBe(
      false,
    );
    expect(
      evaluateAssertion({ type: 'matches', path: '$.name', pattern: '^a', flags: 'i' }, outcome()).passed,
    ).toBe(true);
    expect(evaluateAssertion({ type: 'matches', pattern: '(' }, outcome()).message).toMatch(/bad pattern/);
    expect(evaluateAssertion({ type: 'equals', value: 1 }, outcome({ status: 'failed' })).message).toBe(
      'no result: the run failed',
    );
  });

  it('tool calls: with arguments, at least / at most, never (over every attempt)', () => {
    const called = (a: Partial<{ args: Record<string, unknown>; min: number; max: number }>) =>
      evaluateAssertion({ type: 'tool_called', tool: 'get_user', min: 1, ...a }, outcome());
    expect(called({}).passed).toBe(true);
    expect(called({ max: 1 })).toMatchObject({
      passed: false,
      message: 'get_user called 2 time(s), expected at most 1',
    });
    expect(called({ args: { user_id: 'u2' }, max: 1 }).passed).toBe(true);
    expect(called({ args: { user_id: 'u9' } }).passed).toBe(false);
    expect(evaluateAssertion({ type: 'tool_not_called', tool: 'add_note' }, outcome()).passed).toBe(false);
    expect(evaluateAssertion({ type: 'tool_not_called', tool: 'get_orders' }, outcome()).passed).toBe(true);
  });

  it('limits, template and validation', () => {
    expect(evaluateAssertion({ type: 'max_attempts', value: 1 }, outcome({ attempts: 2 })).passed).toBe(
      false,
    );
    expect(evaluateAssertion({ type: 'max_tokens', value: 120 }, outcome()).passed).toBe(true);
    expect(evaluateAssertion({ type: 'max_ms', value: 299 }, outcome()).passed).toBe(false);
    expect(evaluateAssertion({ type: 'served_by_template' }, outcome()).passed).toBe(false);
    expect(
      evaluateAssertion(
        { type: 'served_by_template', template: 't' },
        outcome({ tier: 'template', template: 'u' }),
      ).passed,
    ).toBe(false);
    expect(
      evaluateAssertion({ type: 'no_validation_failure' }, outcome({ validationFailures: 1 })).passed,
    ).toBe(false);
  });

  it('helpers', () => {
    expect(jsonContains([1, [2]], [2])).toBe(true);
    expect(select({ a: [1, 2] }, '$.a[*]')).toEqual({ found: true, value: [1, 2] });
    expect(pythonLiteral({ a: [true, null, 1.5, 'x"y'] })).toBe('{"a": [True, None, 1.5, "x\\"y"]}');
  });
});

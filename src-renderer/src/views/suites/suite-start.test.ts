import { describe, expect, it } from 'vitest';
import { initialSuiteStart, suiteStartOptions } from './suite-start.ts';

describe('the suite start form', () => {
  it("leaves empty fields to the suite's own values", () => {
    expect(suiteStartOptions(initialSuiteStart)).toEqual({});
    expect(suiteStartOptions({ models: ' , ', repeat: '', concurrency: '' })).toEqual({});
  });

  it('splits models on commas, trimmed, and reads the numbers', () => {
    expect(suiteStartOptions({ models: 'qwen, gpt-4.1-mini ,', repeat: '3', concurrency: '4' })).toEqual({
      models: ['qwen', 'gpt-4.1-mini'],
      repeat: 3,
      concurrency: 4,
    });
  });
});

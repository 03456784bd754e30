import { describe, expect, it } from 'vitest';
import { keyNeeded } from '../../../src-main/app/settings.ts';

describe('keyNeeded', () => {
  it.each([
    ['http://127.0.0.1:11434/v1', false],
    ['http://localhost:8080/v1', false],
    ['http://[::1]:8000/v1', false],
    ['https://api.openai.com/v1', true],
    ['https://llm.example.com/v1', true],
    ['http://127.0.0.1.evil.example/v1', true],
  ])('%s needs a key: %s', (url, needed) => {
    expect(keyNeeded({ kind: 'openai', base_url: url })).toBe(needed);
  });
  it('hosted defaults (no base URL) need one', () => {
    expect(keyNeeded({ kind: 'anthropic' })).toBe(true);
    expect(keyNeeded({ kind: 'openai' })).toBe(true);
  });
});

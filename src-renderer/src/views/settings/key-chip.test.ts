import { describe, expect, it } from 'vitest';
import { keyChip } from './key-chip.ts';

describe('keyChip', () => {
  it('a keyless local server wears no warning', () => {
    expect(keyChip({ keySource: 'none', keyNeeded: false })).toMatchObject({
      label: 'no key needed',
      tone: 'plain',
    });
  });
  it('a hosted provider without a key is warned about', () => {
    expect(keyChip({ keySource: 'none', keyNeeded: true })).toMatchObject({ label: 'no key', tone: 'warn' });
  });
  it('a provider with a key says where it comes from', () => {
    expect(keyChip({ keySource: 'env', keyNeeded: true })).toMatchObject({
      label: 'environment',
      tone: 'good',
    });
    expect(keyChip({ keySource: 'memory', keyNeeded: false }).tone).toBe('good');
  });
});

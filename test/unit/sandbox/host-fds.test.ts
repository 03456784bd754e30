import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inheritableFds, stdioWithout } from '../../../src-main/infra/sandbox/host-fds.ts';

describe('descriptors a spawned worker would inherit (host-fds.ts)', () => {
  it('puts /dev/null at each handed number past the stdio given, leaving the places between alone', () => {
    expect(stdioWithout(['pipe', 'pipe', 'pipe', 7], [5, 9], 42)).toEqual([
      'pipe',
      'pipe',
      'pipe',
      7,
      'ignore',
      42,
      'ignore',
      'ignore',
      'ignore',
      42,
    ]);
    // (a number the stdio already takes is the stdio's)
    expect(stdioWithout(['pipe', 'pipe', 'pipe'], [1], 42)).toEqual(['pipe', 'pipe', 'pipe']);
  });

  it('lists no descriptor Node opened itself (close-on-exec), and none below the first asked for', () => {
    const fd = openSync('/dev/null', 'r');
    try {
      expect(inheritableFds(0)).not.toContain(fd);
      expect(inheritableFds(3).every((n) => n >= 3)).toBe(true);
    } finally {
      closeSync(fd);
    }
  });
});

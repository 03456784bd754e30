import { describe, expect, it } from 'vitest';
import { parseIsolation, weakerThanDocker } from './isolation.ts';

describe('the isolation status', () => {
  it('splits the default level from the sandboxes with a level of their own', () => {
    expect(parseIsolation('docker; gvisor: ecommerce; process: support')).toEqual({
      level: 'docker',
      sandboxes: [
        { sandbox: 'ecommerce', level: 'gvisor' },
        { sandbox: 'support', level: 'process' },
      ],
      unknown: [],
    });
    expect(parseIsolation('bubblewrap')).toEqual({ level: 'bubblewrap', sandboxes: [], unknown: [] });
  });

  it('keeps what it cannot read instead of dropping it', () => {
    expect(parseIsolation('quantum; warp: x')).toEqual({
      level: 'none',
      sandboxes: [],
      unknown: ['quantum', 'warp: x'],
    });
  });

  it('only the process fallbacks are weaker than Docker', () => {
    expect(
      ['docker', 'gvisor', 'bubblewrap', 'process', 'none'].filter((l) => weakerThanDocker(l as never)),
    ).toEqual(['bubblewrap', 'process', 'none']);
  });
});

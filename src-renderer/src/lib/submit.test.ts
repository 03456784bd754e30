import { describe, expect, it } from 'vitest';
import { messageOf, submit } from './submit.ts';
import type { SubmitState } from './submit.ts';

const recorder = () => {
  const log: string[] = [];
  let busy = false;
  const state: SubmitState = {
    isBusy: () => busy,
    setBusy: (b) => {
      busy = b;
      log.push(`busy ${b}`);
    },
    setError: (e) => log.push(`error ${e ?? '-'}`),
  };
  return { log, state };
};

describe('submit', () => {
  it('is busy while the action runs and clears the previous error', async () => {
    const { log, state } = recorder();
    const r = await submit(state, async () => {
      log.push('action');
      return 42;
    });
    expect(r).toBe(42);
    expect(log).toEqual(['busy true', 'error -', 'action', 'busy false']);
  });

  it('records the message of a failure and is no longer busy', async () => {
    const { log, state } = recorder();
    const r = await submit(state, () => Promise.reject(new Error('no answer')));
    expect(r).toBeUndefined();
    expect(log).toEqual(['busy true', 'error -', 'error no answer', 'busy false']);
  });

  it('ignores a second submit while the first runs', async () => {
    const { log, state } = recorder();
    let release = () => {};
    const first = submit(state, () => new Promise<string>((ok) => (release = () => ok('first'))));
    const second = await submit(state, async () => 'second');
    expect(second).toBeUndefined();
    release();
    expect(await first).toBe('first');
    expect(log).toEqual(['busy true', 'error -', 'busy false']);
  });

  it('says what any thrown value was', () => {
    expect(messageOf(new Error('x'))).toBe('x');
    expect(messageOf('plain')).toBe('plain');
    expect(messageOf(3)).toBe('3');
  });
});

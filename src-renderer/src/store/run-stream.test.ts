import { describe, expect, it } from 'vitest';
import { withStreamed } from './live-text.ts';

describe('a run opened or reconnected to mid-stream', () => {
  it("starts from the service's text of the attempt, joined with what the page heard itself", () => {
    // Opened mid-stream: nothing heard yet; the service's text is the start of the answer.
    expect(withStreamed({}, { n: 1, text: '```python\nr = get_' })).toEqual({ 1: '```python\nr = get_' });
    // Tokens heard while the answer was on its way: those before it are in both, once in the result.
    expect(withStreamed({ 1: 'get_user(' }, { n: 1, text: '```python\nr = get_' })).toEqual({
      1: '```python\nr = get_user(',
    });
    // All heard after the service's answer was made: appended.
    expect(withStreamed({ 1: 'user(' }, { n: 1, text: '```python\nr = get_' })).toEqual({
      1: '```python\nr = get_user(',
    });
    // Another attempt's text stays; nothing streamed: unchanged.
    const live = { 1: 'old attempt' };
    expect(withStreamed(live, { n: 2, text: 'new' })).toEqual({ 1: 'old attempt', 2: 'new' });
    expect(withStreamed(live, undefined)).toBe(live);
  });
});

import { describe, expect, it } from 'vitest';
import { keepNewest, keptMap } from './session-draft.ts';
import type { DraftStorage } from './session-draft.ts';

/** A tab's sessionStorage in memory. */
function memory(): DraftStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

describe('keepNewest', () => {
  it('keeps at most the bound, the oldest going first; a key kept again is the newest; undefined forgets it', () => {
    const store = memory();
    const map = keptMap('results', store);
    for (const k of ['a', 'b', 'c']) keepNewest(map, k, `${k}!`, 3);
    keepNewest(map, 'a', 'a again', 3);
    keepNewest(map, 'd', 'd!', 3);
    // b was the oldest once a was kept again.
    expect([...map.entries()]).toEqual([
      ['c', 'c!'],
      ['a', 'a again'],
      ['d', 'd!'],
    ]);
    keepNewest(map, 'c', undefined, 3);
    expect([...map.keys()]).toEqual(['a', 'd']);
    // What a reload reads back: the same entries.
    expect([...keptMap('results', store).entries()]).toEqual([
      ['a', 'a again'],
      ['d', 'd!'],
    ]);
  });
});

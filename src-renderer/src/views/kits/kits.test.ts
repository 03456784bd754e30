import { describe, expect, it } from 'vitest';
import type { Kit } from './kit.ts';
import { initialKits, kitsBySandbox, kitsReducer } from './kits.ts';

const kit = (name: string, sandbox: string): Kit => ({ name, sandbox, error: 'refused' });

describe('the Kits view state', () => {
  it('a new kit starts in the given sandbox; each opening is a fresh editor', () => {
    const a = kitsReducer(initialKits, { type: 'new', sandbox: 'web', at: 1 });
    expect(a.editor).toEqual({
      key: 'new-1',
      mode: 'new',
      draft: { name: '', sandbox: 'web', description: '', rows: [] },
    });
    expect(kitsReducer(a, { type: 'new', sandbox: 'web', at: 2 }).editor?.key).toBe('new-2');
    expect(kitsReducer(a, { type: 'close' }).editor).toBeUndefined();
  });

  it('editing a refused kit carries the note saying why its tools are missing', () => {
    const s = kitsReducer(initialKits, { type: 'edit', kit: kit('bad', 'web'), at: 5 });
    expect(s.editor).toMatchObject({ key: 'edit-bad-5', mode: 'edit', draft: { name: 'bad', rows: [] } });
    expect(s.editor?.note).toMatch(/^This kit is refused \(refused\)/);
  });

  it('groups kits by the workspace sandboxes in order, then the sandboxes only kits name', () => {
    const groups = kitsBySandbox(
      ['web', 'files', 'empty'],
      [kit('x', 'gone'), kit('a', 'files'), kit('b', 'web'), kit('c', 'files')],
    );
    expect(groups.map((g) => [g.sandbox, g.kits.map((k) => k.name)])).toEqual([
      ['web', ['b']],
      ['files', ['a', 'c']],
      ['gone', ['x']],
    ]);
  });
});

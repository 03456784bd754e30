import { describe, expect, it } from 'vitest';
import type { Kit } from './kit.ts';
import {
  dropQuestion,
  editorDraft,
  hasUnsavedEdits,
  initialKits,
  keptOnLeave,
  kitsBySandbox,
  kitsReducer,
} from './kits.ts';

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

  it('an edited draft is unsaved, kept when the view is left, and dropping it is asked first', () => {
    const saved: Kit = {
      name: 'lookup',
      sandbox: 'web',
      kit: { description: '', tools: [{ alias: 'a', tool: { name: 'x' } }] },
    } as unknown as Kit;
    let s = kitsReducer(initialKits, { type: 'edit', kit: saved, at: 1 });
    const opened = s.editor!.draft;
    // The editor reports its draft as it opens: nothing unsaved, nothing kept, nothing to ask.
    s = kitsReducer(s, { type: 'draft', draft: { ...opened, rows: [...opened.rows] } });
    expect(hasUnsavedEdits(s)).toBe(false);
    expect(keptOnLeave(s)).toEqual(initialKits);
    expect(dropQuestion(s)).toBeUndefined();
    // A row added: unsaved, kept as edited, and opened again from the edit.
    const edited = { ...opened, rows: [...opened.rows, { alias: 'b', tool: 'y' }] };
    s = kitsReducer(s, { type: 'draft', draft: edited });
    expect(hasUnsavedEdits(s)).toBe(true);
    expect(keptOnLeave(s)).toBe(s);
    expect(editorDraft(keptOnLeave(s).editor!)).toEqual(edited);
    expect(dropQuestion(s)).toBe('Drop the unsaved edits to kit lookup?');
    // Saved or cancelled: nothing left to keep.
    expect(hasUnsavedEdits(kitsReducer(s, { type: 'close' }))).toBe(false);
  });

  it('a new kit is unsaved once anything is written in it', () => {
    let s = kitsReducer(initialKits, { type: 'new', sandbox: 'web', at: 1 });
    s = kitsReducer(s, { type: 'draft', draft: s.editor!.draft });
    expect(dropQuestion(s)).toBeUndefined();
    s = kitsReducer(s, { type: 'draft', draft: { ...s.editor!.draft, description: 'lookups' } });
    expect(dropQuestion(s)).toBe('Drop the unsaved new kit?');
    s = kitsReducer(s, { type: 'draft', draft: { ...s.editor!.draft, name: 'look' } });
    expect(dropQuestion(s)).toBe('Drop the unsaved new kit look?');
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

import { describe, expect, it } from 'vitest';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { deriveKitEditor, initialKitEditor, kitEditorReducer, saveRequest } from './kit-editor.ts';
import type { KitEditorAction, KitEditorState } from './kit-editor.ts';
import type { KitDraft } from './kit.ts';

const tool = (name: string, w: number, d: number): SandboxTool =>
  ({ name, description: `${name} tool`, parameters: [], grade: { w, d } }) as unknown as SandboxTool;
const tools = [tool('get_user', 1, 0), tool('delete_user', 1, 2), tool('search', 2, 0)];
const draft: KitDraft = { name: 'lookup', sandbox: 'web', description: '', rows: [] };
const run = (s: KitEditorState, ...actions: KitEditorAction[]) => actions.reduce(kitEditorReducer, s);

describe('the kit editor state', () => {
  it('adds rows with the tools no row has yet, then empty ones', () => {
    let s = run(
      initialKitEditor(draft),
      { type: 'toolsLoaded', tools },
      { type: 'addRow' },
      { type: 'addRow' },
    );
    expect(s.draft.rows).toEqual([
      { alias: 'get_user', tool: 'get_user' },
      { alias: 'delete_user', tool: 'delete_user' },
    ]);
    s = run(s, { type: 'addRow' }, { type: 'addRow' });
    expect(s.draft.rows.slice(2)).toEqual([
      { alias: 'search', tool: 'search' },
      { alias: '', tool: '' },
    ]);
  });

  it("a row's alias follows its tool until it is written by hand", () => {
    let s = run(initialKitEditor(draft), { type: 'toolsLoaded', tools }, { type: 'addRow' });
    s = run(s, { type: 'tool', index: 0, tool: 'search' });
    expect(s.draft.rows[0]).toEqual({ alias: 'search', tool: 'search' });
    s = run(s, { type: 'alias', index: 0, alias: 'find' }, { type: 'tool', index: 0, tool: 'get_user' });
    expect(s.draft.rows[0]).toEqual({ alias: 'find', tool: 'get_user' });
    s = run(s, { type: 'alias', index: 0, alias: '' }, { type: 'tool', index: 0, tool: 'search' });
    expect(s.draft.rows[0]).toEqual({ alias: 'search', tool: 'search' });
  });

  it('another sandbox drops the rows and lists its tools again; a failure is kept until then', () => {
    let s = run(initialKitEditor(draft), { type: 'toolsLoaded', tools }, { type: 'allTools' });
    expect(s.draft.rows).toHaveLength(3);
    s = run(s, { type: 'sandbox', sandbox: 'files' }, { type: 'toolsLoading' });
    expect(s).toEqual({ draft: { ...draft, sandbox: 'files', rows: [] } });
    s = run(s, { type: 'toolsFailed', error: 'tools.py does not parse' });
    expect(s.toolsError).toBe('tools.py does not parse');
    s = run(s, { type: 'toolsLoading' });
    expect(s.toolsError).toBeUndefined();
  });

  it('removes the row asked for', () => {
    const s = run(
      initialKitEditor(draft),
      { type: 'toolsLoaded', tools },
      { type: 'allTools' },
      { type: 'removeRow', index: 1 },
    );
    expect(s.draft.rows.map((r) => r.tool)).toEqual(['get_user', 'search']);
  });

  it('the grade is the highest of the chosen tools, over the maximum when either axis is', () => {
    const s = run(
      initialKitEditor(draft),
      { type: 'toolsLoaded', tools },
      { type: 'addRow' },
      { type: 'addRow' },
      { type: 'set', patch: { name: 'lookup' } },
    );
    const d = deriveKitEditor(s, 'new', ['lookup'], { w: 1, d: 1 });
    expect(d.grade).toEqual({ w: 1, d: 2 });
    expect(d.over).toBe(true);
    expect(d.taken).toBe(true);
    expect(d.problems).toEqual([]);
    expect(d.rowTools.map((t) => t?.name)).toEqual(['get_user', 'delete_user']);
    expect(deriveKitEditor(s, 'edit', ['lookup'], undefined)).toMatchObject({ over: false, taken: false });
  });

  it('a row naming a tool the sandbox lacks counts for nothing', () => {
    const s = run(initialKitEditor({ ...draft, rows: [{ alias: 'gone', tool: 'gone' }] }), {
      type: 'toolsLoaded',
      tools,
    });
    const d = deriveKitEditor(s, 'edit', [], undefined);
    expect(d.rowTools).toEqual([undefined]);
    expect(d.grade).toEqual({ w: 0, d: 0 });
  });

  it('saves the aliases trimmed and the description only when written', () => {
    expect(
      saveRequest({ ...draft, description: '  ', rows: [{ alias: ' get ', tool: 'get_user' }] }),
    ).toEqual({
      name: 'lookup',
      sandbox: 'web',
      tools: { get: 'get_user' },
    });
    expect(saveRequest({ ...draft, description: ' users ' }).description).toBe('users');
  });
});

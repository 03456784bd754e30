import { describe, expect, it } from 'vitest';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import { holdFor, initialToolsEditor, toolsEditorReducer, toolsViewModel } from './tools-editor.ts';
import type { Listed, ToolsEditorAction, ToolsEditorState } from './tools-editor.ts';

const v = (rule: string, line: number, column = 1): Violation => ({
  rule,
  message: `${rule} here`,
  line,
  column,
  endLine: line,
  endColumn: column + 1,
});
const tool = (name: string, mcp?: string) =>
  ({
    name,
    description: '',
    parameters: [],
    location: {},
    grade: {},
    ...(mcp ? { mcp: { server: mcp, tool: name } } : {}),
  }) as never;
const listing = (source: string, tools = [tool('get_user')], problems: Violation[] = []): Listed => ({
  sandbox: 'demo',
  source,
  tools,
  problems,
  prompt: 'P',
  openai: [],
});

const run = (actions: ToolsEditorAction[], s: ToolsEditorState = initialToolsEditor) =>
  actions.reduce(toolsEditorReducer, s);

describe('the Tools editor state', () => {
  it('loads the saved source, or the unsaved draft over it; the metadata is of the saved text', () => {
    const s = run([{ type: 'loaded', listed: listing('A') }]);
    expect(s).toMatchObject({ ready: true, saved: 'A', source: 'A', editorText: 'A', metaFor: 'A' });
    const d = run([{ type: 'loaded', listed: listing('A'), draft: 'A2' }]);
    expect(d).toMatchObject({ saved: 'A', source: 'A2', editorText: 'A2', metaFor: 'A' });
    expect(toolsViewModel(d, listing('A'))).toMatchObject({
      dirty: true,
      stale: true,
      badge: 'dirty',
      extractState: 'pending',
    });
  });

  it('an edit changes the source, not the text handed to the editor, and clears a held save', () => {
    const held = run([
      { type: 'loaded', listed: listing('A') },
      { type: 'hold', hold: { count: 1, first: v('syntax', 3, 5), message: 'm' } },
    ]);
    expect(held.jump).toEqual({ line: 3, column: 5, seq: 1 });
    const s = toolsEditorReducer(held, { type: 'edit', text: 'AB' });
    expect(s).toMatchObject({ source: 'AB', editorText: 'A', hold: undefined });
  });

  it("its own save read back keeps the editor's text; a change on disk reaches a clean editor", () => {
    // Saved 'AB' (the listing read again after the save, then the watcher's reload): nothing moves.
    const saved = run([
      { type: 'loaded', listed: listing('A') },
      { type: 'edit', text: 'AB' },
      { type: 'disk', listed: listing('AB') },
    ]);
    expect(saved).toMatchObject({ saved: 'AB', source: 'AB', editorText: 'A', editorKey: 0 });
    expect(saved.diskChanged).toBeUndefined();
    expect(toolsEditorReducer(saved, { type: 'disk', listed: listing('AB') })).toBe(saved);
    // Changed on disk by someone else: a clean editor shows the file, in a new editor.
    const changed = toolsEditorReducer(saved, { type: 'disk', listed: listing('ABC') });
    expect(changed).toMatchObject({
      saved: 'ABC',
      source: 'ABC',
      editorText: 'ABC',
      editorKey: 1,
      metaFor: 'ABC',
    });
    expect(toolsViewModel(changed, listing('ABC')).badge).toBe('saved');
  });

  it('a change on disk never overwrites unsaved edits: they stay, flagged, until Save or Revert', () => {
    const s = run([
      { type: 'loaded', listed: listing('A') },
      { type: 'edit', text: 'A mine' },
      { type: 'disk', listed: listing('A theirs') },
    ]);
    expect(s).toMatchObject({ source: 'A mine', saved: 'A theirs', diskChanged: true, editorKey: 0 });
    expect(toolsViewModel(s, listing('A theirs')).dirty).toBe(true);
    expect(toolsEditorReducer(s, { type: 'revert' })).toMatchObject({
      source: 'A theirs',
      editorText: 'A theirs',
      diskChanged: undefined,
    });
    const kept = toolsEditorReducer(s, {
      type: 'saved',
      text: 'A mine',
      result: listing('A mine'),
    });
    expect(kept).toMatchObject({ saved: 'A mine', diskChanged: undefined });
  });

  it('a save that answers after the file changed on disk again: the newer file wins, unsaved edits stay', () => {
    const loaded = run([{ type: 'loaded', listed: listing('A') }]);
    // Saving 'AB'; another editor then wrote 'C', read while the save was on its way (with 'AB' still
    // unsaved in the editor: the change is told).
    const saving = run(
      [
        { type: 'edit', text: 'AB' },
        { type: 'disk', listed: listing('C') },
      ],
      loaded,
    );
    expect(saving).toMatchObject({ source: 'AB', saved: 'C', diskChanged: true });
    const s = toolsEditorReducer(saving, { type: 'savedOver', text: 'AB', listed: listing('C') });
    expect(s).toMatchObject({ source: 'C', saved: 'C', editorText: 'C', metaFor: 'C' });
    expect(s.diskChanged).toBeUndefined();
    expect(s.editorKey).toBe(saving.editorKey + 1);
    // The editor already showed 'C' (the save's own change read back first): it stays, saved.
    const shown = run(
      [
        { type: 'edit', text: 'AB' },
        { type: 'disk', listed: listing('AB') },
        { type: 'disk', listed: listing('C') },
        { type: 'savedOver', text: 'AB', listed: listing('C') },
      ],
      loaded,
    );
    expect(shown).toMatchObject({ source: 'C', saved: 'C', editorText: 'C' });
    // Typed on since the save: those edits stay, the file's change told; nothing is marked saved that is not.
    const typed = run(
      [
        { type: 'edit', text: 'AB' },
        { type: 'edit', text: 'ABD' },
        { type: 'savedOver', text: 'AB', listed: listing('C') },
      ],
      loaded,
    );
    expect(typed).toMatchObject({ source: 'ABD', saved: 'C', diskChanged: true });
  });

  it('revert puts the saved text back in a new editor', () => {
    const s = run([
      { type: 'loaded', listed: listing('A') },
      { type: 'edit', text: 'AB' },
      { type: 'revert' },
    ]);
    expect(s).toMatchObject({ source: 'A', editorText: 'A', editorKey: 1 });
    expect(toolsViewModel(s, listing('A')).dirty).toBe(false);
  });

  it('holds a save back for syntax errors only when the metadata is of the text in the editor', () => {
    const bad = listing('def f(:', [], [v('syntax', 1, 7), v('no-docstring', 1)]);
    const s = run([{ type: 'loaded', listed: bad }]);
    expect(holdFor(s, false)?.first.line).toBe(1);
    expect(holdFor(s, true)).toBeUndefined();
    // Edited since: the metadata is stale and holds nothing back.
    expect(holdFor(toolsEditorReducer(s, { type: 'edit', text: 'x' }), false)).toBeUndefined();
  });

  it('a save keeps its metadata only when it describes the saved text', () => {
    const s = run([
      { type: 'loaded', listed: listing('A') },
      { type: 'edit', text: 'B' },
    ]);
    const result = { ...listing('B', [tool('b')]), sandbox: 'demo' } as never;
    const saved = toolsEditorReducer(s, { type: 'saved', text: 'B', result });
    // metaFor is still 'A' (extraction not back yet): the shown metadata is not replaced.
    expect(saved).toMatchObject({ saved: 'B', metaFor: 'A' });
    const fresh = toolsEditorReducer(
      toolsEditorReducer(s, {
        type: 'extracted',
        meta: { tools: [], problems: [], prompt: '', openai: [] },
        source: 'B',
      }),
      { type: 'saved', text: 'B', result },
    );
    expect(fresh.metaFor).toBe('B');
    expect(fresh.meta?.tools.map((t) => t.name)).toEqual(['b']);
  });

  it('a failed extraction keeps the last metadata and says why; a good one clears that', () => {
    const s = run([
      { type: 'loaded', listed: listing('A') },
      { type: 'edit', text: 'B' },
      { type: 'extractFailed', error: 'down' },
    ]);
    expect(s).toMatchObject({ extractError: 'down', metaFor: 'A' });
    expect(
      toolsEditorReducer(s, { type: 'extracted', meta: s.meta!, source: 'B' }).extractError,
    ).toBeUndefined();
  });

  it('every jump is a new one, even to the same line', () => {
    const s = run([
      { type: 'jump', line: 4 },
      { type: 'jump', line: 4 },
    ]);
    expect(s.jump).toEqual({ line: 4, seq: 2 });
  });

  it('picks the first saved tool until one is chosen; an MCP-only sandbox says it has no tools.py', () => {
    const l = listing('', [tool('a', 'srv'), tool('b', 'srv')]);
    const s = run([{ type: 'loaded', listed: l }]);
    expect(toolsViewModel(s, l)).toMatchObject({ mcpOnly: true, badge: 'no-tools-file' });
    expect(toolsViewModel(s, l).selectedTool?.name).toBe('a');
    expect(toolsViewModel(toolsEditorReducer(s, { type: 'pickTool', name: 'b' }), l).selectedTool?.name).toBe(
      'b',
    );
    expect(
      toolsViewModel(toolsEditorReducer(s, { type: 'pickTool', name: 'gone' }), l).selectedTool?.name,
    ).toBe('a');
  });
});

import { describe, expect, it } from 'vitest';
import type { TemplateDraft } from './drafts.ts';
import {
  checkExamples,
  editorDrafts,
  restoreEditorState,
  initialEditor,
  matchText,
  nameTaken,
  saveProblems,
  saveRequests,
  templateEditorReducer,
} from './template-editor.ts';

const draft: TemplateDraft = {
  name: 'user-name',
  pattern: 'name of user {id} in {year}',
  slots: { id: 'str', year: 'int' },
  body: 'emit_result(get_user({{id}}, {{year}}))',
  sandbox: 'users',
  language: 'python',
  examples: [{ intent: 'Name of user u1 in 2024?', expect: '"Ada"' }],
  description: '',
};

describe('the template editor state', () => {
  it('edits one example, adds an empty one and removes by position', () => {
    let s = initialEditor(draft);
    s = templateEditorReducer(s, { type: 'addExample' });
    s = templateEditorReducer(s, { type: 'example', index: 1, patch: { intent: 'name of user u2 in 1999' } });
    expect(s.draft.examples).toEqual([draft.examples[0], { intent: 'name of user u2 in 1999', expect: '' }]);
    s = templateEditorReducer(s, { type: 'removeExample', index: 0 });
    expect(s.draft.examples).toEqual([{ intent: 'name of user u2 in 1999', expect: '' }]);
    expect(draft.examples).toHaveLength(1);
  });

  it('checks each example against the pattern and its expected JSON', () => {
    const checks = checkExamples({
      ...draft,
      examples: [
        { intent: 'name of user u1 in 2024', expect: '"Ada"' },
        { intent: 'name of user u1 in last year', expect: '' },
        { intent: '  ', expect: '{bad' },
      ],
    });
    expect(checks[0]).toEqual({ expect: { value: 'Ada' }, match: { id: 'u1', year: 2024 } });
    expect(checks[1]?.match).toBeUndefined();
    expect(checks[2]?.match).toBeUndefined();
    expect(checks[2]?.expect.error).toMatch(/^not JSON/);
    expect(matchText({ id: 'u1', year: 2024 })).toBe('id = "u1", year = 2024');
    expect(matchText({})).toBe('exactly');
  });

  it('names what stops a save; a taken name needs "replace" in a promotion only', () => {
    const bad = initialEditor({
      ...draft,
      name: '-bad',
      pattern: ' ',
      body: '',
      examples: [{ intent: '', expect: '{' }],
    });
    expect(saveProblems(bad, checkExamples(bad.draft), 'promote', [])).toEqual([
      'The name is letters, digits, _ . - (up to 64, no leading . or -).',
      'The pattern is empty.',
      'The body is empty.',
      'An expected value is not valid JSON.',
      'An example has no intent.',
    ]);
    const s = initialEditor(draft);
    const checks = checkExamples(draft);
    expect(nameTaken('promote', 'user-name', ['user-name'])).toBe(true);
    expect(nameTaken('edit', 'user-name', ['user-name'])).toBe(false);
    expect(saveProblems(s, checks, 'promote', ['user-name'])).toEqual([
      'A template named user-name exists: pick another name or replace it.',
    ]);
    expect(saveProblems({ ...s, replace: true }, checks, 'promote', ['user-name'])).toEqual([]);
    expect(saveProblems(s, checks, 'edit', ['user-name'])).toEqual([]);
  });

  it('a promotion sends the run and attempt, trimmed text and parsed expected values', () => {
    const s = initialEditor({
      ...draft,
      pattern: ' name of user {id} in {year} ',
      description: '  who  ',
      examples: [
        { intent: ' name of user u1 in 2024 ', expect: '"Ada"' },
        { intent: 'name of user u2 in 2020', expect: '' },
      ],
    });
    const { base, withRun } = saveRequests(s, checkExamples(s.draft), 'promote', {
      runId: 'run-1',
      attempt: 2,
    });
    expect(base).toEqual({
      name: 'user-name',
      pattern: 'name of user {id} in {year}',
      slots: draft.slots,
      body: draft.body,
      sandbox: 'users',
      language: 'python',
      examples: [{ intent: 'name of user u1 in 2024', expect: 'Ada' }, { intent: 'name of user u2 in 2020' }],
      description: 'who',
    });
    expect(withRun).toEqual({ ...base, fromRun: 'run-1', attempt: 2 });
    const replaced = saveRequests({ ...s, replace: true }, checkExamples(s.draft), 'promote', undefined);
    expect(replaced.base.force).toBe(true);
    expect(replaced.withRun).toBe(replaced.base);
  });

  it('an edit forces the save and links its origin run without an attempt', () => {
    const s = initialEditor({ ...draft, kit: 'readonly' });
    const { base, withRun } = saveRequests(s, checkExamples(s.draft), 'edit', { runId: 'run-1', attempt: 3 });
    expect(base).toMatchObject({ force: true, kit: 'readonly' });
    expect(withRun).toEqual({ ...base, fromRun: 'run-1' });
  });

  it("keeps a promotion's edits by key until they are dropped; the untouched proposal is not kept", () => {
    const d = editorDrafts();
    const proposal = { ...draft };
    d.keep('promote-r1-1', initialEditor(proposal), { ...draft });
    expect(d.get('promote-r1-1')).toBeUndefined();
    const edited = templateEditorReducer(initialEditor(proposal), {
      type: 'set',
      patch: { pattern: 'user {id} in {year}' },
    });
    d.keep('promote-r1-1', edited, { ...draft });
    expect(d.get('promote-r1-1')?.draft.pattern).toBe('user {id} in {year}');
    expect(d.get('promote-r2-1')).toBeUndefined();
    expect(d.size()).toBe(1);
    d.keep('promote-r1-1', { ...initialEditor(proposal), replace: true }, { ...draft });
    expect(d.get('promote-r1-1')?.replace).toBe(true);
    d.drop('promote-r1-1');
    expect(d.get('promote-r1-1')).toBeUndefined();
    expect(d.size()).toBe(0);
  });

  it('with a storage, a promotion draft is written there and read back in a new page (a reload)', () => {
    const stored = new Map<string, unknown>();
    const storage = {
      read: (k: string) => restoreEditorState(JSON.parse(JSON.stringify(stored.get(k) ?? null))),
      write: (k: string, v: unknown) => void (v === undefined ? stored.delete(k) : stored.set(k, v)),
    };
    const edited = templateEditorReducer(initialEditor({ ...draft }), {
      type: 'set',
      patch: { pattern: 'user {id} in {year}' },
    });
    editorDrafts(storage).keep('promote-r1-1', edited, { ...draft });
    // The page again: memory is empty, the storage has it.
    const again = editorDrafts(storage);
    expect(again.get('promote-r1-1')).toEqual(edited);
    again.drop('promote-r1-1');
    expect(editorDrafts(storage).get('promote-r1-1')).toBeUndefined();
    // A stored state of another shape is no draft.
    expect(restoreEditorState({ draft: { name: 1 } })).toBeUndefined();
    expect(restoreEditorState('x')).toBeUndefined();
  });
});

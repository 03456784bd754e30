import { describe, expect, it } from 'vitest';
import type { TemplateInfo } from '../../../../src-main/contract/api.ts';
import { draftOf } from './drafts.ts';
import { initialTemplates, promoteKey, promoteWhat, savedMessage, templatesReducer } from './templates.ts';
import type { TemplatesState } from './templates.ts';

const template = (name: string, origin?: string): TemplateInfo => ({
  name,
  pattern: 'name of user {id}',
  slots: { id: 'str' },
  body: 'emit_result({{id}})',
  sandbox: 'users',
  language: 'python',
  examples: [{ intent: 'name of user u1', expect: 'Ada' }],
  file: `/w/templates/${name}.json`,
  successes: 2,
  failures: 0,
  lastUsed: null,
  ...(origin ? { origin } : {}),
});

describe('the Templates view state', () => {
  it('a promotion goes from loading to its editor, or to its failure', () => {
    const p = { runId: '0123456789abcdef', attempt: 2 };
    expect(promoteWhat(p)).toBe('run 01234567');
    expect(promoteKey(p)).toBe('promote-0123456789abcdef-2');
    expect(promoteKey({ runId: 'r' })).toBe('promote-r-');
    let s = templatesReducer(initialTemplates, { type: 'promoteLoading', what: promoteWhat(p) });
    expect(s.editor).toEqual({ kind: 'loading', what: 'run 01234567' });
    const draft = draftOf(template('t'));
    s = templatesReducer(s, { type: 'promoteReady', key: 'k', draft, fromRun: { runId: p.runId } });
    expect(s.editor).toMatchObject({ kind: 'open', mode: 'promote', key: 'k', draft });
    s = templatesReducer(s, { type: 'promoteFailed', what: 'run 01234567', error: 'no script' });
    expect(s.editor).toEqual({ kind: 'error', what: 'run 01234567', error: 'no script' });
    expect(templatesReducer(s, { type: 'closeEditor' }).editor).toBeUndefined();
  });

  it('editing opens a fresh editor on the template, linked to its origin run when it has one', () => {
    const a = templatesReducer(initialTemplates, { type: 'edit', template: template('t', 'run-9'), at: 1 });
    expect(a.editor).toMatchObject({
      kind: 'open',
      mode: 'edit',
      key: 'edit-t-1',
      fromRun: { runId: 'run-9' },
    });
    const b = templatesReducer(a, { type: 'edit', template: template('t'), at: 2 });
    expect(b.editor).toMatchObject({ key: 'edit-t-2' });
    expect(b.editor && 'fromRun' in b.editor).toBe(false);
  });

  it('a delete that worked closes its confirmation and the editor of that template only', () => {
    const editing: TemplatesState = templatesReducer(
      { ...initialTemplates, confirmDelete: 'a' },
      { type: 'edit', template: template('a'), at: 1 },
    );
    let s = templatesReducer(editing, { type: 'deleteStart' });
    expect(s.deleting).toBe(true);
    s = templatesReducer(s, { type: 'deleteDone', name: 'a', deleted: true });
    expect(s).toEqual({ deleting: false, confirmDelete: undefined, editor: undefined });

    const other = templatesReducer(editing, { type: 'deleteDone', name: 'b', deleted: true });
    expect(other.editor).toBe(editing.editor);
  });

  it('a delete that failed keeps the confirmation and the editor open', () => {
    const s: TemplatesState = templatesReducer(
      { ...initialTemplates, confirmDelete: 'a', deleting: true },
      { type: 'edit', template: template('a'), at: 1 },
    );
    const after = templatesReducer(s, { type: 'deleteDone', name: 'a', deleted: false });
    expect(after).toMatchObject({ deleting: false, confirmDelete: 'a' });
    expect(after.editor).toBe(s.editor);
  });

  it('a promotion a save creates, an edit it saves', () => {
    expect(savedMessage('promote', 't')).toBe('Template t created.');
    expect(savedMessage('edit', 't')).toBe('Template t saved.');
  });
});

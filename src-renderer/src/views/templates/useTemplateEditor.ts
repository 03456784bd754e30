/** The template editor's state (template-editor.ts) bound to React and the API: the checks and the save. */
import { useEffect, useMemo, useReducer } from 'react';
import type { Request, TemplateInfo } from '../../../../src-main/contract/api.ts';
import { ApiCallError, api } from '../../api/client.ts';
import { trackUnsaved } from '../../lib/unsaved.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import type { FromRun, TemplateDraft } from './drafts.ts';
import { analysePattern, blockingPatternProblems } from './pattern.ts';
import {
  checkExamples,
  editorDrafts,
  initialEditor,
  nameTaken,
  saveProblems,
  saveRequests,
  restoreEditorState,
  templateEditorReducer,
} from './template-editor.ts';
import { readDraft, writeDraft } from '../../lib/session-draft.ts';
import type { EditorMode } from './template-editor.ts';

/**
 * A promotion's edits survive leaving the Templates view and a reload (the tab's sessionStorage); closing
 * the tab asks first.
 */
const drafts = editorDrafts({
  read: (key) => readDraft(`template.${key}`, restoreEditorState),
  write: (key, state) => writeDraft(`template.${key}`, state),
});
trackUnsaved('template drafts', () => drafts.size());

export function useTemplateEditor({
  mode,
  initial,
  existing,
  fromRun,
  draftKey,
  onSaved,
}: {
  mode: EditorMode;
  initial: TemplateDraft;
  existing: string[];
  fromRun: FromRun | undefined;
  /** Keeps the edits under this key until saved or discarded (a promotion's key). */
  draftKey?: string | undefined;
  onSaved: (t: TemplateInfo) => void;
}) {
  const [state, dispatch] = useReducer(
    templateEditorReducer,
    initial,
    (d) => (draftKey !== undefined ? drafts.get(draftKey) : undefined) ?? initialEditor(d),
  );
  useEffect(() => {
    if (draftKey !== undefined) drafts.keep(draftKey, state, initial);
  }, [draftKey, state, initial]);
  const discard = () => {
    if (draftKey !== undefined) drafts.drop(draftKey);
  };
  const { draft } = state;
  const save = useSubmit(async (base: Request<'templates.create'>, withRun: Request<'templates.create'>) => {
    let saved: TemplateInfo;
    try {
      saved = await api['templates.create'](withRun);
    } catch (e) {
      // Editing a template whose origin run was deleted: save it without the link.
      if (mode === 'edit' && fromRun && e instanceof ApiCallError && e.code === 'not_found')
        saved = await api['templates.create'](base);
      else throw e;
    }
    discard();
    onSaved(saved);
  });

  const checks = useMemo(() => checkExamples(draft), [draft]);
  const problems = saveProblems(state, checks, mode, existing);
  const patternIssues = blockingPatternProblems(analysePattern(draft));

  const submit = async () => {
    if (problems.length || save.busy) return;
    const { base, withRun } = saveRequests(state, checks, mode, fromRun);
    await save.run(base, withRun);
  };

  return {
    state,
    dispatch,
    checks,
    problems,
    patternIssues,
    taken: nameTaken(mode, draft.name, existing),
    saving: save.busy,
    error: save.error,
    submit,
    discard,
  };
}

/** The Templates view's state (templates.ts) bound to the API and the store, with its actions. */
import { useCallback, useEffect, useReducer } from 'react';
import type { TemplateInfo } from '../../../../src-main/contract/api.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useStore } from '../../store/index.ts';
import { promoteDraft } from './drafts.ts';
import { initialTemplates, promoteKey, promoteWhat, savedMessage, templatesReducer } from './templates.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';

export function useTemplates() {
  const promote = useStore((s) => s.promote);
  const setPromote = useStore((s) => s.setPromote);
  const notify = useStore((s) => s.notify);
  const navigate = useStore((s) => s.navigate);
  const list = useStore((s) => s.templateList);
  const loading = useStore((s) => s.templatesLoading);
  const loadError = useStore((s) => s.templatesError);
  const tests = useStore((s) => s.templateTests);
  const reload = useStore((s) => s.loadTemplates);
  const test = useStore((s) => s.testTemplate);
  const closeTest = useStore((s) => s.closeTemplateTest);
  const clearTests = useStore((s) => s.clearTemplateTests);
  const deleteTemplate = useStore((s) => s.deleteTemplate);
  const [state, dispatch] = useReducer(templatesReducer, initialTemplates);

  useLoadOnMount(reload);
  // The view starts without test results, and forgets them when it closes.
  useEffect(() => {
    clearTests();
    return clearTests;
  }, [clearTests]);

  // "Promote to template" in a run: propose a pattern, slots and body from the run, open the editor.
  useEffect(() => {
    if (!promote) return;
    let stale = false;
    const what = promoteWhat(promote);
    dispatch({ type: 'promoteLoading', what });
    Promise.all([
      api['templates.propose']({
        runId: promote.runId,
        ...(promote.attempt !== undefined ? { attempt: promote.attempt } : {}),
      }),
      api['runs.get']({ runId: promote.runId }),
    ])
      .then(([p, rec]) => {
        if (!stale)
          dispatch({ type: 'promoteReady', key: promoteKey(promote), ...promoteDraft(p, rec, promote) });
      })
      .catch((e: unknown) => {
        if (!stale) dispatch({ type: 'promoteFailed', what, error: errorMessage(e) });
      });
    return () => {
      stale = true;
    };
  }, [promote]);

  const closeEditor = useCallback(() => {
    dispatch({ type: 'closeEditor' });
    if (useStore.getState().promote) setPromote(undefined);
  }, [setPromote]);

  const remove = async (name: string) => {
    dispatch({ type: 'deleteStart' });
    dispatch({ type: 'deleteDone', name, deleted: await deleteTemplate(name) });
    await reload();
  };

  const saved = (mode: 'promote' | 'edit', t: TemplateInfo) => {
    notify('info', savedMessage(mode, t.name));
    closeEditor();
    void reload();
  };

  return {
    state,
    dispatch,
    promote,
    list,
    loading,
    loadError,
    tests,
    reload,
    test,
    closeTest,
    remove,
    saved,
    closeEditor,
    edit: (template: TemplateInfo) => dispatch({ type: 'edit', template, at: Date.now() }),
    backToRun: (runId: string) => navigate({ view: 'run', id: runId }),
  };
}

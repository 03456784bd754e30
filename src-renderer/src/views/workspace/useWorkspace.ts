/** The Workspace view's state (workspace.ts) bound to the API and the store, with its actions. */
import { useCallback, useEffect, useReducer } from 'react';
import { api, errorMessage } from '../../api/client.ts';
import { forgetDrafts, readDraft, writeDraft } from '../../lib/session-draft.ts';
import { leaveQuestion, leaveWithoutAsking } from '../../lib/unsaved.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { useStore } from '../../store/index.ts';
import { initialWorkspace, restoreWorkspaceDraft, workspaceDraft, workspaceReducer } from './workspace.ts';
import { useGuardedLoad } from '../../lib/useLoad.ts';

/**
 * Before another workspace is opened or created: the page will start again on it, so the unsaved edits
 * it holds would go. Asked here, before the service switches (the browser's own question came after).
 */
const mayLeave = (): boolean => {
  const question = leaveQuestion();
  return !question || confirm(question);
};

/**
 * A workspace was opened or created: the page starts again on it (the person was asked: mayLeave),
 * without the drafts of the one it leaves (lib/session-draft.ts: they name its sandboxes, kits, runs).
 */
const reloadOnRuns = () => {
  leaveWithoutAsking();
  forgetDrafts();
  location.hash = '#/runs';
  location.reload();
};

const DRAFT = 'workspace';

export function useWorkspace() {
  const info = useStore((s) => s.info);
  const sandboxes = useStore((s) => s.sandboxes);
  const loadApp = useStore((s) => s.loadApp);
  const navigate = useStore((s) => s.navigate);
  // What was typed (a folder, a new sandbox) comes back after a reload: kept in the tab's session.
  const [state, dispatch] = useReducer(
    workspaceReducer,
    undefined,
    () => readDraft(DRAFT, restoreWorkspaceDraft) ?? initialWorkspace,
  );
  useEffect(
    () => writeDraft(DRAFT, workspaceDraft(state)),
    [state.path, state.newPath, state.empty, state.sandbox],
  );

  useGuardedLoad(
    () => Promise.all([api['workspace.recent']({}), api['settings.get']({})]),
    ([recent, settings]) => dispatch({ type: 'loaded', recent, settings }),
    (error) => dispatch({ type: 'failed', error }),
    [],
  );

  const open = useCallback(async (path: string) => {
    if (!mayLeave()) return;
    dispatch({ type: 'start' });
    try {
      await api['workspace.open']({ path });
      reloadOnRuns();
    } catch (e) {
      dispatch({ type: 'failed', error: errorMessage(e), of: 'open' });
    }
  }, []);

  const choose = useCallback(async () => {
    dispatch({ type: 'clearError' });
    try {
      const r = await api['workspace.choose']({});
      if (r.path) await open(r.path);
    } catch (e) {
      dispatch({ type: 'failed', error: errorMessage(e), of: 'open' });
    }
  }, [open]);

  const create = useCallback(async (path: string, empty: boolean) => {
    if (!mayLeave()) return;
    dispatch({ type: 'start' });
    try {
      await api['workspace.init']({ path, empty });
      reloadOnRuns();
    } catch (e) {
      dispatch({ type: 'failed', error: errorMessage(e), of: 'create' });
    }
  }, []);

  const createSandbox = useSubmit(async () => {
    const { name, runtime, description } = state.sandbox;
    const r = await api['sandboxes.create']({ name: name.trim(), runtime, description });
    dispatch({ type: 'sandboxCreated' });
    void loadApp().then(() => navigate({ view: 'tools', id: r.name }));
  });

  return {
    state,
    dispatch,
    info,
    sandboxes,
    open,
    choose,
    create,
    createSandbox,
    openTools: (name: string) => navigate({ view: 'tools', id: name }),
  };
}

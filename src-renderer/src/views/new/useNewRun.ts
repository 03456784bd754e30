/** The New run view's state: the form (new-run.ts) bound to the store's sandboxes, kits, providers and startRun. */
import { useCallback, useEffect, useReducer } from 'react';
import type { NewRunState } from './new-run.ts';
import { useStore } from '../../store/index.ts';
import type { KitList } from '../../store/settings.ts';
import {
  initialNewRun,
  newRunDraft,
  newRunProblem,
  newRunReducer,
  newRunRequest,
  restoreNewRun,
} from './new-run.ts';
import { readDraft, writeDraft } from '../../lib/session-draft.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';

const NO_KITS: KitList = [];

/**
 * The form as it was left: a task typed, the view left to look something up and opened again, or the
 * page reloaded, is still there (it was an empty form; a reload lost it until the draft was kept in the
 * tab's sessionStorage). A run started from it empties it, as before.
 */
const DRAFT = 'new-run';
let kept: NewRunState = readDraft(DRAFT, restoreNewRun) ?? initialNewRun;

export function useNewRun() {
  const sandboxes = useStore((s) => s.sandboxes);
  const startRun = useStore((s) => s.startRun);
  const kits = useStore((s) => s.kits) ?? NO_KITS;
  const providers = useStore((s) => s.settings?.providers);
  const loadError = useStore((s) => s.kitsError ?? s.settingsError);
  const loadKits = useStore((s) => s.loadKits);
  const [state, dispatch] = useReducer(newRunReducer, kept, (s) => ({ ...s, busy: false }));
  useEffect(() => {
    kept = state;
    writeDraft(DRAFT, newRunDraft(state));
  }, [state]);

  useLoadOnMount(loadKits);
  useEffect(() => dispatch({ type: 'sandboxes', names: sandboxes.map((s) => s.name) }), [sandboxes]);

  const problem = newRunProblem(state);
  const submit = useCallback(async () => {
    if (problem || state.busy) return;
    dispatch({ type: 'busy', busy: true });
    const started = (await startRun(newRunRequest(state))) !== undefined;
    const action = started ? ({ type: 'started' } as const) : ({ type: 'busy', busy: false } as const);
    // (the view may be gone already, the run open: its next visit starts from `kept`)
    kept = newRunReducer(kept, action);
    writeDraft(DRAFT, newRunDraft(kept));
    dispatch(action);
  }, [problem, state, startRun]);

  return {
    state,
    dispatch,
    problem,
    submit,
    sandboxes,
    kits: kits.filter((k) => k.sandbox === state.sandbox),
    providers: providers ?? [],
    loadError,
  };
}

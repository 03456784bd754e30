/** The New run view's state: the form (new-run.ts) bound to the store's sandboxes, kits, providers and startRun. */
import { useCallback, useEffect, useReducer } from 'react';
import { useStore } from '../../store/index.ts';
import type { KitList } from '../../store/settings.ts';
import { initialNewRun, newRunProblem, newRunReducer, newRunRequest } from './new-run.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';

const NO_KITS: KitList = [];

export function useNewRun() {
  const sandboxes = useStore((s) => s.sandboxes);
  const startRun = useStore((s) => s.startRun);
  const kits = useStore((s) => s.kits) ?? NO_KITS;
  const providers = useStore((s) => s.settings?.providers);
  const loadError = useStore((s) => s.kitsError ?? s.settingsError);
  const loadKits = useStore((s) => s.loadKits);
  const [state, dispatch] = useReducer(newRunReducer, initialNewRun);

  useLoadOnMount(loadKits);
  useEffect(() => dispatch({ type: 'sandboxes', names: sandboxes.map((s) => s.name) }), [sandboxes]);

  const problem = newRunProblem(state);
  const submit = useCallback(async () => {
    if (problem || state.busy) return;
    dispatch({ type: 'busy', busy: true });
    await startRun(newRunRequest(state));
    dispatch({ type: 'busy', busy: false });
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

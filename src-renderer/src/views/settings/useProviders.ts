/** The providers editor's state (providers.ts) bound to the API: the list's actions and the form's. */
import { useReducer } from 'react';
import { api, errorMessage } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import {
  initialProviders,
  movedMessage,
  providerFormReducer,
  providersReducer,
  saveRequest,
  savedMessage,
  testRequest,
} from './providers.ts';
import type { Draft } from './providers.ts';

/** The list: test a saved provider, move it, remove it, open the form; `onChanged` reloads the settings. */
export function useProvidersEditor(onChanged: () => void) {
  const [state, dispatch] = useReducer(providersReducer, initialProviders);
  const done = (message?: string) => {
    dispatch({ type: 'edit', id: undefined });
    if (message) {
      dispatch({ type: 'notice', text: message });
      onChanged();
    }
  };
  /** `as`: the provider as it is tested (`providerTested`). */
  const test = async (id: string, as: string) => {
    dispatch({ type: 'testing', id, as });
    try {
      dispatch({ type: 'tested', id, result: await api['providers.test']({ id }) });
    } catch (e) {
      dispatch({ type: 'testFailed', id, error: errorMessage(e) });
    }
  };
  const move = async (id: string, to: number) => {
    dispatch({ type: 'error', error: undefined });
    try {
      const r = await api['providers.move']({ id, to });
      dispatch({ type: 'notice', text: movedMessage(id, to, r.order) });
      onChanged();
    } catch (e) {
      dispatch({ type: 'error', error: errorMessage(e) });
    }
  };
  const remove = async (id: string) => {
    if (!confirm(`Remove provider ${id} from the workspace config?`)) return;
    dispatch({ type: 'error', error: undefined });
    try {
      await api['providers.remove']({ id });
      dispatch({ type: 'notice', text: `Provider ${id} removed.` });
      onChanged();
    } catch (e) {
      dispatch({ type: 'error', error: errorMessage(e) });
    }
  };
  return { state, edit: (id: string | 'new') => dispatch({ type: 'edit', id }), done, test, move, remove };
}

/** The form: test the draft's connection, save it (a new provider first unless unticked). */
export function useProviderForm(
  initial: Draft,
  editing: string | undefined,
  onDone: (message?: string) => void,
) {
  const [state, dispatch] = useReducer(providerFormReducer, { draft: initial, first: true });
  const testing = useSubmit(async () => {
    dispatch({ type: 'tested', result: undefined });
    dispatch({ type: 'tested', result: await api['providers.test'](testRequest(state.draft)) });
  });
  const saving = useSubmit(async () => {
    const r = await api['providers.save'](saveRequest(state.draft, editing));
    if (!editing && state.first) await api['providers.move']({ id: r.id, to: 0 });
    onDone(savedMessage(r, editing, state.first));
  });
  // One error line for both actions: starting either clears it.
  return {
    state,
    dispatch,
    busy: saving.busy ? ('save' as const) : testing.busy ? ('test' as const) : undefined,
    error: testing.error ?? saving.error,
    test: () => {
      saving.setError(undefined);
      return testing.run();
    },
    save: () => {
      testing.setError(undefined);
      return saving.run();
    },
  };
}

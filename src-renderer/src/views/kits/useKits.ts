/** The Kits view's state (kits.ts) bound to the store: the kits, the settings' max grade, the editor. */
import { useReducer } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import { useStore } from '../../store/index.ts';
import { initialKits, kitsBySandbox, kitsReducer } from './kits.ts';
import type { Kit } from './kit.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';

export function useKits() {
  const sandboxes = useStore((s) => s.sandboxes);
  const notify = useStore((s) => s.notify);
  const kits = useStore((s) => s.kits);
  const settings = useStore((s) => s.settings);
  const loading = useStore((s) => s.kitsLoading);
  const loadError = useStore((s) => s.kitsError);
  const settingsError = useStore((s) => s.settingsError);
  const reload = useStore((s) => s.loadKits);
  const [state, dispatch] = useReducer(kitsReducer, initialKits);
  useLoadOnMount(reload);

  const sandboxNames = sandboxes.map((s) => s.name);
  const list = kits ?? [];
  return {
    state,
    kits,
    list,
    groups: kitsBySandbox(sandboxNames, list),
    sandboxNames,
    settingsKnown: !!settings,
    maxGrade: settings?.maxGrade,
    settingsError,
    loading,
    loadError,
    reload: () => void reload(),
    newKit: () => dispatch({ type: 'new', sandbox: sandboxNames[0] ?? '', at: Date.now() }),
    edit: (kit: Kit) => dispatch({ type: 'edit', kit, at: Date.now() }),
    close: () => dispatch({ type: 'close' }),
    saved: (r: Response<'kits.save'>) => {
      notify('info', `Kit ${r.name} saved to ${r.file}.`);
      dispatch({ type: 'close' });
      void reload();
    },
  };
}

/** The Kits view's state (kits.ts) bound to the store: the kits, the settings' max grade, the editor. */
import { useCallback, useEffect, useReducer } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import { trackUnsaved } from '../../lib/unsaved.ts';
import { useStore } from '../../store/index.ts';
import {
  dropQuestion,
  hasUnsavedEdits,
  initialKits,
  keptOnLeave,
  kitsBySandbox,
  kitsDraftToKeep,
  kitsReducer,
  restoreKitsDraft,
} from './kits.ts';
import { readDraft, writeDraft } from '../../lib/session-draft.ts';
import type { Kit, KitDraft } from './kit.ts';
import type { KitsState } from './kits.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';

/**
 * The view's state as it was left, for this page session: an editor with unsaved edits outlives
 * opening another view (it was dropped without asking) and counts in the page's guard against a
 * reload or a closed tab (lib/unsaved.ts). It is kept in the tab's sessionStorage too (lib/session-draft.ts):
 * the page asked before a reload, and after it the new kit typed was gone all the same.
 */
const DRAFT = 'kit';
let kept: KitsState = readDraft(DRAFT, restoreKitsDraft) ?? initialKits;
trackUnsaved('kit drafts', () => (hasUnsavedEdits(kept) ? 1 : 0));

export function useKits() {
  const sandboxes = useStore((s) => s.sandboxes);
  const notify = useStore((s) => s.notify);
  const kits = useStore((s) => s.kits);
  const settings = useStore((s) => s.settings);
  const loading = useStore((s) => s.kitsLoading);
  const loadError = useStore((s) => s.kitsError);
  const settingsError = useStore((s) => s.settingsError);
  const reload = useStore((s) => s.loadKits);
  const [state, dispatch] = useReducer(kitsReducer, kept);
  useLoadOnMount(reload);
  useEffect(() => {
    kept = keptOnLeave(state);
    writeDraft(DRAFT, kitsDraftToKeep(state));
  }, [state]);
  // (stable: the editor reports its draft from an effect that depends on it)
  const drafted = useCallback((draft: KitDraft) => dispatch({ type: 'draft', draft }), []);
  /** Whether the open draft may go: nothing unsaved in it, or the person said so. */
  const mayDrop = (): boolean => {
    const question = dropQuestion(state);
    return !question || confirm(question);
  };

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
    newKit: () => {
      if (mayDrop()) dispatch({ type: 'new', sandbox: sandboxNames[0] ?? '', at: Date.now() });
    },
    edit: (kit: Kit) => {
      if (mayDrop()) dispatch({ type: 'edit', kit, at: Date.now() });
    },
    /** The editor's draft as it changes (kept when the view is left, counted as unsaved). */
    drafted,
    close: () => {
      if (mayDrop()) dispatch({ type: 'close' });
    },
    saved: (r: Response<'kits.save'>) => {
      notify('info', `Kit ${r.name} saved to ${r.file}.`);
      dispatch({ type: 'close' });
      void reload();
    },
  };
}

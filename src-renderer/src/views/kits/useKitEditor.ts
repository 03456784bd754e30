/** The kit editor's state (kit-editor.ts) bound to React and the API: the sandbox's tools and the save. */
import { useEffect, useReducer } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import { api } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { useGuardedLoad } from '../../lib/useLoad.ts';
import type { Grade, KitDraft } from './kit.ts';
import { deriveKitEditor, initialKitEditor, kitEditorReducer, saveRequest } from './kit-editor.ts';

export function useKitEditor({
  mode,
  initial,
  existing,
  maxGrade,
  onSaved,
  onDraft,
}: {
  mode: 'new' | 'edit';
  initial: KitDraft;
  existing: string[];
  maxGrade: Grade | undefined;
  onSaved: (r: Response<'kits.save'>) => void;
  onDraft: (draft: KitDraft) => void;
}) {
  const [state, dispatch] = useReducer(kitEditorReducer, initial, initialKitEditor);
  const { draft } = state;
  // The view holds the draft too: kept when it is left, asked about before it is dropped.
  useEffect(() => onDraft(draft), [draft, onDraft]);
  const save = useSubmit(async () => onSaved(await api['kits.save'](saveRequest(draft))));

  // The tools of the picked sandbox, listed again when another is picked.
  useGuardedLoad(
    () => {
      if (!draft.sandbox) return undefined;
      dispatch({ type: 'toolsLoading' });
      return api['tools.list']({ sandbox: draft.sandbox });
    },
    (r) => dispatch({ type: 'toolsLoaded', tools: r.tools }),
    (error) => dispatch({ type: 'toolsFailed', error }),
    [draft.sandbox],
  );

  const derived = deriveKitEditor(state, mode, existing, maxGrade);
  const submit = async () => {
    if (derived.problems.length || save.busy) return;
    await save.run();
  };
  return { state, dispatch, ...derived, saving: save.busy, error: save.error, submit };
}

/**
 * The Tools view's state (tools-editor.ts) bound to the store and the API: loading a sandbox's
 * tools.py (an unsaved draft wins), live extraction debounced with only the latest answer kept, the
 * drafts kept across sandboxes, Save (held back by syntax errors unless "anyway") and Revert.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { api, errorMessage } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { useStore } from '../../store/index.ts';
import { drafts, pickedTools } from './drafts.ts';
import { holdFor, initialToolsEditor, toolsEditorReducer } from './tools-editor.ts';

const EXTRACT_DEBOUNCE_MS = 250;

export function useSandboxTools(sandbox: string, line: number | undefined, onDirtyChange: () => void) {
  const description = useStore((s) => s.sandboxes.find((x) => x.name === sandbox)?.description);
  const stored = useStore((s) => (s.toolsSandbox === sandbox ? s.toolsListed : undefined));
  const loadError = useStore((s) => (s.toolsSandbox === sandbox ? s.toolsLoadError : undefined));
  const loadTools = useStore((s) => s.loadTools);
  const closeTools = useStore((s) => s.closeTools);
  const saveTools = useStore((s) => s.saveTools);
  const [state, dispatch] = useReducer(toolsEditorReducer, initialToolsEditor);
  // The editor's text as of its last change, set as it changes: a Ctrl+S right after a keystroke can
  // come before React renders that keystroke, and a save of `state.source` then wrote the text before
  // it (or nothing, the editor not yet dirty). Every render brings it back to the state's (a load,
  // a revert, a change on disk), which by then holds every edit dispatched before it.
  const latest = useRef({ source: state.source, saved: state.saved, state });
  latest.current = { source: state.source, saved: state.saved, state };
  const [reloadSeq, setReloadSeq] = useState(0);
  const listed = state.ready ? stored : undefined;
  const extractSeq = useRef(0);
  // Saving announces its outcome (saveTools); a failure also stays on the page.
  const saving = useSubmit((text: string) => saveTools(sandbox, text));
  const { setError: setSaveError, run: runSave } = saving;

  // Load the sandbox: its saved tools (tools.list) and source; an unsaved draft wins over the source.
  useEffect(() => {
    let cancelled = false;
    dispatch({ type: 'loading' });
    setSaveError(undefined);
    void loadTools(sandbox).then((l) => {
      if (cancelled || !l) return;
      const draft = drafts.get(sandbox);
      if (draft === l.source) drafts.delete(sandbox);
      dispatch({ type: 'loaded', listed: l, draft });
      const picked = pickedTools.get(sandbox);
      if (picked) dispatch({ type: 'pickTool', name: picked });
    });
    return () => {
      cancelled = true;
      closeTools(sandbox);
    };
  }, [sandbox, reloadSeq, loadTools, closeTools, setSaveError]);

  // The listing read again while the view is open (tools.py changed on disk, or this view's save came
  // back): the editor follows the file unless it holds unsaved edits (tools-editor.ts, 'disk').
  const ready = state.ready;
  useEffect(() => {
    if (ready && stored) dispatch({ type: 'disk', listed: stored });
  }, [ready, stored]);

  // Live extraction, debounced; only the answer to the latest request is kept.
  const { source, metaFor } = state;
  useEffect(() => {
    if (!listed || source === metaFor) {
      dispatch({ type: 'extracting', on: false });
      return;
    }
    dispatch({ type: 'extracting', on: true });
    const seq = ++extractSeq.current;
    const t = setTimeout(() => {
      api['tools.extract']({ source })
        .then((meta) => seq === extractSeq.current && dispatch({ type: 'extracted', meta, source }))
        .catch(
          (e: unknown) =>
            seq === extractSeq.current && dispatch({ type: 'extractFailed', error: errorMessage(e) }),
        )
        .finally(() => seq === extractSeq.current && dispatch({ type: 'extracting', on: false }));
    }, EXTRACT_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [source, metaFor, listed]);

  const dirty = !!listed && state.source !== state.saved;
  useEffect(onDirtyChange, [dirty, onDirtyChange]);

  const edit = useCallback(
    (text: string) => {
      latest.current = { ...latest.current, source: text };
      dispatch({ type: 'edit', text });
      if (listed && text !== state.saved) drafts.set(sandbox, text);
      else drafts.delete(sandbox);
    },
    [listed, state.saved, sandbox],
  );

  /**
   * A save asked for while another is on its way (Ctrl+S again after more typing; the service answers a
   * save once the sandbox's workers have reloaded, which takes a while on a busy machine, and the
   * listing read on the file's change can mark the editor saved before that): it runs once that one has
   * answered, with the editor's text as it is then. It was dropped without a word, the edit left unsaved.
   */
  const inFlight = useRef(false);
  const queued = useRef<{ sandbox: string; anyway: boolean } | undefined>(undefined);
  const saveRef = useRef<(anyway?: boolean) => Promise<void>>(async () => {});
  const shown = useRef(sandbox);
  shown.current = sandbox;

  /** Saves the editor's text as it is now (a no-op when it is the saved text). */
  const save = useCallback(
    async (anyway = false) => {
      if (!listed) return;
      if (inFlight.current) {
        queued.current = { sandbox, anyway: anyway || (queued.current?.anyway ?? false) };
        return;
      }
      const { source: text, saved, state: now } = latest.current;
      if (text === saved) return;
      const hold = holdFor({ ...now, source: text }, anyway);
      dispatch({ type: 'hold', hold });
      if (hold) return;
      inFlight.current = true;
      let result;
      try {
        result = await runSave(text);
      } finally {
        inFlight.current = false;
      }
      if (result) {
        if (drafts.get(sandbox) === text) drafts.delete(sandbox);
        // (the file changed on disk again after this save: the newer file is the saved one, 'savedOver')
        if (result.newer) dispatch({ type: 'savedOver', text, listed: result.newer });
        else dispatch({ type: 'saved', text, result });
      }
      const next = queued.current;
      queued.current = undefined;
      // (while the sandbox it was asked in is the one shown, with what its editor holds now; nothing
      // when that is what was just saved, nor when the file changed on disk after this save: asked for
      // before that newer file was read, it would write over it unseen; the edits stay, with the
      // "changed on disk" notice, for the person to save or drop)
      if (next && next.sandbox === shown.current && latest.current.source !== text && !result?.newer)
        void saveRef.current(next.anyway);
    },
    [listed, sandbox, runSave],
  );
  saveRef.current = save;

  const revert = useCallback(() => {
    dispatch({ type: 'revert' });
    drafts.delete(sandbox);
  }, [sandbox]);

  // Opened from a traceback frame inside a tool: reveal that line once the source is in the editor.
  useEffect(() => {
    if (listed && line) dispatch({ type: 'jump', line });
  }, [listed, line]);

  return {
    state,
    dispatch,
    listed,
    description,
    loadError,
    dirty,
    saving: saving.busy,
    saveError: saving.error,
    edit,
    save,
    revert,
    retry: () => setReloadSeq((n) => n + 1),
  };
}

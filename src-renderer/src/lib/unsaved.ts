/**
 * Edits the page holds and has not saved (a tools.py draft, an edited attempt script, the open skill's
 * draft): in a browser a reload or a closed tab asks first (`beforeunload`). Not in Electron, where a
 * cancelled `beforeunload` keeps the window from closing without any dialog.
 */
const sources = new Map<string, () => number>();

/** Counts one kind of unsaved edit (`count` is asked when the page is about to go). */
export function trackUnsaved(kind: string, count: () => number): void {
  sources.set(kind, count);
}

/** How many unsaved edits the page holds, by kind (only kinds with some). */
export function unsavedEdits(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, count] of sources) {
    const n = count();
    if (n > 0) out[kind] = n;
  }
  return out;
}

/** In a browser page: ask before a reload or a close loses unsaved edits. Returns the uninstall. */
export function guardUnsaved(target: Pick<Window, 'addEventListener' | 'removeEventListener'>): () => void {
  const onBefore = (e: BeforeUnloadEvent) => {
    if (Object.keys(unsavedEdits()).length === 0) return;
    e.preventDefault();
    // (older browsers show the dialog only for a returnValue set)
    e.returnValue = '';
  };
  target.addEventListener('beforeunload', onBefore);
  return () => target.removeEventListener('beforeunload', onBefore);
}

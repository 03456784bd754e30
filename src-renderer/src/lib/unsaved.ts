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

/**
 * What to ask before the page starts again on purpose (another workspace opened): the unsaved edits it
 * would lose, by kind; undefined when there are none.
 */
export function leaveQuestion(edits: Record<string, number> = unsavedEdits()): string | undefined {
  const kinds = Object.entries(edits).map(([kind, n]) => `${kind}: ${n}`);
  return kinds.length === 0 ? undefined : `Unsaved edits (${kinds.join(', ')}) will be lost. Go on?`;
}

/**
 * The person was asked already (`leaveQuestion`) and said go: the page's next reload does not ask again.
 * (Asked by the browser after the service had switched workspaces, "stay" left a page showing the old
 * workspace over a service on the new one.)
 */
let leaving = false;
export function leaveWithoutAsking(): void {
  leaving = true;
}

/** In a browser page: ask before a reload or a close loses unsaved edits. Returns the uninstall. */
export function guardUnsaved(target: Pick<Window, 'addEventListener' | 'removeEventListener'>): () => void {
  const onBefore = (e: BeforeUnloadEvent) => {
    if (leaving || Object.keys(unsavedEdits()).length === 0) return;
    e.preventDefault();
    // (older browsers show the dialog only for a returnValue set)
    e.returnValue = '';
  };
  target.addEventListener('beforeunload', onBefore);
  return () => target.removeEventListener('beforeunload', onBefore);
}

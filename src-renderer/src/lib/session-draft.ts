/**
 * What a person typed and has not sent yet, kept in the tab's sessionStorage: it outlives a reload (F5,
 * a page restarted after an update) and the view coming back, and goes with the tab. Before, New run's
 * task and an open promotion lived in module memory only, and a reload showed an empty form.
 *
 * `read` takes what `restore` makes of the stored JSON (undefined drops it: another version's shape,
 * a hand edit); a storage that throws (disabled, full, no sessionStorage at all in node) keeps nothing.
 */
export interface DraftStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const PREFIX = 'toolsmith.draft.';

const storage = (): DraftStorage | undefined =>
  typeof sessionStorage === 'undefined' ? undefined : sessionStorage;

export function readDraft<T>(
  key: string,
  restore: (raw: unknown) => T | undefined,
  store: DraftStorage | undefined = storage(),
): T | undefined {
  try {
    const text = store?.getItem(PREFIX + key);
    return text == null ? undefined : restore(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Keeps `value` under `key`; undefined forgets it. */
export function writeDraft(key: string, value: unknown, store: DraftStorage | undefined = storage()): void {
  try {
    if (value === undefined) store?.removeItem(PREFIX + key);
    else store?.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    /* a draft is a convenience: a storage that refuses it keeps none */
  }
}

/**
 * Forgets every kept draft: another workspace is opened or created and the page starts again on it. A
 * draft names that workspace's sandboxes, kits, suites and runs (a New run task typed in one came back
 * in the other, with the runs filters of the first).
 */
export function forgetDrafts(
  store: Pick<Storage, 'length' | 'key' | 'removeItem'> | undefined = typeof sessionStorage === 'undefined'
    ? undefined
    : sessionStorage,
): void {
  try {
    if (!store) return;
    const keys: string[] = [];
    for (let i = 0; i < store.length; i++) {
      const k = store.key(i);
      if (k?.startsWith(PREFIX)) keys.push(k);
    }
    for (const k of keys) store.removeItem(k);
  } catch {
    /* nothing kept to forget */
  }
}

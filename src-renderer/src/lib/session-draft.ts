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

/**
 * A map of texts kept under `key` as it changes (an object of key to text): unsaved edits by name (a
 * suite's TOML, a sandbox's tools.py, an attempt's script) that the page asked about before a reload
 * and lost after it all the same. What the storage kept that is not such an object is dropped.
 */
export function keptMap(key: string, store: DraftStorage | undefined = storage()): Map<string, string> {
  const map = new Map<string, string>(
    Object.entries(
      readDraft(
        key,
        (raw) =>
          raw &&
          typeof raw === 'object' &&
          !Array.isArray(raw) &&
          Object.values(raw).every((v) => typeof v === 'string')
            ? (raw as Record<string, string>)
            : undefined,
        store,
      ) ?? {},
    ),
  );
  const keep = () => writeDraft(key, map.size ? Object.fromEntries(map) : undefined, store);
  const set = map.set.bind(map);
  const del = map.delete.bind(map);
  const clear = map.clear.bind(map);
  map.set = (k, v) => {
    set(k, v);
    keep();
    return map;
  };
  map.delete = (k) => {
    const had = del(k);
    if (had) keep();
    return had;
  };
  map.clear = () => {
    clear();
    keep();
  };
  return map;
}

/**
 * The most a keepNewest map takes of the tab's storage (its entries as stored, in characters): the
 * storage holds about 5 M characters for the whole page, and what is kept of results must leave room
 * for unsaved edits (a tools.py, a suite) that the same storage keeps.
 */
export const KEPT_NEWEST_CHARS = 1_000_000;

/**
 * Keeps `text` as `key`'s entry of a keptMap, newest last, at most `bound` entries and `chars`
 * characters as stored (the oldest go), or forgets the entry (`text` undefined: nothing to keep, or too
 * large to keep). Before, 10 tools' results of 200 000 characters each, their quotes escaped once more
 * in the map, filled the tab's storage: an unsaved tools.py was no longer kept for a reload.
 */
export function keepNewest(
  map: Map<string, string>,
  key: string,
  text: string | undefined,
  bound: number,
  chars = KEPT_NEWEST_CHARS,
): void {
  map.delete(key);
  if (text === undefined) return;
  const size = (k: string, v: string) => JSON.stringify(k).length + JSON.stringify(v).length + 2;
  const mine = size(key, text);
  if (mine > chars) return;
  let total = mine;
  for (const [k, v] of map) total += size(k, v);
  const gone: string[] = [];
  for (const [k, v] of map) {
    if (map.size - gone.length < bound && total <= chars) break;
    gone.push(k);
    total -= size(k, v);
  }
  for (const k of gone) map.delete(k);
  map.set(key, text);
}

/**
 * The Kits view's state as data: the editor open above the list (a new kit or an edit, keyed so each
 * opening starts fresh, with the draft as the editor holds it), what the view keeps when it is left and
 * what it asks before an unsaved draft is dropped, and the kits grouped by sandbox. Pure (tested in
 * node); `useKits.ts` binds it to React and the store.
 */
import { draftOf } from './kit.ts';
import type { Kit, KitDraft } from './kit.ts';

export interface KitEditorOpen {
  key: string;
  mode: 'new' | 'edit';
  /** The draft as the editor opened it (a new kit's empty one, or the kit as saved). */
  draft: KitDraft;
  /** The draft as the editor holds it now (reported as it changes); none until it reports. */
  edited?: KitDraft;
  /** Why the editor cannot show the kit as it is (refused, or grouped aliases). */
  note?: string;
}

export interface KitsState {
  editor?: KitEditorOpen;
}

export const initialKits: KitsState = {};

export type KitsAction =
  /** A new kit in the first sandbox (`at` makes each opening a fresh editor). */
  | { type: 'new'; sandbox: string; at: number }
  | { type: 'edit'; kit: Kit; at: number }
  /** The open editor's draft changed (what a person typed or picked). */
  | { type: 'draft'; draft: KitDraft }
  | { type: 'close' };

export function kitsReducer(s: KitsState, a: KitsAction): KitsState {
  switch (a.type) {
    case 'new':
      return {
        ...s,
        editor: {
          key: `new-${a.at}`,
          mode: 'new',
          draft: { name: '', sandbox: a.sandbox, description: '', rows: [] },
        },
      };
    case 'edit':
      return { ...s, editor: { key: `edit-${a.kit.name}-${a.at}`, mode: 'edit', ...draftOf(a.kit) } };
    case 'draft':
      return s.editor && s.editor.edited !== a.draft ? { ...s, editor: { ...s.editor, edited: a.draft } } : s;
    case 'close':
      return { ...s, editor: undefined };
  }
}

const sameDraft = (a: KitDraft, b: KitDraft): boolean =>
  a.name === b.name &&
  a.sandbox === b.sandbox &&
  a.description === b.description &&
  a.rows.length === b.rows.length &&
  a.rows.every((r, i) => r.alias === b.rows[i]?.alias && r.tool === b.rows[i]?.tool);

/** The open editor holds edits not saved: its draft differs from the one it opened with. */
export const hasUnsavedEdits = (s: KitsState): boolean =>
  !!s.editor?.edited && !sameDraft(s.editor.edited, s.editor.draft);

/** The draft the editor starts from when it opens (again): the edited one when there is one. */
export const editorDraft = (e: KitEditorOpen): KitDraft => e.edited ?? e.draft;

/**
 * What the view keeps when it is left (another view opened): an editor with unsaved edits, to find
 * again on coming back (it was dropped without asking); nothing otherwise.
 */
export const keptOnLeave = (s: KitsState): KitsState => (hasUnsavedEdits(s) ? s : initialKits);

/**
 * What a reload keeps of the view (lib/session-draft.ts): the open editor while it holds unsaved edits,
 * else nothing. (The page asked before a reload, but the new kit typed was gone after it.)
 */
export const kitsDraftToKeep = (s: KitsState): KitEditorOpen | undefined =>
  s.editor && hasUnsavedEdits(s) ? s.editor : undefined;

function restoreKitDraft(raw: unknown): KitDraft | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const { name, sandbox, description, rows } = r;
  if (typeof name !== 'string' || typeof sandbox !== 'string' || typeof description !== 'string')
    return undefined;
  if (!Array.isArray(rows)) return undefined;
  const kept: KitDraft['rows'] = [];
  for (const row of rows as unknown[]) {
    if (!row || typeof row !== 'object') return undefined;
    const { alias, tool } = row as Record<string, unknown>;
    if (typeof alias !== 'string' || typeof tool !== 'string') return undefined;
    kept.push({ alias, tool });
  }
  return { name, sandbox, description, rows: kept };
}

/** The view's state from a kept editor (`kitsDraftToKeep`'s JSON); undefined for anything else. */
export function restoreKitsDraft(raw: unknown): KitsState | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r['key'] !== 'string' || (r['mode'] !== 'new' && r['mode'] !== 'edit')) return undefined;
  const draft = restoreKitDraft(r['draft']);
  const edited = restoreKitDraft(r['edited']);
  if (!draft || !edited) return undefined;
  return {
    editor: {
      key: r['key'],
      mode: r['mode'],
      draft,
      edited,
      ...(typeof r['note'] === 'string' ? { note: r['note'] } : {}),
    },
  };
}

/** The question to ask before the open draft is dropped (another kit edited, a new one, Cancel). */
export const dropQuestion = (s: KitsState): string | undefined =>
  s.editor && hasUnsavedEdits(s)
    ? s.editor.mode === 'new'
      ? `Drop the unsaved new kit${s.editor.edited?.name ? ` ${s.editor.edited.name}` : ''}?`
      : `Drop the unsaved edits to kit ${s.editor.draft.name}?`
    : undefined;

/**
 * The kits grouped by sandbox: the workspace's sandboxes in their order, then sandboxes only kits
 * name; sandboxes without kits are left out.
 */
export function kitsBySandbox(sandboxes: string[], kits: Kit[]): { sandbox: string; kits: Kit[] }[] {
  return sandboxes
    .concat(kits.map((k) => k.sandbox).filter((s) => !sandboxes.includes(s)))
    .filter((s, i, all) => all.indexOf(s) === i)
    .map((sandbox) => ({ sandbox, kits: kits.filter((k) => k.sandbox === sandbox) }))
    .filter((g) => g.kits.length > 0);
}

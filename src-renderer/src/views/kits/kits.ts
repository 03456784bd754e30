/**
 * The Kits view's state as data: the editor open above the list (a new kit or an edit, keyed so each
 * opening starts fresh) and the kits grouped by sandbox. Pure (tested in node); `useKits.ts` binds it
 * to React and the store.
 */
import { draftOf } from './kit.ts';
import type { Kit, KitDraft } from './kit.ts';

export interface KitEditorOpen {
  key: string;
  mode: 'new' | 'edit';
  draft: KitDraft;
  /** Why the editor cannot show the kit as it is (refused, or grouped aliases). */
  note?: string;
}

export interface KitsState {
  editor?: KitEditorOpen;
}

export const initialKits: KitsState = {};

export type KitsAction =
  /** A new kit in the first sandbox (`at` makes each opening a fresh editor). */
  { type: 'new'; sandbox: string; at: number } | { type: 'edit'; kit: Kit; at: number } | { type: 'close' };

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
    case 'close':
      return { ...s, editor: undefined };
  }
}

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

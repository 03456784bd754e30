/**
 * The Templates view's state as data: the editor open above the list (a promotion being proposed, its
 * failure, or a draft being edited) and the delete confirmation. Pure (tested in node);
 * `useTemplates.ts` binds it to React, the API and the store's templates slice.
 */
import type { TemplateInfo } from '../../../../src-main/contract/api.ts';
import { draftOf } from './drafts.ts';
import type { FromRun, TemplateDraft } from './drafts.ts';

export type EditorState =
  | { kind: 'loading'; what: string }
  | { kind: 'error'; what: string; error: string }
  | {
      kind: 'open';
      /** Remounts the editor when another draft opens. */
      key: string;
      mode: 'promote' | 'edit';
      draft: TemplateDraft;
      fromRun?: FromRun;
    };

export interface TemplatesState {
  editor?: EditorState;
  /** The template whose row asks "Delete the file and its counters?". */
  confirmDelete?: string;
  /** A delete is under way. */
  deleting: boolean;
}

export const initialTemplates: TemplatesState = { deleting: false };

export interface Promote {
  runId: string;
  attempt?: number | undefined;
}

/** How the view names the run a promotion comes from. */
export const promoteWhat = (p: Promote): string => `run ${p.runId.slice(0, 8)}`;
/** The editor of a promotion: one per run and attempt. */
export const promoteKey = (p: Promote): string => `promote-${p.runId}-${p.attempt ?? ''}`;

export type TemplatesAction =
  /** "Promote to template" in a run: the proposal is on its way. */
  | { type: 'promoteLoading'; what: string }
  | { type: 'promoteFailed'; what: string; error: string }
  | { type: 'promoteReady'; key: string; draft: TemplateDraft; fromRun: FromRun }
  /** Edit a template (`at` makes each opening a fresh editor). */
  | { type: 'edit'; template: TemplateInfo; at: number }
  | { type: 'closeEditor' }
  /** Ask to confirm deleting a template, or stop asking (undefined). */
  | { type: 'confirmDelete'; name: string | undefined }
  | { type: 'deleteStart' }
  /**
   * A delete ended: when the template is gone its confirmation closes, and so does its editor; a
   * failure (announced by the store) leaves the confirmation open.
   */
  | { type: 'deleteDone'; name: string; deleted: boolean };

export function templatesReducer(s: TemplatesState, a: TemplatesAction): TemplatesState {
  switch (a.type) {
    case 'promoteLoading':
      return { ...s, editor: { kind: 'loading', what: a.what } };
    case 'promoteFailed':
      return { ...s, editor: { kind: 'error', what: a.what, error: a.error } };
    case 'promoteReady':
      return {
        ...s,
        editor: { kind: 'open', key: a.key, mode: 'promote', draft: a.draft, fromRun: a.fromRun },
      };
    case 'edit': {
      const t = a.template;
      return {
        ...s,
        editor: {
          kind: 'open',
          key: `edit-${t.name}-${a.at}`,
          mode: 'edit',
          draft: draftOf(t),
          ...(t.origin ? { fromRun: { runId: t.origin } } : {}),
        },
      };
    }
    case 'closeEditor':
      return { ...s, editor: undefined };
    case 'confirmDelete':
      return { ...s, confirmDelete: a.name };
    case 'deleteStart':
      return { ...s, deleting: true };
    case 'deleteDone': {
      if (!a.deleted) return { ...s, deleting: false };
      const e = s.editor;
      const editing = e?.kind === 'open' && e.mode === 'edit' && e.draft.name === a.name;
      return { ...s, deleting: false, confirmDelete: undefined, editor: editing ? undefined : e };
    }
  }
}

/** The message after a save: a promotion creates a template, an edit saves it. */
export const savedMessage = (mode: 'promote' | 'edit', name: string): string =>
  mode === 'promote' ? `Template ${name} created.` : `Template ${name} saved.`;

/**
 * The Workspace view's state as data: the recent list and enabled runtimes it loads, the open and
 * create forms, the new-sandbox form, and the error shown. Pure (tested in node); `useWorkspace.ts`
 * binds it to React, the API and the store.
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import type { Runtime } from '../../store/images.ts';

export type Recent = Response<'workspace.recent'>;

export interface SandboxDraft {
  name: string;
  runtime: Runtime;
  description: string;
}

export interface WorkspaceState {
  recent?: Recent;
  /** The runtimes enabled in the config (a new sandbox picks one). */
  runtimes: string[];
  /** The last failure of loading, opening or creating a workspace. */
  error?: string;
  /**
   * Which form the error is about ('open': the folder typed to open, or the one chosen; 'create': the new
   * folder): editing that form's fields clears it, as they are no longer what was refused. A load's
   * error has none and stays.
   */
  errorOf?: 'open' | 'create';
  /** The folder typed to open. */
  path: string;
  /** The folder typed to create. */
  newPath: string;
  /** Create it empty (no sample sandboxes). */
  empty: boolean;
  /** Opening or creating a workspace is under way (the page reloads when it succeeds). */
  busy: boolean;
  sandbox: SandboxDraft;
}

export const initialWorkspace: WorkspaceState = {
  runtimes: [],
  path: '',
  newPath: '',
  empty: false,
  busy: false,
  sandbox: { name: '', runtime: 'python', description: '' },
};

export type WorkspaceAction =
  | { type: 'loaded'; recent: Recent; settings: Pick<Response<'settings.get'>, 'runtimes'> }
  | { type: 'set'; patch: Partial<Pick<WorkspaceState, 'path' | 'newPath' | 'empty'>> }
  | { type: 'sandbox'; patch: Partial<SandboxDraft> }
  /** A sandbox was created: the form empties (its runtime stays). */
  | { type: 'sandboxCreated' }
  /** An open or create starts: busy, the previous error cleared. */
  | { type: 'start' }
  /** Something failed: its message shown (about the open or create form, if `of`), busy no more. */
  | { type: 'failed'; error: string; of?: 'open' | 'create' }
  | { type: 'clearError' };

export function workspaceReducer(s: WorkspaceState, a: WorkspaceAction): WorkspaceState {
  switch (a.type) {
    case 'loaded':
      return {
        ...s,
        recent: a.recent,
        runtimes: a.settings.runtimes.filter((r) => r.enabled).map((r) => r.id),
      };
    case 'set': {
      // The refusal was of the folder as it was ("is not a Toolsmith workspace" stayed beside another
      // folder, or an empty field): editing the form it is about clears it.
      const edited =
        s.errorOf === 'open'
          ? a.patch.path !== undefined && a.patch.path !== s.path
          : s.errorOf === 'create' &&
            ((a.patch.newPath !== undefined && a.patch.newPath !== s.newPath) ||
              (a.patch.empty !== undefined && a.patch.empty !== s.empty));
      return edited ? { ...s, ...a.patch, error: undefined, errorOf: undefined } : { ...s, ...a.patch };
    }
    case 'sandbox':
      return { ...s, sandbox: { ...s.sandbox, ...a.patch } };
    case 'sandboxCreated':
      return { ...s, sandbox: { ...s.sandbox, name: '', description: '' } };
    case 'start':
      return { ...s, busy: true, error: undefined, errorOf: undefined };
    case 'failed':
      return { ...s, busy: false, error: a.error, errorOf: a.of };
    case 'clearError':
      return { ...s, error: undefined, errorOf: undefined };
  }
}

/** The runtimes offered to a new sandbox: the enabled ones, Python when the list is not known. */
export const runtimeChoices = (runtimes: string[]): string[] => (runtimes.length ? runtimes : ['python']);

/** What a reload keeps of the view (lib/session-draft.ts): the folders and the new sandbox typed. */
export type WorkspaceDraft = Pick<WorkspaceState, 'path' | 'newPath' | 'empty' | 'sandbox'>;

/**
 * The draft to keep in the tab's session: the folder to open or create and the new sandbox's fields while
 * any was typed, else none. (A reload, F5 or the page restarted, emptied them: what was typed was lost.)
 */
export function workspaceDraft(s: WorkspaceState): WorkspaceDraft | undefined {
  const { path, newPath, empty, sandbox } = s;
  const typed = path || newPath || empty || sandbox.name || sandbox.description;
  return typed ? { path, newPath, empty, sandbox } : undefined;
}

/** The view's state from a kept draft (`workspaceDraft`'s JSON); undefined for anything else. */
export function restoreWorkspaceDraft(raw: unknown): WorkspaceState | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const sb = r['sandbox'];
  if (!sb || typeof sb !== 'object' || Array.isArray(sb)) return undefined;
  const d = sb as Record<string, unknown>;
  const text = (o: Record<string, unknown>, k: string): string => (typeof o[k] === 'string' ? o[k] : '');
  return {
    ...initialWorkspace,
    path: text(r, 'path'),
    newPath: text(r, 'newPath'),
    empty: r['empty'] === true,
    sandbox: {
      name: text(d, 'name'),
      // (a runtime the config no longer enables is offered again by the form's select: runtimeChoices)
      runtime: typeof d['runtime'] === 'string' && d['runtime'] ? (d['runtime'] as Runtime) : 'python',
      description: text(d, 'description'),
    },
  };
}

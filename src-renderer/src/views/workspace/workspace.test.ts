import { describe, expect, it } from 'vitest';
import { initialWorkspace, runtimeChoices, workspaceReducer } from './workspace.ts';
import type { Recent } from './workspace.ts';

const recent: Recent = { current: '/w', recent: [], canChoose: false, canOpen: true };

describe('the Workspace view state', () => {
  it('keeps the enabled runtimes only when the settings arrive', () => {
    const s = workspaceReducer(initialWorkspace, {
      type: 'loaded',
      recent,
      settings: {
        runtimes: [
          { id: 'python', enabled: true },
          { id: 'deno', enabled: false },
          { id: 'node', enabled: true },
        ],
      },
    });
    expect(s.runtimes).toEqual(['python', 'node']);
    expect(s.recent).toBe(recent);
  });

  it('an open or create clears the last error and is busy; a failure names itself and frees the form', () => {
    let s = workspaceReducer(initialWorkspace, { type: 'failed', error: 'not a workspace: /x' });
    expect(s).toMatchObject({ error: 'not a workspace: /x', busy: false });
    s = workspaceReducer(s, { type: 'start' });
    expect(s).toMatchObject({ error: undefined, busy: true });
    s = workspaceReducer(s, { type: 'failed', error: 'folder not empty' });
    expect(s).toMatchObject({ error: 'folder not empty', busy: false });
    expect(workspaceReducer(s, { type: 'clearError' }).error).toBeUndefined();
  });

  it("an open's or create's refusal goes once its own form is edited, not the other's, nor a load's", () => {
    const typed = workspaceReducer(initialWorkspace, { type: 'set', patch: { path: '/x', newPath: '/n' } });
    // Opening /x failed: editing the folder to open clears it; the new folder's field leaves it.
    let s = workspaceReducer(typed, { type: 'failed', error: 'not a workspace: /x', of: 'open' });
    expect(workspaceReducer(s, { type: 'set', patch: { newPath: '/m' } }).error).toBe('not a workspace: /x');
    expect(workspaceReducer(s, { type: 'set', patch: { path: '/x' } }).error).toBe('not a workspace: /x');
    s = workspaceReducer(s, { type: 'set', patch: { path: '/y' } });
    expect(s).toMatchObject({ path: '/y', error: undefined });
    // Creating /n failed: its folder or its "empty" box edited clears it; the folder to open does not.
    s = workspaceReducer(typed, { type: 'failed', error: 'folder not empty: /n', of: 'create' });
    expect(workspaceReducer(s, { type: 'set', patch: { path: '/z' } }).error).toBe('folder not empty: /n');
    expect(workspaceReducer(s, { type: 'set', patch: { newPath: '/n2' } }).error).toBeUndefined();
    expect(workspaceReducer(s, { type: 'set', patch: { empty: true } }).error).toBeUndefined();
    // The recent list failed to load: typing is not an answer to that.
    s = workspaceReducer(typed, { type: 'failed', error: 'could not load' });
    expect(workspaceReducer(s, { type: 'set', patch: { path: '/q' } }).error).toBe('could not load');
  });

  it('a created sandbox empties its form but keeps the runtime chosen', () => {
    let s = workspaceReducer(initialWorkspace, {
      type: 'sandbox',
      patch: { name: 'billing', runtime: 'node', description: 'bills' },
    });
    s = workspaceReducer(s, { type: 'sandboxCreated' });
    expect(s.sandbox).toEqual({ name: '', runtime: 'node', description: '' });
  });

  it('offers Python while the enabled runtimes are not known', () => {
    expect(runtimeChoices([])).toEqual(['python']);
    expect(runtimeChoices(['node'])).toEqual(['node']);
  });
});

/**
 * Workspace: which workspace is open, recent ones, opening another (the desktop's folder dialog, or a
 * path typed in the browser front end), creating a new one (a copy of the sample, or empty), and the
 * sandboxes of this workspace with a form to create one (folder, tools.py skeleton, config entry).
 * Opening or creating a workspace switches the service, then reloads the page on it. State and
 * actions: useWorkspace.ts (on the pure workspace.ts); parts: WorkspaceParts.tsx.
 */
import { useWorkspace } from './useWorkspace.ts';
import { CreateSandboxForm, OpenWorkspace, SandboxList } from './WorkspaceParts.tsx';
import '../manage.css';

export function WorkspaceView() {
  const v = useWorkspace();
  const { state, dispatch } = v;
  return (
    <section aria-label="workspace" className="manage-view">
      <div className="view-head">
        <h1>Workspace</h1>
      </div>
      <div className="manage-panel" role="region" aria-label="workspaces">
        <h2>{v.info?.name ?? 'Workspace'}</h2>
        <p>
          Open:{' '}
          <code data-testid="current-workspace">{v.info?.workspace ?? state.recent?.current ?? '…'}</code>
        </p>
        {state.error && (
          <div role="alert" className="error">
            {state.error}
          </div>
        )}
        {state.recent && (
          <OpenWorkspace
            recent={state.recent}
            form={state}
            onChange={(patch) => dispatch({ type: 'set', patch })}
            onOpen={(p) => void v.open(p)}
            onChoose={() => void v.choose()}
            onCreate={(p, empty) => void v.create(p, empty)}
          />
        )}
      </div>
      <div className="manage-panel" role="region" aria-label="sandboxes">
        <h2>Sandboxes</h2>
        <SandboxList sandboxes={v.sandboxes} onOpenTools={v.openTools} />
        <CreateSandboxForm
          draft={state.sandbox}
          runtimes={state.runtimes}
          busy={v.createSandbox.busy}
          error={v.createSandbox.error}
          onChange={(patch) => {
            dispatch({ type: 'sandbox', patch });
            // The refusal was of the name as it was ("a sandbox billing already exists" stayed beside
            // another name, or an empty one).
            if (patch.name !== undefined) v.createSandbox.setError(undefined);
          }}
          onSubmit={() => void v.createSandbox.run()}
        />
      </div>
    </section>
  );
}

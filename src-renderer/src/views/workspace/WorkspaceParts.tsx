/**
 * The Workspace view's parts, presentational (props in, callbacks out): opening another workspace or
 * creating one, the sandbox list, and the new-sandbox form.
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import type { Runtime } from '../../store/images.ts';
import { runtimeChoices } from './workspace.ts';
import type { Recent, SandboxDraft, WorkspaceState } from './workspace.ts';
import { FormRow } from '../../components/FormRow.tsx';

export function OpenWorkspace({
  recent,
  form,
  onChange,
  onOpen,
  onChoose,
  onCreate,
}: {
  recent: Recent;
  form: Pick<WorkspaceState, 'path' | 'newPath' | 'empty' | 'busy'>;
  onChange: (patch: Partial<Pick<WorkspaceState, 'path' | 'newPath' | 'empty'>>) => void;
  onOpen: (path: string) => void;
  onChoose: () => void;
  onCreate: (path: string, empty: boolean) => void;
}) {
  const { path, newPath, empty, busy } = form;
  // An unreadable recent list set aside (said once, whichever front end asked first).
  const problem = recent.problem && (
    <p role="alert" className="error callout bad small" data-testid="recent-problem">
      {recent.problem}
    </p>
  );
  if (!recent.canOpen)
    return (
      <>
        {problem}
        <p className="muted">
          This front end opens one workspace; start it with --workspace DIR to use another.
        </p>
      </>
    );
  return (
    <>
      <h3 className="small">Recent</h3>
      {problem}
      {recent.recent.length === 0 ? (
        <p className="muted small">No other workspace opened yet.</p>
      ) : (
        <ul className="workspace-list" aria-label="recent workspaces">
          {recent.recent.map((r) => (
            <li key={r.path}>
              <button
                onClick={() => onOpen(r.path)}
                disabled={busy || !r.exists}
                aria-label={`open ${r.path}`}
              >
                Open
              </button>
              <code>{r.path}</code>
              {!r.exists && <span className="muted small">(no longer a workspace)</span>}
            </li>
          ))}
        </ul>
      )}
      <form
        className="inline-form"
        aria-label="open workspace"
        onSubmit={(e) => {
          e.preventDefault();
          if (path.trim()) onOpen(path.trim());
        }}
      >
        {recent.canChoose && (
          <button type="button" onClick={onChoose} disabled={busy}>
            Open folder…
          </button>
        )}
        <FormRow label="Workspace folder" className="grow">
          <input
            value={path}
            placeholder="/home/me/my-tools"
            onChange={(e) => onChange({ path: e.target.value })}
          />
        </FormRow>
        <button type="submit" disabled={busy || !path.trim()}>
          Open
        </button>
      </form>
      <h3 className="small">New workspace</h3>
      <form
        className="inline-form"
        aria-label="new workspace"
        onSubmit={(e) => {
          e.preventDefault();
          if (newPath.trim()) onCreate(newPath.trim(), empty);
        }}
      >
        <FormRow
          label="New folder"
          help="An absolute path; created if missing, must be empty."
          className="grow"
        >
          <input
            value={newPath}
            placeholder="/home/me/new-tools"
            onChange={(e) => onChange({ newPath: e.target.value })}
          />
        </FormRow>
        <FormRow layout="check" label="empty (no sample sandboxes)">
          <input type="checkbox" checked={empty} onChange={(e) => onChange({ empty: e.target.checked })} />
        </FormRow>
        <button type="submit" className="primary" disabled={busy || !newPath.trim()}>
          Create and open
        </button>
      </form>
    </>
  );
}

export function SandboxList({
  sandboxes,
  onOpenTools,
}: {
  sandboxes: Response<'sandboxes.list'>;
  onOpenTools: (name: string) => void;
}) {
  return (
    <>
      {sandboxes.length === 0 && <p className="muted small">No sandboxes yet: create the first one below.</p>}
      <ul className="workspace-list" aria-label="sandbox list">
        {sandboxes.map((s) => (
          <li key={s.name} data-sandbox={s.name}>
            <button onClick={() => onOpenTools(s.name)}>Tools</button>
            <strong>{s.name}</strong>
            <span className="muted small">
              {s.tools} tools{s.description ? ` · ${s.description}` : ''}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

export function CreateSandboxForm({
  draft,
  runtimes,
  busy,
  error,
  onChange,
  onSubmit,
}: {
  draft: SandboxDraft;
  runtimes: string[];
  busy: boolean;
  error: string | undefined;
  onChange: (patch: Partial<SandboxDraft>) => void;
  onSubmit: () => void;
}) {
  return (
    <form
      className="inline-form"
      aria-label="create sandbox"
      onSubmit={(e) => {
        e.preventDefault();
        if (draft.name.trim()) onSubmit();
      }}
    >
      <FormRow label="Name">
        <input
          value={draft.name}
          placeholder="billing"
          onChange={(e) => onChange({ name: e.target.value })}
        />
      </FormRow>
      <FormRow label="Runtime">
        <select value={draft.runtime} onChange={(e) => onChange({ runtime: e.target.value as Runtime })}>
          {runtimeChoices(runtimes).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </FormRow>
      <FormRow label="Description" className="grow">
        <input
          value={draft.description}
          placeholder="What its tools do"
          onChange={(e) => onChange({ description: e.target.value })}
        />
      </FormRow>
      <button type="submit" className="primary" disabled={busy || !draft.name.trim()}>
        {busy ? 'Creating…' : 'Create sandbox'}
      </button>
      {error && (
        <div role="alert" className="error" style={{ flexBasis: '100%' }}>
          {error}
        </div>
      )}
    </form>
  );
}

/**
 * Workspace: which workspace is open, recent ones, opening another (the desktop's folder dialog, or a
 * path typed in the browser front end), creating a new one (a copy of the sample, or empty), and the
 * sandboxes of this workspace with a form to create one (folder, tools.py skeleton, config entry).
 * Opening or creating a workspace switches the service, then reloads the page on it.
 */
import { useCallback, useEffect, useState } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import type { Runtime } from '../../store/images.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { useStore } from '../../store/index.ts';
import '../manage.css';

type Recent = Response<'workspace.recent'>;

const reloadOnRuns = () => {
  location.hash = '#/runs';
  location.reload();
};

function OpenWorkspace({ recent, onError }: { recent: Recent; onError: (m?: string) => void }) {
  const [path, setPath] = useState('');
  const [newPath, setNewPath] = useState('');
  const [empty, setEmpty] = useState(false);
  const [busy, setBusy] = useState(false);
  const open = async (p: string) => {
    setBusy(true);
    onError(undefined);
    try {
      await api['workspace.open']({ path: p });
      reloadOnRuns();
    } catch (e) {
      onError(errorMessage(e));
      setBusy(false);
    }
  };
  const choose = async () => {
    onError(undefined);
    try {
      const r = await api['workspace.choose']({});
      if (r.path) await open(r.path);
    } catch (e) {
      onError(errorMessage(e));
    }
  };
  const create = async () => {
    setBusy(true);
    onError(undefined);
    try {
      await api['workspace.init']({ path: newPath.trim(), empty });
      reloadOnRuns();
    } catch (e) {
      onError(errorMessage(e));
      setBusy(false);
    }
  };
  if (!recent.canOpen)
    return (
      <p className="muted">
        This front end opens one workspace; start it with --workspace DIR to use another.
      </p>
    );
  return (
    <>
      <h3 className="small">Recent</h3>
      {recent.recent.length === 0 ? (
        <p className="muted small">No other workspace opened yet.</p>
      ) : (
        <ul className="workspace-list" aria-label="recent workspaces">
          {recent.recent.map((r) => (
            <li key={r.path}>
              <button
                onClick={() => void open(r.path)}
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
          if (path.trim()) void open(path.trim());
        }}
      >
        {recent.canChoose && (
          <button type="button" onClick={() => void choose()} disabled={busy}>
            Open folder…
          </button>
        )}
        <label className="field grow">
          Workspace folder
          <input
            aria-label="workspace path"
            value={path}
            placeholder="/home/me/my-tools"
            onChange={(e) => setPath(e.target.value)}
          />
        </label>
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
          if (newPath.trim()) void create();
        }}
      >
        <label className="field grow">
          New folder (absolute path; created if missing, must be empty)
          <input
            aria-label="new workspace path"
            value={newPath}
            placeholder="/home/me/new-tools"
            onChange={(e) => setNewPath(e.target.value)}
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            aria-label="empty workspace"
            checked={empty}
            onChange={(e) => setEmpty(e.target.checked)}
          />
          empty (no sample sandboxes)
        </label>
        <button type="submit" className="primary" disabled={busy || !newPath.trim()}>
          Create and open
        </button>
      </form>
    </>
  );
}

function CreateSandbox({ runtimes, onCreated }: { runtimes: string[]; onCreated: (name: string) => void }) {
  const [name, setName] = useState('');
  const [runtime, setRuntime] = useState<Runtime>('python');
  const [description, setDescription] = useState('');
  const {
    busy,
    error,
    run: submit,
  } = useSubmit(async () => {
    const r = await api['sandboxes.create']({ name: name.trim(), runtime, description });
    setName('');
    setDescription('');
    onCreated(r.name);
  });
  return (
    <form
      className="inline-form"
      aria-label="create sandbox"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) void submit();
      }}
    >
      <label className="field">
        Name
        <input
          aria-label="sandbox name"
          value={name}
          placeholder="billing"
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <label className="field">
        Runtime
        <select
          aria-label="sandbox runtime"
          value={runtime}
          onChange={(e) => setRuntime(e.target.value as Runtime)}
        >
          {(runtimes.length ? runtimes : ['python']).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label className="field grow">
        Description
        <input
          aria-label="sandbox description"
          value={description}
          placeholder="What its tools do"
          onChange={(e) => setDescription(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" disabled={busy || !name.trim()}>
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

export function WorkspaceView() {
  const info = useStore((s) => s.info);
  const sandboxes = useStore((s) => s.sandboxes);
  const loadApp = useStore((s) => s.loadApp);
  const navigate = useStore((s) => s.navigate);
  const [recent, setRecent] = useState<Recent>();
  const [runtimes, setRuntimes] = useState<string[]>([]);
  const [error, setError] = useState<string>();
  const load = useCallback(async () => {
    try {
      const [r, s] = await Promise.all([api['workspace.recent']({}), api['settings.get']({})]);
      setRecent(r);
      setRuntimes(s.runtimes.filter((x) => x.enabled).map((x) => x.id));
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => void load(), [load]);
  return (
    <section aria-label="workspace" className="manage-view">
      <div className="view-head">
        <h1>Workspace</h1>
      </div>
      <div className="manage-panel" role="region" aria-label="workspaces">
        <h2>{info?.name ?? 'Workspace'}</h2>
        <p>
          Open: <code data-testid="current-workspace">{info?.workspace ?? recent?.current ?? '…'}</code>
        </p>
        {error && (
          <div role="alert" className="error">
            {error}
          </div>
        )}
        {recent && <OpenWorkspace recent={recent} onError={setError} />}
      </div>
      <div className="manage-panel" role="region" aria-label="sandboxes">
        <h2>Sandboxes</h2>
        {sandboxes.length === 0 && (
          <p className="muted small">No sandboxes yet: create the first one below.</p>
        )}
        <ul className="workspace-list" aria-label="sandbox list">
          {sandboxes.map((s) => (
            <li key={s.name} data-sandbox={s.name}>
              <button onClick={() => navigate({ view: 'tools', id: s.name })}>Tools</button>
              <strong>{s.name}</strong>
              <span className="muted small">
                {s.tools} tools{s.description ? ` · ${s.description}` : ''}
              </span>
            </li>
          ))}
        </ul>
        <CreateSandbox
          runtimes={runtimes}
          onCreated={(name) => {
            void loadApp().then(() => navigate({ view: 'tools', id: name }));
          }}
        />
      </div>
    </section>
  );
}

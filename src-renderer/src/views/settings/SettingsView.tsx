/**
 * Settings: the LLM providers and where their keys come from (with a form to set a key), the pool,
 * limits and runtimes of `.toolsmith/config.toml` (read-only), and the sandbox's state: Docker, the
 * isolation level, images (built here, with the build's output streamed as pushed events) and pools.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { IsolationLevel } from '../../../../src-main/core/sandbox/execution.ts';
import { api } from '../../api/client.ts';
import { IsolationBadge } from '../../components/Badges.tsx';
import { GradeBadge } from '../../components/GradeBadge.tsx';
import { SandboxDeps } from './SandboxDeps.tsx';
import { ProvidersEditor } from './ProvidersEditor.tsx';
import type { Runtime } from '../../store/images.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { useStore } from '../../store/index.ts';
import type { Settings } from '../../store/settings.ts';
import '../manage.css';

const KEY_SOURCE: Record<Settings['providers'][number]['keySource'], { label: string; title: string }> = {
  env: { label: 'environment', title: 'The key comes from the environment variable named in the config.' },
  keychain: { label: 'keychain', title: 'Stored in the OS keychain by the desktop app.' },
  memory: {
    label: 'set in this process',
    title: 'Set from this workbench: held in memory by the service process until it stops.',
  },
  none: { label: 'no key', title: 'No key: set one below, or export the environment variable.' },
};

function KeyValues({ label, values }: { label: string; values: Record<string, number> }) {
  const entries = Object.entries(values);
  return (
    <div>
      <h3 className="small">{label}</h3>
      {entries.length === 0 ? (
        <p className="muted small">none</p>
      ) : (
        <table className="kv-table small" aria-label={label}>
          <tbody>
            {entries.map(([k, v]) => (
              <tr key={k}>
                <th>
                  <code>{k}</code>
                </th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function ProviderKeyForm({ settings, onStored }: { settings: Settings; onStored: () => void }) {
  const [provider, setProvider] = useState(settings.providers[0]?.id ?? '');
  const [key, setKey] = useState('');
  const [stored, setStored] = useState<{ provider: string; where: 'keychain' | 'memory' }>();
  const { busy, error, run } = useSubmit(async () => {
    setStored(undefined);
    const r = await api['settings.setProviderKey']({ provider, key });
    setStored({ provider, where: r.where });
    setKey('');
    onStored();
  });
  useEffect(() => {
    if (!settings.providers.some((p) => p.id === provider)) setProvider(settings.providers[0]?.id ?? '');
  }, [settings, provider]);
  if (settings.providers.length === 0) return null;
  const submit = async () => {
    if (!provider || !key || busy) return;
    await run();
  };
  return (
    <form
      className="key-form"
      aria-label="set provider key"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="field">
        Provider
        <select aria-label="key provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
          {settings.providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        API key
        <input
          aria-label="api key"
          type="password"
          autoComplete="off"
          value={key}
          placeholder="paste the key"
          onChange={(e) => setKey(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" disabled={!provider || !key || busy}>
        {busy ? 'Storing…' : 'Set key'}
      </button>
      {error && (
        <div role="alert" className="error" style={{ flexBasis: '100%' }}>
          Could not set the key: {error}
        </div>
      )}
      {stored && (
        <div role="status" className="callout good" style={{ flexBasis: '100%' }} data-testid="key-stored">
          Key for <strong>{stored.provider}</strong> stored in{' '}
          <strong data-testid="key-stored-where">{stored.where}</strong>
          {stored.where === 'memory'
            ? ': this process only. In the browser front end keys live in the Toolsmith service process (never in the page or on disk) and are gone when it stops; for a lasting key, export the environment variable named in the config (api_key_env) or use the desktop app, which stores keys in the OS keychain.'
            : ': the OS keychain of this desktop, used again the next time the app starts.'}
        </div>
      )}
    </form>
  );
}

function ProvidersSection({ settings, onStored }: { settings: Settings; onStored: () => void }) {
  return (
    <div className="manage-panel" role="region" aria-label="providers">
      <h2>LLM providers</h2>
      <p className="muted small">
        Tried in this order by the LLM tier. Changes are saved to <code>.toolsmith/config.toml</code> and used
        by the next run; keys are never written to the config file.
      </p>
      <ProvidersEditor
        settings={settings}
        onChanged={onStored}
        keyBadge={(p) => (
          <span
            className={`badge ${p.keySource === 'none' ? 'status-cancelled' : 'status-succeeded'}`}
            title={KEY_SOURCE[p.keySource].title}
            data-key-source={p.keySource}
          >
            {KEY_SOURCE[p.keySource].label}
          </span>
        )}
      />
      <ProviderKeyForm settings={settings} onStored={onStored} />
    </div>
  );
}

function ConfigSection({ settings, workspace }: { settings: Settings; workspace?: string }) {
  return (
    <div className="manage-panel" role="region" aria-label="configuration">
      <h2>Pool, limits and runtimes</h2>
      <p className="muted small">
        Read-only here: edit{' '}
        <code>{workspace ? `${workspace}/.toolsmith/config.toml` : '.toolsmith/config.toml'}</code> and
        restart Toolsmith.
      </p>
      <div className="settings-columns">
        <KeyValues label="pool" values={settings.pool} />
        <KeyValues label="limits" values={settings.limits} />
        <div>
          <h3 className="small">runtimes</h3>
          {settings.runtimes.length === 0 ? (
            <p className="muted small">none</p>
          ) : (
            <table className="kv-table small" aria-label="runtimes">
              <tbody>
                {settings.runtimes.map((r) => (
                  <tr key={r.id} data-runtime={r.id}>
                    <th>
                      <code>{r.id}</code>
                    </th>
                    <td className={r.enabled ? 'ok' : 'muted'}>{r.enabled ? 'enabled' : 'disabled'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
        <div>
          <h3 className="small">max kit grade</h3>
          {settings.maxGrade ? (
            <GradeBadge grade={settings.maxGrade} label="max" />
          ) : (
            <p className="muted small">none: every grade allowed</p>
          )}
        </div>
      </div>
    </div>
  );
}

function SandboxSection() {
  const status = useStore((s) => s.status);
  const statusError = useStore((s) => s.statusError);
  const loadStatus = useStore((s) => s.loadStatus);
  const builds = useStore((s) => s.imageBuilds);
  const build = useStore((s) => s.buildImage);
  const clearBuilds = useStore((s) => s.clearBuilds);
  const [refreshing, setRefreshing] = useState(false);
  const logRefs = useRef<Record<string, HTMLPreElement | null>>({});

  const refresh = useCallback(async () => {
    setRefreshing(true);
    await loadStatus();
    setRefreshing(false);
  }, [loadStatus]);
  useEffect(() => void refresh(), [refresh]);

  // The view starts without builds, and forgets them when it closes (their logs arrive as pushes).
  useEffect(() => {
    clearBuilds();
    return clearBuilds;
  }, [clearBuilds]);
  useEffect(() => {
    for (const el of Object.values(logRefs.current)) if (el) el.scrollTop = el.scrollHeight;
  }, [builds]);

  const runtimes: { runtime: string; tag?: string; present?: boolean }[] = status?.images.length
    ? status.images
    : status?.docker.available === false
      ? []
      : [{ runtime: 'python' }, { runtime: 'node' }];
  return (
    <div className="manage-panel" role="region" aria-label="sandbox">
      <div className="view-head">
        <h2>Sandbox</h2>
        <span className="spacer" />
        <button onClick={() => void refresh()} disabled={refreshing}>
          {refreshing ? 'Checking…' : 'Refresh'}
        </button>
      </div>
      {statusError && (
        <div role="alert" className="error callout bad">
          Could not get the sandbox status: {statusError}
        </div>
      )}
      {!status && !statusError && <p className="muted">Checking Docker…</p>}
      {status && (
        <>
          <div
            className="meta-line"
            data-testid="docker-state"
            data-docker={status.docker.available ? 'available' : 'missing'}
          >
            {status.docker.available ? (
              <span className="badge status-succeeded">
                Docker available{status.docker.version ? ` · ${status.docker.version}` : ''}
              </span>
            ) : (
              <span className="badge status-failed">Docker not available</span>
            )}
            <IsolationBadge level={status.isolation as IsolationLevel} />
          </div>
          {status.docker.available && status.isolation === 'docker' && (
            <p className="muted small">
              Scripts run in hardened Docker containers (no network, read-only, limited).
            </p>
          )}
          {!status.docker.available && (
            <div className="callout bad" role="note" data-testid="docker-missing">
              <p>
                <strong>
                  No Docker engine answers{status.docker.error ? `: ${status.docker.error}` : '.'}
                </strong>
              </p>
              {status.docker.hint && <p>What to do: {status.docker.hint}</p>}
              <p>
                Until then scripts run in the{' '}
                <strong>{status.isolation === 'none' ? 'no' : status.isolation}</strong> fallback, whose
                isolation is weaker than Docker&apos;s: no container, no network namespace or cgroup limits —
                only use it with scripts and tools you trust.
              </p>
            </div>
          )}
          {status.docker.available && status.isolation !== 'docker' && (
            <div className="callout" role="note">
              Docker answers, but scripts run with isolation <strong>{status.isolation}</strong>, which is
              weaker than a Docker container.
            </div>
          )}

          <h3 className="small">Images</h3>
          {runtimes.length === 0 ? (
            <p className="muted small">Images need Docker.</p>
          ) : (
            <table className="manage-table" aria-label="images">
              <thead>
                <tr>
                  <th>runtime</th>
                  <th>tag</th>
                  <th>present</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {runtimes.map((img) => {
                  const b = builds[img.runtime];
                  return (
                    <tr key={img.runtime} data-image={img.runtime}>
                      <td>{img.runtime}</td>
                      <td className="small">
                        <code>{img.tag ?? '—'}</code>
                      </td>
                      <td>
                        {img.present === undefined ? (
                          <span className="muted">unknown</span>
                        ) : img.present ? (
                          <span className="present-yes">present</span>
                        ) : (
                          <span className="present-no">missing: build it</span>
                        )}
                      </td>
                      <td>
                        <button
                          disabled={!status.docker.available || b?.running}
                          title={status.docker.available ? `Build the ${img.runtime} image` : 'Needs Docker'}
                          onClick={() => void build(img.runtime as Runtime)}
                        >
                          {b?.running ? 'Building…' : img.present ? 'Rebuild' : 'Build'}
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {Object.entries(builds).map(([rt, b]) =>
            b ? (
              <div key={rt} data-build={rt}>
                <div className="meta-line small">
                  <strong>Build of the {rt} image</strong>
                  {b.running && <span className="badge status-running">running</span>}
                  {!b.running && !b.error && (
                    <span className="badge status-succeeded">done{b.tag ? ` · ${b.tag}` : ''}</span>
                  )}
                  {!b.running && b.error && <span className="badge status-failed">failed</span>}
                </div>
                {b.error && (
                  <div role="alert" className="error small">
                    {b.error}
                  </div>
                )}
                <pre
                  className="build-log"
                  role="log"
                  aria-label={`build log ${rt}`}
                  ref={(el) => {
                    logRefs.current[rt] = el;
                  }}
                >
                  {b.lines.join('\n')}
                </pre>
              </div>
            ) : null,
          )}
          <SandboxDeps dockerAvailable={status.docker.available} />

          <h3 className="small">Pools</h3>
          {status.pools.length === 0 ? (
            <p className="muted small">
              No pool is running: a sandbox&apos;s pool starts with its first script.
            </p>
          ) : (
            <table className="manage-table" aria-label="pools">
              <thead>
                <tr>
                  <th>sandbox</th>
                  <th className="num">size</th>
                  <th className="num">idle</th>
                  <th className="num">busy</th>
                  <th className="num">queued</th>
                  <th
                    className="num"
                    title="started and loaded beside the pool, promoted at once when a worker breaks"
                  >
                    standby
                  </th>
                  <th className="num">replaced</th>
                </tr>
              </thead>
              <tbody>
                {status.pools.map((p) => (
                  <tr key={p.sandbox}>
                    <td>{p.sandbox}</td>
                    <td className="num">{p.size}</td>
                    <td className="num">{p.idle}</td>
                    <td className="num">{p.busy}</td>
                    <td className={`num ${p.queued ? 'warn' : ''}`}>{p.queued}</td>
                    <td className="num">
                      {p.standbyTarget === 0
                        ? 'off'
                        : `${p.standby}/${p.standbyTarget}${p.standbyStarting ? ' (starting)' : ''}`}
                    </td>
                    <td className="num">{p.replaced}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </div>
  );
}

export function SettingsView() {
  const info = useStore((s) => s.info);
  const settings = useStore((s) => s.settings);
  const loading = useStore((s) => s.settingsLoading);
  const error = useStore((s) => s.settingsError);
  const reload = useStore((s) => s.loadSettings);
  useEffect(() => void reload(), [reload]);

  return (
    <section aria-label="settings" className="manage-view settings-view">
      <div className="view-head">
        <h1>Settings</h1>
        <button onClick={() => void reload()} disabled={loading}>
          {loading ? 'Loading…' : 'Reload'}
        </button>
      </div>
      {error && (
        <div role="alert" className="error callout bad">
          Could not load the settings: {error} <button onClick={() => void reload()}>Retry</button>
        </div>
      )}
      {!settings && loading && <p className="muted">Loading settings…</p>}
      {settings && <ProvidersSection settings={settings} onStored={() => void reload()} />}
      <SandboxSection />
      {settings && <ConfigSection settings={settings} {...(info ? { workspace: info.workspace } : {})} />}
    </section>
  );
}

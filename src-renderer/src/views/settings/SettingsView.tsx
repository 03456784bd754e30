/**
 * Settings: the LLM providers and where their keys come from (with a form to set a key), the pool,
 * limits and runtimes of `.toolsmith/config.toml` (read-only), and the sandbox's state: Docker, the
 * isolation level, images (built here, with the build's output streamed as pushed events) and pools.
 */
import { GradeBadge } from '../../components/GradeBadge.tsx';
import { useStore } from '../../store/index.ts';
import type { Settings } from '../../store/settings.ts';
import { SandboxSection } from './SandboxSection.tsx';
import { ProvidersSection } from './ProvidersSection.tsx';
import '../manage.css';
import { useLoadOnMount } from '../../lib/useLoad.ts';

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

function ConfigSection({ settings, workspace }: { settings: Settings; workspace?: string }) {
  return (
    <div className="manage-panel" role="region" aria-label="configuration">
      <h2>Pool, limits and runtimes</h2>
      <p className="muted small">
        Read-only here: edit{' '}
        <code>{workspace ? `${workspace}/.toolsmith/config.toml` : '.toolsmith/config.toml'}</code>; a saved
        edit applies at once, no restart needed.
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

export function SettingsView() {
  const info = useStore((s) => s.info);
  const settings = useStore((s) => s.settings);
  const loading = useStore((s) => s.settingsLoading);
  const error = useStore((s) => s.settingsError);
  const reload = useStore((s) => s.loadSettings);
  useLoadOnMount(reload);

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

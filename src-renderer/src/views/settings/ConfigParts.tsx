/**
 * Settings › Pool, limits and runtimes, presentational: the read-only values of
 * `.toolsmith/config.toml` in columns (a column is never narrower than its table: they used to overlap
 * at 1440 px, a value touching the next column's names).
 */
import { GradeBadge } from '../../components/GradeBadge.tsx';
import type { Settings } from '../../store/settings.ts';
import '../manage.css';

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

export function ConfigSection({ settings, workspace }: { settings: Settings; workspace?: string }) {
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

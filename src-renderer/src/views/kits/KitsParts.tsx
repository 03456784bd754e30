/**
 * Parts of the Kits view, presentational (props in, callbacks out): the head with the workspace's
 * maximum grade, and the kits of a sandbox as cards (a refused kit with its reason).
 */
import { GradeBadge } from '../../components/GradeBadge.tsx';
import { overMax } from './kit.ts';
import type { Grade, Kit } from './kit.ts';

export function KitsHead({
  maxGrade,
  settingsKnown,
  settingsError,
  loading,
  canCreate,
  onReload,
  onNew,
}: {
  maxGrade: Grade | undefined;
  /** The settings arrived (no max grade then means none is set). */
  settingsKnown: boolean;
  settingsError: string | undefined;
  loading: boolean;
  /** The workspace has a sandbox to make a kit of. */
  canCreate: boolean;
  onReload: () => void;
  onNew: () => void;
}) {
  return (
    <div className="view-head">
      <h1>Kits</h1>
      <span className="meta-line" data-testid="max-grade">
        <span className="small">Workspace max grade</span>
        {maxGrade ? (
          <GradeBadge grade={maxGrade} label="max" />
        ) : settingsKnown ? (
          <span className="muted small">none (every grade allowed)</span>
        ) : settingsError ? (
          <span className="error small" title={settingsError}>
            unknown
          </span>
        ) : (
          <span className="muted small">…</span>
        )}
      </span>
      <button onClick={onReload} disabled={loading}>
        {loading ? 'Loading…' : 'Reload'}
      </button>
      <button
        className="primary"
        disabled={!canCreate}
        title={canCreate ? undefined : 'The workspace has no sandbox'}
        onClick={onNew}
      >
        New kit
      </button>
    </div>
  );
}

export function KitGroup({
  sandbox,
  kits,
  maxGrade,
  onEdit,
}: {
  sandbox: string;
  kits: Kit[];
  maxGrade: Grade | undefined;
  onEdit: (kit: Kit) => void;
}) {
  return (
    <div>
      <h2>
        {sandbox || '(no sandbox)'}{' '}
        <span className="muted small">
          {kits.length} kit{kits.length > 1 ? 's' : ''}
        </span>
      </h2>
      <div className="kit-cards">
        {kits.map((k) => (
          <KitCard key={k.name} kit={k} maxGrade={maxGrade} onEdit={() => onEdit(k)} />
        ))}
      </div>
    </div>
  );
}

export function KitCard({
  kit: k,
  maxGrade,
  onEdit,
}: {
  kit: Kit;
  maxGrade: Grade | undefined;
  onEdit: () => void;
}) {
  return (
    <article
      className={`kit-card ${k.error ? 'refused' : ''}`}
      data-kit={k.name}
      aria-label={`kit ${k.name}`}
    >
      <div className="kit-head">
        <h2>{k.name}</h2>
        {k.kit && <GradeBadge grade={k.kit.grade} over={overMax(k.kit.grade, maxGrade)} />}
        {k.error && <span className="badge status-failed">refused</span>}
        <span className="spacer" />
        <button onClick={onEdit}>Edit</button>
      </div>
      {k.kit?.description && <p className="small">{k.kit.description}</p>}
      {k.error && (
        <p className="error small" role="note" data-testid="kit-error">
          {k.error}
        </p>
      )}
      {k.kit && (
        <table className="manage-table small" aria-label={`tools of ${k.name}`}>
          <tbody>
            {k.kit.tools.map((t) => (
              <tr key={t.alias}>
                <td>
                  <code>{t.alias}</code>
                  {t.group && <span className="muted"> ({t.group})</span>}
                </td>
                <td className="muted">{t.alias === t.tool.name ? '' : `→ ${t.tool.name}`}</td>
                <td>
                  <GradeBadge grade={t.tool.grade} small />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}

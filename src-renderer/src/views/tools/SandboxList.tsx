/**
 * The Tools view's sandbox list: each sandbox with its tool and problem counts and a mark for unsaved
 * edits, and a refresh.
 */
import { useSubmit } from '../../lib/useSubmit.ts';
import { useStore } from '../../store/index.ts';
import { drafts } from './drafts.ts';

export function SandboxList({
  selected,
  onSelect,
}: {
  selected: string | undefined;
  onSelect: (s: string) => void;
}) {
  const sandboxes = useStore((s) => s.sandboxes);
  const info = useStore((s) => s.info);
  const reloadSandboxes = useStore((s) => s.reloadSandboxes);
  const { busy: refreshing, error, run: refresh } = useSubmit(reloadSandboxes);
  return (
    <aside className="sandbox-list" aria-label="sandboxes">
      <div className="meta-line">
        <strong>Sandboxes</strong>
        <span className="spacer" />
        <button className="link small" onClick={() => void refresh()} disabled={refreshing}>
          {refreshing ? 'refreshing…' : 'refresh'}
        </button>
      </div>
      {error && (
        <div role="alert" className="error small">
          Could not list sandboxes: {error}
        </div>
      )}
      {sandboxes.length === 0 ? (
        <p className="muted small">
          {info ? (
            <>
              This workspace has no sandboxes. Create <code>sandboxes/&lt;name&gt;/tools.py</code> in{' '}
              <code>{info.workspace}</code>.
            </>
          ) : (
            'Loading sandboxes…'
          )}
        </p>
      ) : (
        <ul>
          {sandboxes.map((s) => (
            <li key={s.name}>
              <button
                className={`sandbox-item ${s.name === selected ? 'active' : ''}`}
                aria-current={s.name === selected ? 'true' : undefined}
                data-sandbox={s.name}
                onClick={() => onSelect(s.name)}
                title={s.description}
              >
                <span className="sandbox-name">
                  {s.name}
                  {drafts.has(s.name) && (
                    <span className="dirty-dot" title="unsaved changes">
                      {' '}
                      ●
                    </span>
                  )}
                </span>
                <span className="muted small">
                  {s.tools} tool{s.tools === 1 ? '' : 's'}
                  {s.problems > 0 && <span className="error"> · {s.problems} problems</span>}
                </span>
                {s.description && <span className="small ellipsis muted">{s.description}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}

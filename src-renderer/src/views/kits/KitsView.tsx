/**
 * Kits: named subsets of a sandbox's tools with aliases, and their grade (w, d), which the service
 * enforces against the workspace's maximum. Lists every kit (a refused one with its reason), creates
 * and edits kits as `alias -> tool` rows.
 */
import { useEffect, useState } from 'react';
import { GradeBadge } from '../../components/GradeBadge.tsx';
import { KitEditor } from './KitEditor.tsx';
import { useStore } from '../../store/index.ts';
import { draftOf, overMax } from './kit.ts';
import type { KitDraft } from './kit.ts';
import '../manage.css';

type EditorState = { key: string; mode: 'new' | 'edit'; draft: KitDraft; note?: string };

export function KitsView() {
  const sandboxes = useStore((s) => s.sandboxes);
  const notify = useStore((s) => s.notify);
  const kits = useStore((s) => s.kits);
  const settings = useStore((s) => s.settings);
  const loading = useStore((s) => s.kitsLoading);
  const loadError = useStore((s) => s.kitsError);
  const settingsError = useStore((s) => s.settingsError);
  const reload = useStore((s) => s.loadKits);
  const [editor, setEditor] = useState<EditorState>();
  useEffect(() => void reload(), [reload]);

  const maxGrade = settings?.maxGrade;
  const sandboxNames = sandboxes.map((s) => s.name);
  const list = kits ?? [];
  const bySandbox = sandboxNames
    .concat(list.map((k) => k.sandbox).filter((s) => !sandboxNames.includes(s)))
    .filter((s, i, all) => all.indexOf(s) === i);

  return (
    <section aria-label="kits" className="manage-view kits-view">
      <div className="view-head">
        <h1>Kits</h1>
        <span className="meta-line" data-testid="max-grade">
          <span className="small">Workspace max grade</span>
          {maxGrade ? (
            <GradeBadge grade={maxGrade} label="max" />
          ) : settings ? (
            <span className="muted small">none (every grade allowed)</span>
          ) : settingsError ? (
            <span className="error small" title={settingsError}>
              unknown
            </span>
          ) : (
            <span className="muted small">…</span>
          )}
        </span>
        <button onClick={() => void reload()} disabled={loading}>
          {loading ? 'Loading…' : 'Reload'}
        </button>
        <button
          className="primary"
          disabled={sandboxNames.length === 0}
          title={sandboxNames.length ? undefined : 'The workspace has no sandbox'}
          onClick={() =>
            setEditor({
              key: `new-${Date.now()}`,
              mode: 'new',
              draft: { name: '', sandbox: sandboxNames[0] ?? '', description: '', rows: [] },
            })
          }
        >
          New kit
        </button>
      </div>
      <p className="muted small">
        A kit is the set of tools a script may call, under the names it calls them. Grade <strong>w</strong>{' '}
        is how far the tools reach into the world, <strong>d</strong> the worst effect they can have (0..2
        each); a kit above the workspace maximum (<code>max_grade</code> in{' '}
        <code>.toolsmith/config.toml</code>) is refused.
      </p>
      {settingsError && (
        <div role="alert" className="error small">
          Could not read the settings (max grade): {settingsError}
        </div>
      )}

      {editor && (
        <KitEditor
          key={editor.key}
          mode={editor.mode}
          initial={editor.draft}
          sandboxes={sandboxNames}
          existing={list.map((k) => k.name)}
          {...(maxGrade ? { maxGrade } : {})}
          {...(editor.note ? { note: editor.note } : {})}
          onCancel={() => setEditor(undefined)}
          onSaved={(r) => {
            notify('info', `Kit ${r.name} saved to ${r.file}.`);
            setEditor(undefined);
            void reload();
          }}
        />
      )}

      {loadError && (
        <div role="alert" className="error callout bad">
          Could not load the kits: {loadError} <button onClick={() => void reload()}>Retry</button>
        </div>
      )}
      {!kits && loading && <p className="muted">Loading kits…</p>}
      {kits && kits.length === 0 && (
        <p className="muted empty" data-testid="kits-empty">
          No kits yet: scripts see every tool of their sandbox. Create one with <em>New kit</em>.
        </p>
      )}
      {bySandbox.map((sb) => {
        const group = list.filter((k) => k.sandbox === sb);
        if (group.length === 0) return null;
        return (
          <div key={sb || '(none)'}>
            <h2>
              {sb || '(no sandbox)'}{' '}
              <span className="muted small">
                {group.length} kit{group.length > 1 ? 's' : ''}
              </span>
            </h2>
            <div className="kit-cards">
              {group.map((k) => (
                <article
                  key={k.name}
                  className={`kit-card ${k.error ? 'refused' : ''}`}
                  data-kit={k.name}
                  aria-label={`kit ${k.name}`}
                >
                  <div className="kit-head">
                    <h2>{k.name}</h2>
                    {k.kit && <GradeBadge grade={k.kit.grade} over={overMax(k.kit.grade, maxGrade)} />}
                    {k.error && <span className="badge status-failed">refused</span>}
                    <span className="spacer" />
                    <button
                      onClick={() =>
                        setEditor({ key: `edit-${k.name}-${Date.now()}`, mode: 'edit', ...draftOf(k) })
                      }
                    >
                      Edit
                    </button>
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
              ))}
            </div>
          </div>
        );
      })}
    </section>
  );
}

/**
 * Kits: named subsets of a sandbox's tools with aliases, and their grade (w, d), which the service
 * enforces against the workspace's maximum. Lists every kit (a refused one with its reason), creates
 * and edits kits as `alias -> tool` rows. State and actions: useKits.ts (on the pure kits.ts); parts:
 * KitsParts.tsx, the editor KitEditor.tsx.
 */
import { KitEditor } from './KitEditor.tsx';
import { KitGroup, KitsHead } from './KitsParts.tsx';
import { editorDraft } from './kits.ts';
import { useKits } from './useKits.ts';
import '../manage.css';

export function KitsView() {
  const v = useKits();
  const { editor } = v.state;
  const { maxGrade } = v;
  return (
    <section aria-label="kits" className="manage-view kits-view">
      <KitsHead
        maxGrade={maxGrade}
        settingsKnown={v.settingsKnown}
        settingsError={v.settingsError}
        loading={v.loading}
        canCreate={v.sandboxNames.length > 0}
        onReload={v.reload}
        onNew={v.newKit}
      />
      <p className="muted small">
        A kit is the set of tools a script may call, under the names it calls them. Grade <strong>w</strong>{' '}
        is how far the tools reach into the world, <strong>d</strong> the worst effect they can have (0..2
        each); a kit above the workspace maximum (<code>max_grade</code> in{' '}
        <code>.toolsmith/config.toml</code>) is refused.
      </p>
      {v.settingsError && (
        <div role="alert" className="error small">
          Could not read the settings (max grade): {v.settingsError}
        </div>
      )}

      {editor && (
        <KitEditor
          key={editor.key}
          mode={editor.mode}
          initial={editorDraft(editor)}
          sandboxes={v.sandboxNames}
          existing={v.list.map((k) => k.name)}
          {...(maxGrade ? { maxGrade } : {})}
          {...(editor.note ? { note: editor.note } : {})}
          onCancel={v.close}
          onSaved={v.saved}
          onDraft={v.drafted}
        />
      )}

      {v.loadError && (
        <div role="alert" className="error callout bad">
          Could not load the kits: {v.loadError} <button onClick={v.reload}>Retry</button>
        </div>
      )}
      {!v.kits && v.loading && <p className="muted">Loading kits…</p>}
      {v.kits && v.kits.length === 0 && (
        <p className="muted empty" data-testid="kits-empty">
          No kits yet: scripts see every tool of their sandbox. Create one with <em>New kit</em>.
        </p>
      )}
      {v.groups.map((g) => (
        <KitGroup
          key={g.sandbox || '(none)'}
          sandbox={g.sandbox}
          kits={g.kits}
          maxGrade={maxGrade}
          onEdit={v.edit}
        />
      ))}
    </section>
  );
}

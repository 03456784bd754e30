/**
 * Create or edit a kit: name, sandbox, description and `alias -> tool` rows chosen from the sandbox's
 * tools. The grade (element-wise max of the chosen tools' grades) is previewed against the workspace's
 * maximum; the service decides, and its refusal is shown inline. State and actions: useKitEditor.ts (on
 * the pure kit-editor.ts); parts: KitEditorParts.tsx.
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import { KitFields, KitGradeLine, KitSaveBar, KitToolRows } from './KitEditorParts.tsx';
import type { KitDraft } from './kit.ts';
import { useKitEditor } from './useKitEditor.ts';

export type { KitDraft } from './kit.ts';

export function KitEditor({
  mode,
  initial,
  sandboxes,
  existing,
  maxGrade,
  note,
  onSaved,
  onCancel,
  onDraft,
}: {
  mode: 'new' | 'edit';
  initial: KitDraft;
  sandboxes: string[];
  existing: string[];
  maxGrade?: { w: number; d: number };
  note?: string;
  onSaved: (r: Response<'kits.save'>) => void;
  onCancel: () => void;
  /** The draft as it changes (the view keeps it when it is left, and asks before dropping it). */
  onDraft: (draft: KitDraft) => void;
}) {
  const e = useKitEditor({ mode, initial, existing, maxGrade, onSaved, onDraft });
  const { draft, tools, toolsError } = e.state;
  return (
    <div
      className="manage-panel kit-editor"
      role="region"
      aria-label={mode === 'new' ? 'new kit' : `edit kit ${initial.name}`}
      data-testid="kit-editor"
    >
      <h2>{mode === 'new' ? 'New kit' : `Edit kit ${initial.name}`}</h2>
      {note && <p className="muted small">{note}</p>}
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          void e.submit();
        }}
      >
        <KitFields
          mode={mode}
          draft={draft}
          sandboxes={sandboxes}
          taken={e.taken}
          onChange={(patch) => e.dispatch({ type: 'set', patch })}
          onSandbox={(sandbox) => e.dispatch({ type: 'sandbox', sandbox })}
        />
        <KitToolRows
          sandbox={draft.sandbox}
          rows={draft.rows}
          rowTools={e.rowTools}
          tools={tools}
          toolsError={toolsError}
          onAlias={(index, alias) => e.dispatch({ type: 'alias', index, alias })}
          onTool={(index, tool) => e.dispatch({ type: 'tool', index, tool })}
          onRemove={(index) => e.dispatch({ type: 'removeRow', index })}
          onAdd={() => e.dispatch({ type: 'addRow' })}
          onAll={() => e.dispatch({ type: 'allTools' })}
        />
        <KitGradeLine grade={e.grade} over={e.over} maxGrade={maxGrade} />
        <KitSaveBar problems={e.problems} saving={e.saving} error={e.error} onCancel={onCancel} />
      </form>
    </div>
  );
}

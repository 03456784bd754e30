/**
 * Parts of the kit editor, presentational (props in, callbacks out): name, sandbox and description,
 * the `alias -> tool` rows with the sandbox's tools, the grade against the workspace maximum, and the
 * save bar with what stops a save.
 */
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { GradeBadge } from '../../components/GradeBadge.tsx';
import type { Grade, KitDraft } from './kit.ts';
import { CannotSave } from '../../components/CannotSave.tsx';
import { FormRow } from '../../components/FormRow.tsx';

export function KitFields({
  mode,
  draft,
  sandboxes,
  taken,
  onChange,
  onSandbox,
}: {
  mode: 'new' | 'edit';
  draft: KitDraft;
  sandboxes: string[];
  taken: boolean;
  onChange: (patch: { name?: string; description?: string }) => void;
  onSandbox: (sandbox: string) => void;
}) {
  return (
    <>
      <div className="grid">
        <FormRow label="Name">
          <input
            value={draft.name}
            readOnly={mode === 'edit'}
            onChange={(e) => onChange({ name: e.target.value })}
            spellCheck={false}
            placeholder="lookup"
          />
        </FormRow>
        <FormRow label="Sandbox">
          <select value={draft.sandbox} onChange={(e) => onSandbox(e.target.value)}>
            {!draft.sandbox && <option value="">pick a sandbox</option>}
            {sandboxes.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </FormRow>
        <FormRow label="Description">
          <input
            value={draft.description}
            placeholder="what this kit is for"
            onChange={(e) => onChange({ description: e.target.value })}
          />
        </FormRow>
      </div>
      {taken && <p className="warn small">A kit named {draft.name} exists: saving replaces its file.</p>}
    </>
  );
}

export function KitToolRows({
  sandbox,
  rows,
  rowTools,
  tools,
  toolsError,
  onAlias,
  onTool,
  onRemove,
  onAdd,
  onAll,
}: {
  sandbox: string;
  rows: KitDraft['rows'];
  /** The sandbox tool of each row (undefined: none picked, or not in the sandbox). */
  rowTools: (SandboxTool | undefined)[];
  /** The sandbox's tools; undefined while they load. */
  tools: SandboxTool[] | undefined;
  toolsError: string | undefined;
  onAlias: (index: number, alias: string) => void;
  onTool: (index: number, tool: string) => void;
  onRemove: (index: number) => void;
  onAdd: () => void;
  onAll: () => void;
}) {
  const none = !tools || tools.length === 0;
  return (
    <>
      <h3 className="small">Tools (alias → sandbox tool)</h3>
      <p className="muted small">
        Scripts call the alias; the kit&apos;s grade is the maximum of its tools&apos; grades.
      </p>
      {toolsError && (
        <div role="alert" className="error">
          Could not list the tools of {sandbox}: {toolsError}
        </div>
      )}
      {sandbox && !tools && !toolsError && <p className="muted small">Loading the tools…</p>}
      {tools && tools.length === 0 && <p className="warn small">The sandbox {sandbox} has no tools.</p>}
      <div className="tool-rows" aria-label="kit tools">
        {rows.map((row, i) => {
          const t = rowTools[i];
          return (
            <div className="tool-row" key={i} data-row={i}>
              <input
                aria-label={`alias ${i + 1}`}
                value={row.alias}
                placeholder="alias"
                spellCheck={false}
                onChange={(e) => onAlias(i, e.target.value)}
              />
              <span className="arrow">→</span>
              <select
                aria-label={`tool ${i + 1}`}
                value={row.tool}
                onChange={(e) => onTool(i, e.target.value)}
              >
                <option value="">pick a tool</option>
                {row.tool && tools && !t && <option value={row.tool}>{row.tool} (not in the sandbox)</option>}
                {(tools ?? []).map((x) => (
                  <option key={x.name} value={x.name}>
                    {x.name} (w{x.grade.w}, d{x.grade.d})
                  </option>
                ))}
              </select>
              {t ? <GradeBadge grade={t.grade} small /> : <span />}
              <span className="row-actions">
                <button
                  type="button"
                  className="danger"
                  aria-label={`remove tool ${i + 1}`}
                  onClick={() => onRemove(i)}
                >
                  Remove
                </button>
                {t && <span className="muted small ellipsis">{t.description}</span>}
              </span>
            </div>
          );
        })}
      </div>
      <div className="actions">
        <button type="button" onClick={onAdd} disabled={none}>
          Add tool
        </button>
        <button type="button" disabled={none} onClick={onAll}>
          All tools of {sandbox || 'the sandbox'}
        </button>
      </div>
    </>
  );
}

export function KitGradeLine({
  grade,
  over,
  maxGrade,
}: {
  grade: Grade;
  over: boolean;
  maxGrade: Grade | undefined;
}) {
  return (
    <div className="meta-line">
      <span>Grade of this kit:</span>
      <GradeBadge grade={grade} over={over} />
      {maxGrade && (
        <span className="muted small">
          workspace max (w{maxGrade.w}, d{maxGrade.d})
        </span>
      )}
      {over && <span className="error small">above the workspace maximum: the service will refuse it</span>}
    </div>
  );
}

export function KitSaveBar({
  problems,
  saving,
  error,
  onCancel,
}: {
  problems: string[];
  saving: boolean;
  /** The service's refusal of the last save. */
  error: string | undefined;
  onCancel: () => void;
}) {
  return (
    <>
      <CannotSave problems={problems} />
      {error && (
        <div role="alert" className="error callout bad" data-testid="kit-save-error">
          The kit was refused: {error}
        </div>
      )}
      <div className="actions">
        <button
          type="submit"
          className="primary"
          disabled={problems.length > 0 || saving}
          title={problems[0]}
        >
          {saving ? 'Saving…' : 'Save kit'}
        </button>
        <button type="button" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
      </div>
    </>
  );
}

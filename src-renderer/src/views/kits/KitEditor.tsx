/**
 * Create or edit a kit: name, sandbox, description and `alias -> tool` rows chosen from the sandbox's
 * tools. The grade (element-wise max of the chosen tools' grades) is previewed against the workspace's
 * maximum; the service decides, and its refusal is shown inline.
 */
import { useEffect, useState } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { GradeBadge } from '../../components/GradeBadge.tsx';
import { kitGrade, kitProblems, kitTools, overMax } from './kit.ts';
import type { KitDraft } from './kit.ts';

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
}: {
  mode: 'new' | 'edit';
  initial: KitDraft;
  sandboxes: string[];
  existing: string[];
  maxGrade?: { w: number; d: number };
  note?: string;
  onSaved: (r: Response<'kits.save'>) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<KitDraft>(initial);
  const {
    busy: saving,
    error,
    run: runSave,
  } = useSubmit(async () =>
    onSaved(
      await api['kits.save']({
        name: draft.name,
        sandbox: draft.sandbox,
        ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
        tools: kitTools(draft),
      }),
    ),
  );
  const [tools, setTools] = useState<SandboxTool[]>();
  const [toolsError, setToolsError] = useState<string>();
  const set = (patch: Partial<KitDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const setRow = (i: number, patch: Partial<KitDraft['rows'][number]>) =>
    set({ rows: draft.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) });

  useEffect(() => {
    if (!draft.sandbox) return;
    let stale = false;
    setTools(undefined);
    setToolsError(undefined);
    api['tools.list']({ sandbox: draft.sandbox })
      .then((r) => !stale && setTools(r.tools))
      .catch((e: unknown) => !stale && setToolsError(errorMessage(e)));
    return () => {
      stale = true;
    };
  }, [draft.sandbox]);

  const byName = new Map((tools ?? []).map((t) => [t.name, t]));
  const chosen = draft.rows.map((r) => byName.get(r.tool)).filter((t): t is SandboxTool => !!t);
  const grade = kitGrade(chosen);
  const over = overMax(grade, maxGrade);

  const problems = kitProblems(draft);
  const taken = mode === 'new' && existing.includes(draft.name);

  const addRow = () => {
    const used = new Set(draft.rows.map((r) => r.tool));
    const next = (tools ?? []).find((t) => !used.has(t.name));
    set({ rows: [...draft.rows, { alias: next?.name ?? '', tool: next?.name ?? '' }] });
  };

  const save = async () => {
    if (problems.length || saving) return;
    await runSave();
  };

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
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="grid">
          <label className="field">
            Name
            <input
              aria-label="kit name"
              value={draft.name}
              readOnly={mode === 'edit'}
              onChange={(e) => set({ name: e.target.value })}
              spellCheck={false}
              placeholder="lookup"
            />
          </label>
          <label className="field">
            Sandbox
            <select
              aria-label="kit sandbox"
              value={draft.sandbox}
              onChange={(e) => set({ sandbox: e.target.value, rows: [] })}
            >
              {!draft.sandbox && <option value="">pick a sandbox</option>}
              {sandboxes.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            Description
            <input
              aria-label="kit description"
              value={draft.description}
              placeholder="what this kit is for"
              onChange={(e) => set({ description: e.target.value })}
            />
          </label>
        </div>
        {taken && <p className="warn small">A kit named {draft.name} exists: saving replaces its file.</p>}
        <h3 className="small">Tools (alias → sandbox tool)</h3>
        <p className="muted small">
          Scripts call the alias; the kit&apos;s grade is the maximum of its tools&apos; grades.
        </p>
        {toolsError && (
          <div role="alert" className="error">
            Could not list the tools of {draft.sandbox}: {toolsError}
          </div>
        )}
        {draft.sandbox && !tools && !toolsError && <p className="muted small">Loading the tools…</p>}
        {tools && tools.length === 0 && (
          <p className="warn small">The sandbox {draft.sandbox} has no tools.</p>
        )}
        <div className="tool-rows" aria-label="kit tools">
          {draft.rows.map((row, i) => {
            const t = byName.get(row.tool);
            return (
              <div className="tool-row" key={i} data-row={i}>
                <input
                  aria-label={`alias ${i + 1}`}
                  value={row.alias}
                  placeholder="alias"
                  spellCheck={false}
                  onChange={(e) => setRow(i, { alias: e.target.value })}
                />
                <span className="arrow">→</span>
                <select
                  aria-label={`tool ${i + 1}`}
                  value={row.tool}
                  onChange={(e) =>
                    setRow(i, {
                      tool: e.target.value,
                      ...(!row.alias || row.alias === row.tool ? { alias: e.target.value } : {}),
                    })
                  }
                >
                  <option value="">pick a tool</option>
                  {row.tool && tools && !t && (
                    <option value={row.tool}>{row.tool} (not in the sandbox)</option>
                  )}
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
                    onClick={() => set({ rows: draft.rows.filter((_r, j) => j !== i) })}
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
          <button type="button" onClick={addRow} disabled={!tools || tools.length === 0}>
            Add tool
          </button>
          <button
            type="button"
            disabled={!tools || tools.length === 0}
            onClick={() => set({ rows: (tools ?? []).map((t) => ({ alias: t.name, tool: t.name })) })}
          >
            All tools of {draft.sandbox || 'the sandbox'}
          </button>
        </div>
        <div className="meta-line">
          <span>Grade of this kit:</span>
          <GradeBadge grade={grade} over={over} />
          {maxGrade && (
            <span className="muted small">
              workspace max (w{maxGrade.w}, d{maxGrade.d})
            </span>
          )}
          {over && (
            <span className="error small">above the workspace maximum: the service will refuse it</span>
          )}
        </div>
        {problems.length > 0 && (
          <ul className="warnings small" aria-label="cannot save yet">
            {problems.map((p) => (
              <li key={p} className="warn">
                {p}
              </li>
            ))}
          </ul>
        )}
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
      </form>
    </div>
  );
}

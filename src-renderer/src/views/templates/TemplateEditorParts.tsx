/**
 * Parts of the template editor, presentational (props in, callbacks out): where the draft comes from,
 * the name and description, an example row with its live check, and the save bar with what stops a save.
 * The body's Monaco editor stays in TemplateEditor.tsx.
 */
import type { ExampleDraft, FromRun, TemplateDraft } from './drafts.ts';
import { matchText } from './template-editor.ts';
import type { EditorMode, ExampleCheck } from './template-editor.ts';
import { CannotSave } from '../../components/CannotSave.tsx';
import { FormRow } from '../../components/FormRow.tsx';

export function EditorHeader({
  mode,
  name,
  draft,
  fromRun,
}: {
  mode: EditorMode;
  /** The name the editor opened with (an edit is titled by it). */
  name: string;
  draft: Pick<TemplateDraft, 'sandbox' | 'kit' | 'language'>;
  fromRun: FromRun | undefined;
}) {
  return (
    <>
      <h2>{mode === 'promote' ? 'Promote to template' : `Edit template ${name}`}</h2>
      <div className="meta-line small">
        <span>
          sandbox <strong>{draft.sandbox}</strong>
          {draft.kit ? (
            <>
              {' '}
              · kit <strong>{draft.kit}</strong>
            </>
          ) : null}
        </span>
        <span>{draft.language}</span>
        {fromRun && (
          <span className="muted">
            {mode === 'promote' ? 'from run' : 'origin run'} {fromRun.runId.slice(0, 8)}
            {fromRun.attempt !== undefined ? ` attempt ${fromRun.attempt}` : ''}
          </span>
        )}
        {fromRun?.task && <span className="muted ellipsis">task: “{fromRun.task}”</span>}
      </div>
      {mode === 'edit' && (
        <p className="muted small">
          Saving replaces the template file and resets its success/failure counters.
        </p>
      )}
    </>
  );
}

export function NameFields({
  mode,
  name,
  description,
  taken,
  replace,
  onChange,
  onReplace,
}: {
  mode: EditorMode;
  name: string;
  description: string;
  /** A promotion under the name of a template that exists: offer to replace it. */
  taken: boolean;
  replace: boolean;
  onChange: (patch: { name?: string; description?: string }) => void;
  onReplace: (replace: boolean) => void;
}) {
  return (
    <>
      <div className="grid">
        <FormRow label="Name">
          <input
            value={name}
            readOnly={mode === 'edit'}
            onChange={(e) => onChange({ name: e.target.value })}
            spellCheck={false}
          />
        </FormRow>
        <FormRow label="Description">
          <input
            value={description}
            placeholder="optional"
            onChange={(e) => onChange({ description: e.target.value })}
          />
        </FormRow>
      </div>
      {taken && (
        <FormRow
          layout="check"
          className="warn"
          label={<>A template named {name} exists: replace it (its counters restart at 0)</>}
        >
          <input type="checkbox" checked={replace} onChange={(e) => onReplace(e.target.checked)} />
        </FormRow>
      )}
    </>
  );
}

export function ExampleRow({
  index,
  example,
  check,
  runResult,
  onChange,
  onRemove,
}: {
  index: number;
  example: ExampleDraft;
  check: ExampleCheck | undefined;
  /** The run's result, offered as the first example's expected value. */
  runResult?: unknown;
  onChange: (patch: Partial<ExampleDraft>) => void;
  onRemove: () => void;
}) {
  const n = index + 1;
  return (
    <div className="example-row" data-example={index}>
      <FormRow className="stacked-label" label={<span className="small muted">example {n} intent</span>}>
        <input
          value={example.intent}
          placeholder="What is the name of user u2?"
          onChange={(e) => onChange({ intent: e.target.value })}
        />
      </FormRow>
      <FormRow className="stacked-label" label={<span className="small muted">example {n} expected</span>}>
        <textarea
          value={example.expect}
          rows={1}
          placeholder="expected JSON (optional)"
          onChange={(e) => onChange({ expect: e.target.value })}
        />
      </FormRow>
      <span className="row-actions">
        {runResult !== undefined && index === 0 && (
          <button
            type="button"
            title="Expect the result the run produced"
            onClick={() => onChange({ expect: JSON.stringify(runResult) })}
          >
            Use run result
          </button>
        )}
        <button type="button" className="danger" aria-label={`remove example ${n}`} onClick={onRemove}>
          Remove
        </button>
      </span>
      <span className="example-note small">
        {!example.intent.trim() ? (
          <span className="muted">Write an intent.</span>
        ) : check?.match ? (
          <span className="ok">matches: {matchText(check.match)}</span>
        ) : (
          <span className="warn">does not match the pattern</span>
        )}
        {check?.expect.error && <span className="error"> · expected {check.expect.error}</span>}
      </span>
    </div>
  );
}

export function SaveBar({
  mode,
  problems,
  patternIssues,
  saving,
  error,
  onCancel,
}: {
  mode: EditorMode;
  /** What stops a save (the button is disabled while there are any). */
  problems: string[];
  /** Pattern warnings the service refuses. */
  patternIssues: number;
  saving: boolean;
  /** The service's refusal of the last save. */
  error: string | undefined;
  onCancel: () => void;
}) {
  return (
    <>
      <CannotSave problems={problems} />
      {error && (
        <div role="alert" className="error callout bad" data-testid="template-save-error">
          {error}
        </div>
      )}
      <div className="actions">
        <button
          type="submit"
          className="primary"
          disabled={problems.length > 0 || saving}
          title={problems[0] ?? (patternIssues ? 'The pattern has warnings: the service may refuse it' : '')}
        >
          {saving ? 'Saving…' : mode === 'promote' ? 'Save template' : 'Save changes'}
        </button>
        <button type="button" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
        {patternIssues > 0 && (
          <span className="warn small">
            {patternIssues} pattern warning{patternIssues > 1 ? 's' : ''}: fix them or the service will refuse
            the template.
          </span>
        )}
      </div>
    </>
  );
}

/**
 * The "Try tool" form, presentational (props in, callbacks out): a field per parameter, the call
 * button, the field errors counted, and a call that failed.
 */
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { FieldValue } from './coerce.ts';
import { errorSummary, initialValue } from './try-tool.ts';
import { Field } from './TryParts.tsx';

export function TryForm({
  tool,
  unsaved,
  values,
  errors,
  busy,
  onField,
  onSubmit,
}: {
  tool: SandboxTool;
  /** The editor holds changes that are not saved: the call runs the saved tools.py. */
  unsaved: boolean;
  values: Record<string, FieldValue>;
  errors: Record<string, string>;
  /** A call is under way. */
  busy: boolean;
  onField: (name: string, value: FieldValue) => void;
  onSubmit: () => void;
}) {
  const summary = errorSummary(errors);
  return (
    <>
      <p className="small">
        <code>{tool.name}</code> {tool.description && <span className="muted">— {tool.description}</span>}
      </p>
      {unsaved && (
        <p className="small warn-note">
          The editor has unsaved changes: the call runs the saved <code>tools.py</code>.
        </p>
      )}
      <form
        className="try-form"
        aria-label={`try ${tool.name}`}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        {tool.parameters.length === 0 ? (
          <p className="muted small">This tool takes no parameters.</p>
        ) : (
          <div className="grid">
            {tool.parameters.map((p) => (
              <Field
                key={p.name}
                p={p}
                value={values[p.name] ?? initialValue(p)}
                error={errors[p.name]}
                onChange={(v) => onField(p.name, v)}
              />
            ))}
          </div>
        )}
        <div className="actions">
          <button type="submit" className="primary" data-run-action disabled={busy}>
            {busy ? 'Calling…' : `Call ${tool.name}`}
          </button>
          {tool.parameters.some((p) => p.required) && (
            <span className="muted small">
              <span className="required-mark">*</span> required
            </span>
          )}
          {summary && (
            <span className="error small" data-testid="form-errors">
              {summary}
            </span>
          )}
          {busy && <span className="muted small">running in the sandbox…</span>}
        </div>
      </form>
    </>
  );
}

export function CallFailed({ error }: { error: string }) {
  return (
    <div role="alert" className="error" data-testid="call-failed">
      The call failed: {error}
    </div>
  );
}

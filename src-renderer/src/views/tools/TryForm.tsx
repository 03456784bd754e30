/**
 * The "Try tool" form, presentational (props in, callbacks out): a field per property of the tool's
 * JSON Schema (`parametersSchema`: tools.py parameters or an MCP tool's inputSchema), nested objects
 * and arrays included, the call button, the field errors counted, and a call that failed.
 */
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { JsonSchema } from '../../../../src-main/core/tools/schema.ts';
import { initialDraft } from './schema-form.ts';
import type { Draft } from './schema-form.ts';
import { SchemaField } from './SchemaField.tsx';
import { errorSummary } from './try-tool.ts';

export function TryForm({
  tool,
  schema,
  unsaved,
  values,
  errors,
  busy,
  onField,
  onSubmit,
}: {
  tool: SandboxTool;
  /** The tool's arguments schema (`parametersSchema(tool)`). */
  schema: JsonSchema;
  /** The editor holds changes that are not saved: the call runs the saved tools.py. */
  unsaved: boolean;
  values: Record<string, Draft>;
  errors: Record<string, string>;
  /** A call is under way. */
  busy: boolean;
  onField: (name: string, value: Draft) => void;
  onSubmit: () => void;
}) {
  const summary = errorSummary(errors);
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
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
        {properties.length === 0 ? (
          <p className="muted small">This tool takes no parameters.</p>
        ) : (
          <div className="grid">
            {properties.map(([name, p]) => (
              <SchemaField
                key={name}
                name={name}
                path={name}
                schema={p}
                draft={values[name] ?? initialDraft(p)}
                required={required.has(name)}
                errors={errors}
                onChange={(v) => onField(name, v)}
              />
            ))}
          </div>
        )}
        <div className="actions">
          <button type="submit" className="primary" data-run-action disabled={busy}>
            {busy ? 'Calling…' : `Call ${tool.name}`}
          </button>
          {required.size > 0 && (
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

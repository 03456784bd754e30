/**
 * "Try tool": a form generated from a saved tool's parameters (options become a select, examples
 * become placeholders, required fields are checked and types coerced before sending), a real call in
 * the sandbox container, and what came back: the ToolResponse and the execution trace.
 */
import { useState } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { JsonValue, ToolParameter } from '../../../../src-main/core/tools/model.ts';
import { api } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { checkForm } from './coerce.ts';
import type { FieldValue } from './coerce.ts';
import { CallOutcome, Field } from './TryParts.tsx';

type CallResult = Response<'tools.call'>;

const initialValue = (p: ToolParameter): FieldValue =>
  p.options?.length ? { kind: 'option', index: undefined } : { kind: 'text', text: '' };

/** The form and outcome for one tool; remount it (key) when the tool changes. */
export function TryTool({
  sandbox,
  tool,
  unsaved,
}: {
  sandbox: string;
  tool: SandboxTool;
  /** The editor holds changes that are not saved: the call runs the saved tools.py. */
  unsaved: boolean;
}) {
  const [values, setValues] = useState<Record<string, FieldValue>>(() =>
    Object.fromEntries(tool.parameters.map((p) => [p.name, initialValue(p)])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<{ call: CallResult; args: Record<string, JsonValue> }>();
  const {
    busy,
    error: callError,
    run: call,
  } = useSubmit(async (args: Record<string, JsonValue>) => {
    try {
      setOutcome({ call: await api['tools.call']({ sandbox, tool: tool.name, args }), args });
    } catch (e) {
      setOutcome(undefined);
      throw e;
    }
  });

  const submit = async () => {
    if (busy) return;
    const check = checkForm(tool.parameters, values);
    setErrors(check.errors);
    if (Object.keys(check.errors).length > 0) return;
    await call(check.args);
  };

  const errorCount = Object.keys(errors).length;
  return (
    <div className="try-tool" data-testid="try-tool" data-tool={tool.name}>
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
          void submit();
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
                onChange={(v) => {
                  setValues((prev) => ({ ...prev, [p.name]: v }));
                  if (errors[p.name])
                    setErrors((prev) => {
                      const next = { ...prev };
                      delete next[p.name];
                      return next;
                    });
                }}
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
          {errorCount > 0 && (
            <span className="error small" data-testid="form-errors">
              Fix {errorCount} field{errorCount > 1 ? 's' : ''} before calling.
            </span>
          )}
          {busy && <span className="muted small">running in the sandbox…</span>}
        </div>
      </form>
      {callError && (
        <div role="alert" className="error" data-testid="call-failed">
          The call failed: {callError}
        </div>
      )}
      {outcome && <CallOutcome call={outcome.call} args={outcome.args} />}
    </div>
  );
}

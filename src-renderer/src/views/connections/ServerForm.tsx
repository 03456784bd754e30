/**
 * The form that adds or edits an MCP server: a stdio command or a Streamable HTTP URL, env and headers as
 * KEY=value lines (env:VAR references), the time limit and the sandbox that uses it (server.ts turns it
 * into the mcp.save request).
 */
import { useEffect, useState } from 'react';
import type { McpServerView } from '../../../../src-main/contract/api.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { saveRequest } from './server.ts';
import type { Draft, SaveRequest } from './server.ts';
import { FormRow } from '../../components/FormRow.tsx';

export function ServerForm({
  initial,
  editing,
  sandboxes,
  onSaved,
  onCancel,
  onEdited,
}: {
  initial: Draft;
  /** Each edit, as the form holds it (kept for a reload). */
  onEdited?: (d: Draft) => void;
  editing: boolean;
  sandboxes: string[];
  onSaved: (s: McpServerView) => void;
  onCancel: () => void;
}) {
  const [d, setD] = useState(initial);
  useEffect(() => {
    if (d !== initial) onEdited?.(d);
  }, [d]);
  const {
    busy,
    error,
    setError,
    run: submit,
  } = useSubmit(async (req: SaveRequest) => onSaved(await api['mcp.save'](req)));
  const set = (k: keyof Draft) => (e: { target: { value: string } }) => {
    const value = e.target.value;
    setD((prev) => ({ ...prev, [k]: value }));
  };
  const save = async () => {
    setError(undefined);
    let req: SaveRequest;
    try {
      req = saveRequest(d);
    } catch (e) {
      setError(errorMessage(e));
      return;
    }
    await submit(req);
  };
  return (
    <form
      className="manage-panel mcp-form"
      aria-label="MCP server"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>{editing ? `Edit ${initial.name}` : 'Add an MCP server'}</h2>
      <div className="grid">
        <FormRow label="Name">
          <input name="name" value={d.name} onChange={set('name')} disabled={editing} required />
        </FormRow>
        <FormRow label="Transport">
          <select name="transport" value={d.transport} onChange={set('transport')}>
            <option value="stdio">stdio (a command)</option>
            <option value="http">Streamable HTTP (a URL)</option>
          </select>
        </FormRow>
        {d.transport === 'stdio' ? (
          <>
            <FormRow label="Command">
              <input name="command" value={d.command} onChange={set('command')} placeholder="npx" />
            </FormRow>
            <FormRow label="Arguments (one per line)">
              <textarea name="args" rows={3} value={d.args} onChange={set('args')} />
            </FormRow>
            <FormRow label="Environment (KEY=value or KEY=env:VAR, one per line)">
              <textarea name="env" rows={2} value={d.env} onChange={set('env')} />
            </FormRow>
          </>
        ) : (
          <>
            <FormRow label="URL">
              <input name="url" value={d.url} onChange={set('url')} placeholder="https://host/mcp" />
            </FormRow>
            <FormRow label="Headers (Name=env:VAR, one per line)">
              <textarea name="headers" rows={2} value={d.headers} onChange={set('headers')} />
            </FormRow>
          </>
        )}
        <FormRow label="Time limit per request (ms)">
          <input name="timeout" inputMode="numeric" value={d.timeoutMs} onChange={set('timeoutMs')} />
        </FormRow>
        <FormRow label="Time limit to start (ms; empty: the per-request limit)">
          <input
            name="startup-timeout"
            inputMode="numeric"
            value={d.startupTimeoutMs}
            onChange={set('startupTimeoutMs')}
          />
        </FormRow>
        <FormRow label="Used by sandbox (new or existing; empty: none)">
          <input name="sandbox" list="mcp-sandboxes" value={d.sandbox} onChange={set('sandbox')} />
          <datalist id="mcp-sandboxes">
            {sandboxes.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </FormRow>
        <FormRow label="Description">
          <input name="description" value={d.description} onChange={set('description')} />
        </FormRow>
      </div>
      {error && (
        <p className="error small" role="alert" data-testid="mcp-form-error">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save server'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

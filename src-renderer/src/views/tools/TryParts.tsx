/**
 * Parts of Try tool: a form field per parameter (options as a select, bool as true/false, list and dict as
 * JSON text) and the outcome of a call (the ToolResponse, the exit, the traceback and the trace).
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import { ToolCallTable } from '../../components/ToolCallTable.tsx';
import type { JsonValue, ToolParameter } from '../../../../src-main/core/tools/model.ts';
import { formatMs, IsolationBadge } from '../../components/Badges.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { placeholderFor, showValue } from './coerce.ts';
import type { FieldValue } from './coerce.ts';

type CallResult = Response<'tools.call'>;

export function Field({
  p,
  value,
  error,
  onChange,
}: {
  p: ToolParameter;
  value: FieldValue;
  error: string | undefined;
  onChange: (v: FieldValue) => void;
}) {
  const id = `try-${p.name}`;
  const errId = `${id}-error`;
  const common = {
    id,
    name: p.name,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? errId : undefined,
    'aria-required': p.required,
    'data-param': p.name,
  };
  let input: React.ReactNode;
  if (value.kind === 'option') {
    const defaultLabel =
      !p.required && p.default !== undefined ? `default (${showValue(p.default)})` : '— choose —';
    input = (
      <select
        {...common}
        value={value.index === undefined ? '' : String(value.index)}
        onChange={(e) =>
          onChange({ kind: 'option', index: e.target.value === '' ? undefined : Number(e.target.value) })
        }
      >
        <option value="">{defaultLabel}</option>
        {(p.options ?? []).map((o, i) => (
          <option key={i} value={String(i)}>
            {typeof o === 'string' ? o : JSON.stringify(o)}
          </option>
        ))}
      </select>
    );
  } else if (p.type === 'bool') {
    input = (
      <select
        {...common}
        value={value.text}
        onChange={(e) => onChange({ kind: 'text', text: e.target.value })}
      >
        <option value="">
          {!p.required && p.default !== undefined ? `default (${showValue(p.default)})` : '— choose —'}
        </option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  } else if (p.type === 'list' || p.type === 'dict') {
    input = (
      <textarea
        {...common}
        rows={2}
        value={value.text}
        placeholder={placeholderFor(p)}
        spellCheck={false}
        onChange={(e) => onChange({ kind: 'text', text: e.target.value })}
      />
    );
  } else {
    input = (
      <input
        {...common}
        value={value.text}
        placeholder={placeholderFor(p)}
        inputMode={p.type === 'int' ? 'numeric' : p.type === 'float' ? 'decimal' : undefined}
        spellCheck={false}
        onChange={(e) => onChange({ kind: 'text', text: e.target.value })}
      />
    );
  }
  return (
    <div className={`try-field ${error ? 'invalid' : ''}`}>
      <label htmlFor={id}>
        {p.displayName ?? p.name}
        {p.required && (
          <span className="required-mark" title="required" aria-label="required">
            {' '}
            *
          </span>
        )}{' '}
        <span className="muted small">
          <code>{p.name}</code>: {p.type}
        </span>
      </label>
      {input}
      {p.description && <span className="muted small">{p.description}</span>}
      {error && (
        <span id={errId} className="error small field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

export function CallOutcome({ call, args }: { call: CallResult; args: Record<string, JsonValue> }) {
  const { response, result } = call;
  return (
    <div className="try-result" data-testid="try-result" data-success={response?.success ? 'true' : 'false'}>
      <div className="meta-line">
        {response ? (
          <span
            className={`badge ${response.success ? 'status-succeeded' : 'status-failed'}`}
            data-testid="response-success"
          >
            success: {String(response.success)}
          </span>
        ) : (
          <span className="badge status-failed">no ToolResponse</span>
        )}
        <span className={`badge exit-${result.exitReason}`} data-exit={result.exitReason}>
          exit: {result.exitReason}
        </span>
        <IsolationBadge level={result.isolation} />
        <span className="muted small">
          {result.runtime} · {formatMs(result.durationMs)}
        </span>
      </div>
      <p className="small">
        <span className="muted">called with</span> <code>{JSON.stringify(args)}</code>
      </p>
      {response?.message && (
        <p className={response.success ? '' : 'error'} data-testid="response-message">
          <strong>message:</strong> {response.message}
        </p>
      )}
      {response && (
        <div data-testid="response-data">
          <strong>data</strong>
          {response.data === undefined ? (
            <p className="muted">No data.</p>
          ) : (
            <JsonTree value={response.data} label="tool response data" />
          )}
        </div>
      )}
      {result.error && (
        <div className="traceback" role="alert" data-testid="call-error">
          <div className="error">
            <strong>{result.error.type}</strong>: {result.error.message}
          </div>
          {result.error.frames.length > 0 && (
            <ol className="frames">
              {result.error.frames.map((f, i) => (
                <li key={i} className="small">
                  line {f.line}, in {f.name}
                  {f.text && <code> {f.text}</code>}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
      {!response && !result.error && (
        <p className="error" role="alert">
          The call ended ({result.exitReason}) without a ToolResponse.
        </p>
      )}
      <details className="section" open data-testid="call-trace">
        <summary>Trace ({result.toolCalls.length} tool calls)</summary>
        <div className="section-body">
          <ToolCallTable calls={result.toolCalls} label="trace" />
          {result.logs.length > 0 && (
            <>
              <strong className="small">Logs</strong>
              <pre className="logs">{result.logs.join('\n')}</pre>
            </>
          )}
        </div>
      </details>
    </div>
  );
}

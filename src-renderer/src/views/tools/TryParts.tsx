/**
 * Parts of Try tool: the outcome of a call (the ToolResponse, the exit, the traceback and the trace). The
 * form's fields are SchemaField.tsx.
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import { ToolCallTable } from '../../components/ToolCallTable.tsx';
import type { JsonValue } from '../../../../src-main/core/tools/model.ts';
import { formatDateTime, formatMs, IsolationBadge } from '../../components/Badges.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';

type CallResult = Response<'tools.call'>;

export function CallOutcome({
  call,
  args,
  at,
  earlier = false,
  onJump,
}: {
  call: CallResult;
  args: Record<string, JsonValue>;
  /** When the call answered (ms). */
  at?: number | undefined;
  /** The outcome of a call made before the page was reloaded (kept in the tab's session). */
  earlier?: boolean;
  /** Reveals a line of tools.py in the editor (a frame of the tool's own code). */
  onJump?: ((line: number) => void) | undefined;
}) {
  const { response, result } = call;
  return (
    <div
      className="try-result"
      data-testid="try-result"
      data-success={response?.success ? 'true' : 'false'}
      data-earlier={earlier ? 'true' : undefined}
    >
      {earlier && (
        <p className="small warn-note" role="note" data-testid="try-earlier">
          The result of an earlier call
          {at !== undefined ? `, at ${formatDateTime(at, { seconds: true })}` : ''}: call again to see what
          the tool answers now.
        </p>
      )}
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
        {at !== undefined && !earlier && (
          <span className="muted small" data-testid="try-called-at">
            called at {formatDateTime(at, { seconds: true })}
          </span>
        )}
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
                  {/* A frame in tools.py (the tool's own code) opens that line in the editor. */}
                  {f.file && onJump ? (
                    <button
                      className="link"
                      onClick={() => onJump(f.line)}
                      title="Show this line of tools.py"
                    >
                      line {f.line}
                    </button>
                  ) : (
                    <>line {f.line}</>
                  )}
                  , in {f.name}
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
        <summary>
          Trace ({result.toolCalls.length} tool call{result.toolCalls.length === 1 ? '' : 's'})
        </summary>
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

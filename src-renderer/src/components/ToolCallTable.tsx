/** The tool-call trace of a job: name, arguments, response, duration, where it ran, error or refusal. */
import type { ToolCallTrace } from '../../../src-main/core/sandbox/execution.ts';
import { JsonTree } from './JsonTree.tsx';

export function ToolCallTable({ calls, label }: { calls: ToolCallTrace[]; label: string }) {
  if (calls.length === 0) return <p className="muted">No tool call was recorded.</p>;
  return (
    <table className="tool-calls" aria-label={label}>
      <thead>
        <tr>
          <th>tool</th>
          <th>args</th>
          <th>result</th>
          <th>ms</th>
          <th>where</th>
        </tr>
      </thead>
      <tbody>
        {calls.map((t, i) => (
          <tr key={i} className={t.error || t.refused ? 'row-error' : ''}>
            <td>
              <code>{t.name}</code>
            </td>
            <td>
              <code className="small">{JSON.stringify(t.args)}</code>
            </td>
            <td>
              {t.error ? (
                <span className="error">
                  {t.refused ? 'refused: ' : ''}
                  {t.error}
                </span>
              ) : t.result ? (
                <details>
                  <summary>
                    {t.result.success ? 'success' : 'failure'}
                    {t.result.message ? `: ${t.result.message}` : ''}
                  </summary>
                  <JsonTree value={t.result.data} label={`result of ${t.name}`} />
                </details>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
            <td>{t.ms.toFixed(1)}</td>
            <td>{t.location}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

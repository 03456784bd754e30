/**
 * The tool-call trace of a job: name (and the skill whose code made the call, with the number of that
 * skill call in SkillCallTable when it was recorded), arguments, response,
 * duration, where it ran, error or refusal, and under a call the outbound requests its tool made through
 * the sandbox's egress proxy.
 */
import { Fragment } from 'react';
import type { EgressRecord, ToolCallTrace } from '../../../src-main/core/sandbox/execution.ts';
import { JsonTree } from './JsonTree.tsx';

/**
 * A tool's name that wraps only between its words: after an underscore, a dot, a hyphen or a slash
 * (`check_` / `inventory`, `github__` / `search`) and before a capital that ends a lower-case run
 * (`searchRepositories` / `ByTopic`, an MCP server's camelCase names). Its cell keeps words whole: in
 * the narrow Try tool panel the table's cells broke anywhere ("boom" read "boo m"), and with breaks at
 * underscores only, a long camelCase name could not wrap and pushed the table out of its panel.
 */
const wrappable = (name: string) =>
  name
    .split(/(?<=[_./-])(?![_./-])|(?<=[a-z0-9])(?=[A-Z])/)
    .flatMap((part, i, all) => (i < all.length - 1 ? [part, <wbr key={i} />] : [part]));

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
          <Fragment key={i}>
            <tr className={t.error || t.refused ? 'row-error' : ''} data-skill={t.skill}>
              <td className="call-name">
                <code>{wrappable(t.name)}</code>
                {t.skill ? (
                  <span className="muted small" title={`called by the skill ${t.skill}`}>
                    {' '}
                    in skill <code>{t.skill}</code>
                    {t.skillCall !== undefined ? ` #${t.skillCall}` : ''}
                  </span>
                ) : null}
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
              <td className="call-short">{t.ms.toFixed(1)}</td>
              <td className="call-short">{t.location}</td>
            </tr>
            {t.egress?.length ? (
              <tr className="egress-row">
                <td colSpan={5}>
                  <EgressList records={t.egress} tool={t.name} />
                </td>
              </tr>
            ) : null}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

/** One line per outbound request: allowed or denied, method, destination, status, bytes, time. */
export function EgressList({ records, tool }: { records: EgressRecord[]; tool: string }) {
  return (
    <ul className="egress" aria-label={`outbound requests of ${tool}`}>
      {records.map((e, i) => (
        <li key={i} className={e.allowed ? '' : 'error'}>
          <strong>{e.allowed ? 'allowed' : 'denied'}</strong> <code>{e.method}</code>{' '}
          <code>
            {e.host}:{e.port}
          </code>
          {e.status ? ` ${e.status}` : ''} · {e.bytesOut} B out, {e.bytesIn} B in · {e.ms.toFixed(1)} ms
          {e.error ? ` · ${e.error}` : ''}
          {e.open ? ' (still open)' : ''}
        </li>
      ))}
    </ul>
  );
}

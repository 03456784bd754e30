/** The difference from an earlier suite run: new failures, fixed cases, tokens and latency up or down. */
import { formatDateTime } from '../../lib/dates.ts';
import type { Response, SuiteRunSummaryView } from '../../../../src-main/contract/api.ts';
import { ms, pct } from './derive.ts';

const LABEL: Record<string, string> = {
  new_failure: 'new failure',
  fixed: 'fixed',
  still_failing: 'still failing',
  still_passing: 'still passing',
  added: 'added',
  removed: 'removed',
};

const signed = (n: number, fmt: (x: number) => string) =>
  `${n > 0 ? '+' : n < 0 ? '−' : '±'}${fmt(Math.abs(n))}`;

export function SuiteComparison(props: {
  history: SuiteRunSummaryView[];
  head: string;
  comparison: Response<'suites.compare'> | undefined;
  onBase: (id: string | undefined) => void;
}) {
  const { comparison: c } = props;
  const earlier = props.history.filter((r) => r.id !== props.head);
  const changed = c?.cells.filter((x) => x.change !== 'still_passing') ?? [];
  return (
    <div className="suite-comparison" data-testid="suite-comparison">
      <label>
        Compare with{' '}
        <select
          aria-label="compare with"
          value={c?.base ?? ''}
          onChange={(e) => props.onBase(e.target.value || undefined)}
        >
          <option value="">(choose an earlier run)</option>
          {earlier.map((r) => (
            <option key={r.id} value={r.id}>
              {formatDateTime(r.createdAt)} · {r.status} · {r.passed}/{r.done} · {r.id.slice(0, 8)}
            </option>
          ))}
        </select>
      </label>
      {c && (
        <>
          <p className="comparison-summary">
            <span className={c.newFailures ? 'badge status-failed' : 'badge'}>
              {c.newFailures} new failure(s)
            </span>{' '}
            <span className={c.fixed ? 'badge status-succeeded' : 'badge'}>{c.fixed} fixed</span> tokens{' '}
            {c.tokens.before} → {c.tokens.after} ({signed(c.tokens.delta, String)}) · latency p50{' '}
            {ms(c.latencyP50.before)} → {ms(c.latencyP50.after)} ({signed(c.latencyP50.delta, ms)})
            {c.tools && (
              <span data-testid="tools-change">
                {' '}
                ·{' '}
                {c.tools.before === c.tools.after
                  ? `same tools.py (${c.tools.after})`
                  : `tools.py changed ${c.tools.before} → ${c.tools.after}`}
              </span>
            )}
          </p>
          <table className="comparison">
            <thead>
              <tr>
                <th>case</th>
                <th>model</th>
                <th>change</th>
                <th>pass rate</th>
                <th>tokens</th>
                <th>latency</th>
              </tr>
            </thead>
            <tbody>
              {changed.map((x) => (
                <tr key={`${x.caseId}-${x.column}`} className={`change-${x.change}`}>
                  <td>{x.caseId}</td>
                  <td>{x.column}</td>
                  <td>{LABEL[x.change]}</td>
                  <td>
                    {x.before ? pct(x.before.passRate) : '–'} → {x.after ? pct(x.after.passRate) : '–'}
                  </td>
                  <td>
                    {x.before?.tokens ?? '–'} → {x.after?.tokens ?? '–'}
                  </td>
                  <td>
                    {x.before ? ms(x.before.latencyMs) : '–'} → {x.after ? ms(x.after.latencyMs) : '–'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {changed.length === 0 && <p className="muted">Every cell passed in both runs.</p>}
        </>
      )}
    </div>
  );
}

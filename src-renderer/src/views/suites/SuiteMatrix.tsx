/** The matrix case x model: filters, one cell per case and column, a cell opens its runs. */
import { Fragment, useState } from 'react';
import type { SuiteRunFullView } from '../../../../src-main/contract/api.ts';
import { useStore } from '../../store/index.ts';
import { cellOf, money, ms, pct, visibleCases } from './derive.ts';
import type { CellFilter } from './derive.ts';

export function SuiteMatrix({ run }: { run: SuiteRunFullView }) {
  const m = run.matrix;
  const navigate = useStore((s) => s.navigate);
  const setFilters = useStore((s) => s.setFilters);
  const [filter, setFilter] = useState<CellFilter>('all');
  const [text, setText] = useState('');
  const [hidden, setHidden] = useState<string[]>([]);
  const [open, setOpen] = useState<string>();
  const columns = m.columns.filter((c) => !hidden.includes(c.id));
  const rows = visibleCases(m, { text, filter, columns: columns.map((c) => c.id) });
  return (
    <div className="suite-matrix" data-testid="suite-matrix">
      <div className="toolbar">
        <input
          placeholder="filter cases"
          aria-label="filter cases"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <select aria-label="show" value={filter} onChange={(e) => setFilter(e.target.value as CellFilter)}>
          <option value="all">all cases</option>
          <option value="failing">failing</option>
          <option value="passing">passing</option>
        </select>
        {m.columns.map((c) => (
          <label key={c.id} className="small">
            <input
              type="checkbox"
              checked={!hidden.includes(c.id)}
              onChange={() =>
                setHidden(hidden.includes(c.id) ? hidden.filter((x) => x !== c.id) : [...hidden, c.id])
              }
            />{' '}
            {c.id}
          </label>
        ))}
        <span className="spacer" />
        <button
          onClick={() => {
            setFilters({ suiteRun: run.id });
            navigate({ view: 'runs' });
          }}
        >
          Runs of this suite run
        </button>
      </div>
      <table className="matrix">
        <thead>
          <tr>
            <th>case</th>
            {columns.map((c) => (
              <th key={c.id}>{c.id}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((caseId) => (
            <Fragment key={caseId}>
              <tr>
                <th scope="row" title={run.spec.cases.find((c) => c.id === caseId)?.task}>
                  {caseId}
                </th>
                {columns.map((col) => {
                  const cell = cellOf(m, caseId, col.id);
                  const key = `${caseId}\u0000${col.id}`;
                  if (!cell)
                    return (
                      <td key={col.id} className="cell cell-empty">
                        {run.status === 'running' ? '…' : '–'}
                      </td>
                    );
                  return (
                    <td
                      key={col.id}
                      className={`cell ${cell.meets ? 'cell-pass' : cell.outcome === 'error' ? 'cell-error' : 'cell-fail'}`}
                    >
                      <button
                        className="cell-button"
                        data-testid={`cell-${caseId}-${col.id}`}
                        aria-expanded={open === key}
                        title={cell.failure ?? 'passed'}
                        onClick={() => setOpen(open === key ? undefined : key)}
                      >
                        <strong
                          title={
                            cell.outcome === 'error' ? 'could not be judged: infrastructure error' : undefined
                          }
                        >
                          {cell.meets ? '✓' : cell.outcome === 'error' ? '⚠ error' : '✗'}
                        </strong>{' '}
                        {cell.passes}/{cell.runs}
                        <span className="small muted">
                          {' '}
                          {cell.attempts.toFixed(1)} att · {cell.tokens} tok · {ms(cell.latencyMs)}
                          {cell.cost !== null ? ` · ${money(cell.cost)}` : ''}
                        </span>
                      </button>
                    </td>
                  );
                })}
              </tr>
              {columns.map((col) => {
                const key = `${caseId}\u0000${col.id}`;
                if (open !== key) return null;
                const results = run.results.filter((r) => r.caseId === caseId && r.column === col.id);
                return (
                  <tr key={`${col.id}-detail`} className="cell-detail">
                    <td colSpan={columns.length + 1}>
                      <strong>
                        {caseId} @ {col.id}
                      </strong>
                      <ul>
                        {results.map((r) => (
                          <li key={r.rep}>
                            #{r.rep + 1}{' '}
                            <span className={`badge status-${r.passed ? 'succeeded' : 'failed'}`}>
                              {r.passed ? 'pass' : 'fail'}
                            </span>{' '}
                            {r.runId ? (
                              <button
                                className="link"
                                onClick={() => navigate({ view: 'run', id: r.runId ?? '' })}
                              >
                                run {r.runId.slice(0, 8)}
                              </button>
                            ) : (
                              'no run'
                            )}{' '}
                            <span className="small muted">
                              {r.status} · {r.attempts} att · {r.promptTokens + r.completionTokens} tok ·{' '}
                              {ms(r.latencyMs)}
                            </span>
                            {r.error && <div className="small error">{r.error}</div>}
                            <ul className="verdicts">
                              {r.verdicts.map((v, i) => (
                                <li key={i} className={v.passed ? 'ok' : 'error'}>
                                  {v.passed ? '✓' : '✗'} {v.type}: {v.message}
                                </li>
                              ))}
                            </ul>
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                );
              })}
            </Fragment>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">total</th>
            {columns.map((col) => {
              const t = m.totals.find((x) => x.column === col.id);
              return (
                <td key={col.id} data-testid={`total-${col.id}`}>
                  {t
                    ? `${t.met}/${t.cases} met · ${pct(t.passRate)} runs · ${t.tokens} tok · ${money(t.cost)} · p50 ${ms(t.latencyP50)}`
                    : '–'}
                </td>
              );
            })}
          </tr>
        </tfoot>
      </table>
      {rows.length === 0 && <p className="muted">No case matches the filters.</p>}
    </div>
  );
}

/**
 * Parts of the suite matrix, presentational (props in, callbacks out): the toolbar (case filter,
 * failing/passing, a checkbox per column, the runs of the suite run) and the table case x column whose
 * cells open the runs behind them.
 */
import { Fragment } from 'react';
import type { SuiteRunFullView } from '../../../../src-main/contract/api.ts';
import { cellOf, ms } from './derive.ts';
import type { CellFilter } from './derive.ts';
import { cellClass, cellKey, cellMark, cellNumbers, totalText } from './suite-matrix.ts';
import type { MatrixState } from './suite-matrix.ts';

type Column = SuiteRunFullView['matrix']['columns'][number];

export function MatrixToolbar({
  state,
  columns,
  onText,
  onFilter,
  onToggleColumn,
  onRunsOfSuiteRun,
}: {
  state: MatrixState;
  /** Every column of the matrix (hidden ones unticked). */
  columns: Column[];
  onText: (text: string) => void;
  onFilter: (filter: CellFilter) => void;
  onToggleColumn: (column: string) => void;
  onRunsOfSuiteRun: () => void;
}) {
  return (
    <div className="toolbar">
      <input
        placeholder="filter cases"
        aria-label="filter cases"
        value={state.text}
        onChange={(e) => onText(e.target.value)}
      />
      <select aria-label="show" value={state.filter} onChange={(e) => onFilter(e.target.value as CellFilter)}>
        <option value="all">all cases</option>
        <option value="failing">failing</option>
        <option value="passing">passing</option>
      </select>
      {columns.map((c) => (
        <label key={c.id} className="small">
          <input
            type="checkbox"
            checked={!state.hidden.includes(c.id)}
            onChange={() => onToggleColumn(c.id)}
          />{' '}
          {c.id}
        </label>
      ))}
      <span className="spacer" />
      <button onClick={onRunsOfSuiteRun}>Runs of this suite run</button>
    </div>
  );
}

export function MatrixTable({
  run,
  columns,
  rows,
  open,
  onToggleCell,
  onOpenRun,
}: {
  run: SuiteRunFullView;
  /** The columns shown. */
  columns: Column[];
  /** The cases shown. */
  rows: string[];
  /** The cell whose runs are listed (`cellKey`). */
  open: string | undefined;
  onToggleCell: (key: string) => void;
  onOpenRun: (runId: string) => void;
}) {
  const m = run.matrix;
  return (
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
                const key = cellKey(caseId, col.id);
                if (!cell)
                  return (
                    <td key={col.id} className="cell cell-empty">
                      {run.status === 'running' ? '…' : '–'}
                    </td>
                  );
                return (
                  <td key={col.id} className={cellClass(cell)}>
                    <button
                      className="cell-button"
                      data-testid={`cell-${caseId}-${col.id}`}
                      aria-expanded={open === key}
                      title={cell.failure ?? 'passed'}
                      onClick={() => onToggleCell(key)}
                    >
                      <strong
                        title={
                          cell.outcome === 'error' ? 'could not be judged: infrastructure error' : undefined
                        }
                      >
                        {cellMark(cell)}
                      </strong>{' '}
                      {cell.passes}/{cell.runs}
                      <span className="small muted">{cellNumbers(cell)}</span>
                    </button>
                  </td>
                );
              })}
            </tr>
            {columns.map((col) =>
              open === cellKey(caseId, col.id) ? (
                <CellDetail
                  key={`${col.id}-detail`}
                  caseId={caseId}
                  column={col.id}
                  span={columns.length + 1}
                  results={run.results.filter((r) => r.caseId === caseId && r.column === col.id)}
                  onOpenRun={onOpenRun}
                />
              ) : null,
            )}
          </Fragment>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">total</th>
          {columns.map((col) => (
            <td key={col.id} data-testid={`total-${col.id}`}>
              {totalText(m.totals.find((x) => x.column === col.id))}
            </td>
          ))}
        </tr>
      </tfoot>
    </table>
  );
}

function CellDetail({
  caseId,
  column,
  span,
  results,
  onOpenRun,
}: {
  caseId: string;
  column: string;
  span: number;
  results: SuiteRunFullView['results'];
  onOpenRun: (runId: string) => void;
}) {
  return (
    <tr className="cell-detail">
      <td colSpan={span}>
        <strong>
          {caseId} @ {column}
        </strong>
        <ul>
          {results.map((r) => (
            <li key={r.rep}>
              #{r.rep + 1}{' '}
              <span className={`badge status-${r.passed ? 'succeeded' : 'failed'}`}>
                {r.passed ? 'pass' : 'fail'}
              </span>{' '}
              {r.runId ? (
                <button className="link" onClick={() => onOpenRun(r.runId ?? '')}>
                  run {r.runId.slice(0, 8)}
                </button>
              ) : (
                'no run'
              )}{' '}
              <span className="small muted">
                {r.status} · {r.attempts} att · {r.promptTokens + r.completionTokens} tok · {ms(r.latencyMs)}
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
}

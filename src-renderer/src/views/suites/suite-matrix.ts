/**
 * The suite matrix's state as data: the case filter (text, failing/passing), the hidden columns and the
 * cell whose runs are open, with what the matrix derives from them (the columns and rows shown, how a
 * cell and a column total read). Pure (tested in node); SuiteMatrix.tsx holds it with `useReducer`.
 */
import type { ColumnTotals, MatrixCell } from '../../../../src-main/core/suites/matrix.ts';
import type { SuiteRunFullView } from '../../../../src-main/contract/api.ts';
import { money, ms, pct, visibleCases } from './derive.ts';
import type { CellFilter } from './derive.ts';

export interface MatrixState {
  filter: CellFilter;
  text: string;
  /** Columns (models) unticked. */
  hidden: string[];
  /** The cell whose runs are listed under its row (`cellKey`). */
  open?: string;
}

export const initialMatrix: MatrixState = { filter: 'all', text: '', hidden: [] };

export type MatrixAction =
  | { type: 'text'; text: string }
  | { type: 'filter'; filter: CellFilter }
  | { type: 'toggleColumn'; column: string }
  /** Opens a cell's runs, or closes them when that cell is open. */
  | { type: 'toggleCell'; key: string };

export function matrixReducer(s: MatrixState, a: MatrixAction): MatrixState {
  switch (a.type) {
    case 'text':
      return { ...s, text: a.text };
    case 'filter':
      return { ...s, filter: a.filter };
    case 'toggleColumn':
      return {
        ...s,
        hidden: s.hidden.includes(a.column)
          ? s.hidden.filter((x) => x !== a.column)
          : [...s.hidden, a.column],
      };
    case 'toggleCell':
      return { ...s, open: s.open === a.key ? undefined : a.key };
  }
}

export const cellKey = (caseId: string, column: string): string => `${caseId}\u0000${column}`;

/** The columns shown (not hidden) and the cases that pass the filters on them. */
export function matrixView(
  run: SuiteRunFullView,
  s: MatrixState,
): { columns: SuiteRunFullView['matrix']['columns']; rows: string[] } {
  const columns = run.matrix.columns.filter((c) => !s.hidden.includes(c.id));
  const rows = visibleCases(run.matrix, {
    text: s.text,
    filter: s.filter,
    columns: columns.map((c) => c.id),
  });
  return { columns, rows };
}

/** A cell's class: it meets its threshold, it could not be judged (infrastructure), or it fails. */
export const cellClass = (cell: MatrixCell): string =>
  `cell ${cell.meets ? 'cell-pass' : cell.outcome === 'error' ? 'cell-error' : 'cell-fail'}`;

export const cellMark = (cell: MatrixCell): string =>
  cell.meets ? '✓' : cell.outcome === 'error' ? '⚠ error' : '✗';

/** A cell's numbers after its passes: attempts, tokens, latency and, when priced, cost. */
export const cellNumbers = (cell: MatrixCell): string =>
  ` ${cell.attempts.toFixed(1)} att · ${cell.tokens} tok · ${ms(cell.latencyMs)}${
    cell.cost !== null ? ` · ${money(cell.cost)}` : ''
  }`;

/** A column's total line (cases met, pass rate of the runs, tokens, cost, median latency). */
export const totalText = (t: ColumnTotals | undefined): string =>
  t
    ? `${t.met}/${t.cases} met · ${pct(t.passRate)} runs · ${t.tokens} tok · ${money(t.cost)} · p50 ${ms(t.latencyP50)}`
    : '–';

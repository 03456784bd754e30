import { describe, expect, it } from 'vitest';
import { cellOf } from './derive.ts';
import { suiteRun } from './suite-fixture.ts';
import {
  cellClass,
  cellKey,
  cellMark,
  cellNumbers,
  initialMatrix,
  matrixReducer,
  matrixView,
  totalText,
} from './suite-matrix.ts';
import type { MatrixAction, MatrixState } from './suite-matrix.ts';

const run = suiteRun();
const apply = (...actions: MatrixAction[]): MatrixState => actions.reduce(matrixReducer, initialMatrix);
const cell = (caseId: string, column: string) => {
  const c = cellOf(run.matrix, caseId, column);
  if (!c) throw new Error(`no cell ${caseId} ${column}`);
  return c;
};

describe('the suite matrix state', () => {
  it('hides and shows a column again; the failing filter looks at the shown columns only', () => {
    expect(matrixView(run, apply({ type: 'filter', filter: 'failing' })).rows).toEqual(['tokyo', 'paris']);
    const noWeak = apply({ type: 'filter', filter: 'failing' }, { type: 'toggleColumn', column: 'weak' });
    expect(matrixView(run, noWeak).columns.map((c) => c.id)).toEqual(['good']);
    expect(matrixView(run, noWeak).rows).toEqual([]);
    const back = matrixReducer(noWeak, { type: 'toggleColumn', column: 'weak' });
    expect(back.hidden).toEqual([]);
    expect(matrixView(run, apply({ type: 'filter', filter: 'passing' })).rows).toEqual([]);
  });

  it('filters cases by text, case-insensitively', () => {
    expect(matrixView(run, apply({ type: 'text', text: ' TOK ' })).rows).toEqual(['tokyo']);
  });

  it('a cell opens its runs; the same cell closes them, another opens its own', () => {
    const a = cellKey('tokyo', 'weak');
    const b = cellKey('paris', 'weak');
    expect(apply({ type: 'toggleCell', key: a }).open).toBe(a);
    expect(apply({ type: 'toggleCell', key: a }, { type: 'toggleCell', key: a }).open).toBeUndefined();
    expect(apply({ type: 'toggleCell', key: a }, { type: 'toggleCell', key: b }).open).toBe(b);
  });

  it('a cell reads as met, failed, or not judged (infrastructure)', () => {
    expect([cellClass(cell('tokyo', 'good')), cellMark(cell('tokyo', 'good'))]).toEqual([
      'cell cell-pass',
      '✓',
    ]);
    expect([cellClass(cell('tokyo', 'weak')), cellMark(cell('tokyo', 'weak'))]).toEqual([
      'cell cell-fail',
      '✗',
    ]);
    expect([cellClass(cell('paris', 'weak')), cellMark(cell('paris', 'weak'))]).toEqual([
      'cell cell-error',
      '⚠ error',
    ]);
    expect(cellNumbers(cell('tokyo', 'good'))).toBe(' 1.0 att · 100 tok · 1.5 s');
    expect(cellNumbers(cell('tokyo', 'weak'))).toBe(' 1.0 att · 100 tok · 1.5 s · $0.00200');
  });

  it('a column total names cases met, the pass rate and the median latency; none reads –', () => {
    expect(totalText(run.matrix.totals[1])).toBe('2/2 met · 100% runs · 200 tok · – · p50 1.5 s');
    expect(totalText(undefined)).toBe('–');
  });
});

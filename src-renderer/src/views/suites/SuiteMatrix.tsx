/**
 * The matrix case x model: filters, one cell per case and column, a cell opens its runs. State: the
 * pure suite-matrix.ts; parts: SuiteMatrixParts.tsx.
 */
import { useReducer } from 'react';
import type { SuiteRunFullView } from '../../../../src-main/contract/api.ts';
import { useStore } from '../../store/index.ts';
import { initialMatrix, matrixReducer, matrixView } from './suite-matrix.ts';
import { MatrixTable, MatrixToolbar } from './SuiteMatrixParts.tsx';

export function SuiteMatrix({ run }: { run: SuiteRunFullView }) {
  const navigate = useStore((s) => s.navigate);
  const setFilters = useStore((s) => s.setFilters);
  const [state, dispatch] = useReducer(matrixReducer, initialMatrix);
  const { columns, rows } = matrixView(run, state);
  return (
    <div className="suite-matrix" data-testid="suite-matrix">
      <MatrixToolbar
        state={state}
        columns={run.matrix.columns}
        onText={(text) => dispatch({ type: 'text', text })}
        onFilter={(filter) => dispatch({ type: 'filter', filter })}
        onToggleColumn={(column) => dispatch({ type: 'toggleColumn', column })}
        onRunsOfSuiteRun={() => {
          setFilters({ suiteRun: run.id });
          navigate({ view: 'runs' });
        }}
      />
      <MatrixTable
        run={run}
        columns={columns}
        rows={rows}
        open={state.open}
        onToggleCell={(key) => dispatch({ type: 'toggleCell', key })}
        onOpenRun={(id) => navigate({ view: 'run', id })}
      />
      {rows.length === 0 && <p className="muted">No case matches the filters.</p>}
    </div>
  );
}

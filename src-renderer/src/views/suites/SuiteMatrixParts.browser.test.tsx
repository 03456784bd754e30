import { useReducer } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { suiteRun } from './suite-fixture.ts';
import { initialMatrix, matrixReducer, matrixView } from './suite-matrix.ts';
import { MatrixTable, MatrixToolbar } from './SuiteMatrixParts.tsx';

/** The toolbar and table on the real reducer, as SuiteMatrix wires them. */
function Harness({
  onOpenRun = () => {},
  onRuns = () => {},
}: {
  onOpenRun?: (id: string) => void;
  onRuns?: () => void;
}) {
  const run = suiteRun();
  const [s, dispatch] = useReducer(matrixReducer, initialMatrix);
  const { columns, rows } = matrixView(run, s);
  return (
    <>
      <MatrixToolbar
        state={s}
        columns={run.matrix.columns}
        onText={(text) => dispatch({ type: 'text', text })}
        onFilter={(filter) => dispatch({ type: 'filter', filter })}
        onToggleColumn={(column) => dispatch({ type: 'toggleColumn', column })}
        onRunsOfSuiteRun={onRuns}
      />
      <MatrixTable
        run={run}
        columns={columns}
        rows={rows}
        open={s.open}
        onToggleCell={(key) => dispatch({ type: 'toggleCell', key })}
        onOpenRun={onOpenRun}
      />
    </>
  );
}

describe('the suite matrix', () => {
  it('a cell opens its runs and verdicts; a run opens; the cell closes them again', async () => {
    const onOpenRun = vi.fn();
    const screen = await render(<Harness onOpenRun={onOpenRun} />);
    const cell = screen.getByTestId('cell-tokyo-weak');
    await expect.element(cell).toHaveAttribute('aria-expanded', 'false');
    await expect.element(cell).toHaveAttribute('title', 'expected "Tokyo"');
    await cell.click();
    await expect.element(cell).toHaveAttribute('aria-expanded', 'true');
    await expect.element(screen.getByText('tokyo @ weak')).toBeInTheDocument();
    await expect.element(screen.getByText('✗ equals: expected "Tokyo", got "Kyoto"')).toBeInTheDocument();
    await screen.getByRole('button', { name: 'run tokyo-we' }).click();
    expect(onOpenRun).toHaveBeenCalledWith('tokyo-weak-run-0001');
    await cell.click();
    await expect.element(screen.getByText('tokyo @ weak')).not.toBeInTheDocument();
  });

  it('a case that could not be judged reads as an error, not a failure, and has no run', async () => {
    const screen = await render(<Harness />);
    const cell = screen.getByTestId('cell-paris-weak');
    await expect.element(cell).toMatchTextContent(/^⚠ error 0\/1 /);
    await cell.click();
    await expect.element(screen.getByText('no run', { exact: false })).toBeInTheDocument();
    await expect.element(screen.getByText('no engine')).toBeInTheDocument();
  });

  it('unticking a column hides it and its total; "failing" then shows no case', async () => {
    const screen = await render(<Harness />);
    await expect.element(screen.getByTestId('total-weak')).toMatchTextContent(/^0\/2 met · 0% runs/);
    await screen.getByRole('checkbox', { name: 'weak' }).click();
    await expect.element(screen.getByTestId('total-weak')).not.toBeInTheDocument();
    await expect.element(screen.getByTestId('cell-tokyo-weak')).not.toBeInTheDocument();
    await screen.getByLabelText('show').selectOptions('failing');
    await expect.element(screen.getByRole('rowheader', { name: 'tokyo' })).not.toBeInTheDocument();
    await screen.getByRole('checkbox', { name: 'weak' }).click();
    await expect.element(screen.getByRole('rowheader', { name: 'tokyo' })).toBeInTheDocument();
  });

  it('the text filter keeps the matching cases; the runs button asks for the runs of the suite run', async () => {
    const onRuns = vi.fn();
    const screen = await render(<Harness onRuns={onRuns} />);
    await screen.getByLabelText('filter cases').fill('par');
    await expect.element(screen.getByRole('rowheader', { name: 'paris' })).toBeInTheDocument();
    await expect.element(screen.getByRole('rowheader', { name: 'tokyo' })).not.toBeInTheDocument();
    await screen.getByRole('button', { name: 'Runs of this suite run' }).click();
    expect(onRuns).toHaveBeenCalledTimes(1);
  });

  it('a running suite marks the cells still to come', async () => {
    const run = suiteRun({ status: 'running' });
    const partial = { ...run, matrix: { ...run.matrix, cells: run.matrix.cells.slice(0, 1) } };
    const screen = await render(
      <MatrixTable
        run={partial}
        columns={run.matrix.columns}
        rows={['tokyo']}
        open={undefined}
        onToggleCell={() => {}}
        onOpenRun={() => {}}
      />,
    );
    await expect.element(screen.getByRole('cell', { name: '…' })).toBeInTheDocument();
  });
});

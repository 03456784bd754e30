import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { initialSuiteStart } from './suite-start.ts';
import { SuiteList, SuiteStartForm } from './SuitesParts.tsx';

const noop = () => {};
const history = [
  { id: 'r2', createdAt: Date.UTC(2026, 0, 2, 10, 0), status: 'passed', passed: 4, done: 4 },
  { id: 'r1', createdAt: Date.UTC(2026, 0, 1, 10, 0), status: 'failed', passed: 1, done: 4 },
];

describe('SuiteList', () => {
  it('marks the open suite, flags one with problems and opens another', async () => {
    const onOpen = vi.fn();
    const suites = [
      { name: 'smoke', cases: 3, last: { status: 'passed' } },
      { name: 'broken', cases: 0, error: 'cases: required' },
    ] as never;
    const screen = await render(<SuiteList suites={suites} current="smoke" onOpen={onOpen} />);
    await expect
      .element(screen.getByRole('button', { name: /smoke/ }))
      .toHaveAttribute('aria-current', 'page');
    await expect.element(screen.getByRole('button', { name: /broken/ })).toMatchTextContent(/· problems/);
    await screen.getByRole('button', { name: /broken/ }).click();
    expect(onOpen).toHaveBeenCalledWith('broken');
  });

  it('says how to add a suite when there is none', async () => {
    const screen = await render(<SuiteList suites={[]} current={undefined} onOpen={noop} />);
    await expect
      .element(screen.getByText('No suites: add suites/NAME.toml to the workspace.'))
      .toBeInTheDocument();
  });
});

describe('SuiteStartForm', () => {
  const props = {
    onChange: noop,
    onCancel: noop,
    running: false,
    hasProblems: false,
    history,
    selectedRun: 'r2',
    onSelectRun: noop,
  };

  it("starts with the fields' options and picks another suite run", async () => {
    const onStart = vi.fn();
    const onSelectRun = vi.fn();
    const screen = await render(
      <SuiteStartForm
        {...props}
        fields={{ models: 'qwen, gpt', repeat: '2', concurrency: '' }}
        onStart={onStart}
        onSelectRun={onSelectRun}
      />,
    );
    await screen.getByRole('button', { name: 'Start suite' }).click();
    expect(onStart).toHaveBeenCalledWith({ models: ['qwen', 'gpt'], repeat: 2 });
    await screen.getByLabelText('suite run').selectOptions('r1');
    expect(onSelectRun).toHaveBeenCalledWith('r1');
  });

  it('a running suite offers Cancel; problems or a run under way disable Start', async () => {
    const onCancel = vi.fn();
    const screen = await render(
      <SuiteStartForm {...props} fields={initialSuiteStart} onStart={noop} running onCancel={onCancel} />,
    );
    await expect.element(screen.getByRole('button', { name: 'Start suite' })).toBeDisabled();
    await screen.getByRole('button', { name: 'Cancel' }).click();
    expect(onCancel).toHaveBeenCalledTimes(1);
    await screen.rerender(
      <SuiteStartForm {...props} fields={initialSuiteStart} onStart={noop} hasProblems />,
    );
    await expect.element(screen.getByRole('button', { name: 'Start suite' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Cancel' }).query()).toBeNull();
  });
});

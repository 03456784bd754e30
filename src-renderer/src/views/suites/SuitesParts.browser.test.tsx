import { describe, expect, it, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { suiteRun } from './suite-fixture.ts';
import { initialSuiteStart } from './suite-start.ts';
import {
  DeleteSuite,
  NewSuiteForm,
  SuiteHead,
  SuiteList,
  SuiteProblems,
  SuiteProgress,
  SuiteStartForm,
  SuiteTabs,
} from './SuitesParts.tsx';

const noop = () => {};
const history = [
  {
    id: 'r2',
    createdAt: Date.UTC(2026, 0, 2, 10, 0),
    status: 'passed',
    passed: 4,
    done: 4,
    spec: { planned: 4 },
  },
  {
    id: 'r1',
    createdAt: Date.UTC(2026, 0, 1, 10, 0),
    status: 'failed',
    passed: 1,
    done: 4,
    spec: { planned: 4 },
  },
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
      .element(
        screen.getByText('No suites yet: create one with New suite (it is saved as suites/NAME.toml).'),
      )
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

  it('says there is no suite run yet instead of showing an empty picker', async () => {
    const screen = await render(
      <SuiteStartForm
        {...props}
        history={[]}
        selectedRun={undefined}
        fields={initialSuiteStart}
        onStart={noop}
      />,
    );
    await expect.element(screen.getByText('no suite runs yet')).toBeVisible();
    expect(screen.container.querySelector('select[aria-label="suite run"]')).toBeNull();
  });

  it('the picker counts a run under way as the progress line does (done/planned runs, live)', async () => {
    const running = {
      id: 'r3',
      createdAt: Date.UTC(2026, 0, 3, 10, 0),
      status: 'running',
      passed: 0,
      done: 0,
      spec: { planned: 8 },
    };
    const live = {
      suiteRun: 'r3',
      suite: 'smoke',
      planned: 8,
      done: 2,
      passed: 1,
      failed: 1,
      errors: 0,
      running: 2,
      status: 'running',
    } as const;
    const screen = await render(
      <SuiteStartForm
        {...props}
        history={[running, ...history]}
        selectedRun="r3"
        fields={initialSuiteStart}
        onStart={noop}
        running
        live={live}
      />,
    );
    const options = [...(screen.getByLabelText('suite run').element() as HTMLSelectElement).options];
    expect(options[0]!.text).toMatch(/ · running · 2\/8 runs · 1 passed$/);
    expect(options[1]!.text).toMatch(/ · passed · 4\/4 runs · 4 passed$/);
    expect(options.map((o) => o.text).join()).not.toContain('0/0');
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

describe('the open suite', () => {
  it('Save and Revert are offered only with unsaved changes, which the head names', async () => {
    const onSave = vi.fn();
    const onRevert = vi.fn();
    const screen = await render(<SuiteHead name="cities" dirty onSave={onSave} onRevert={onRevert} />);
    await expect.element(screen.getByText('suites/cities.toml')).toBeInTheDocument();
    await expect.element(screen.getByText('unsaved changes')).toBeVisible();
    await screen.getByRole('button', { name: 'Save' }).click();
    expect(onSave).toHaveBeenCalledTimes(1);
    await screen.getByRole('button', { name: 'Revert' }).click();
    expect(onRevert).toHaveBeenCalledTimes(1);
    await screen.rerender(<SuiteHead name="cities" dirty={false} onSave={onSave} onRevert={onRevert} />);
    await expect.element(screen.getByRole('button', { name: 'Save' })).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'Revert' })).not.toBeInTheDocument();
    await expect.element(screen.getByText('unsaved changes')).not.toBeInTheDocument();
  });

  it('lists each schema problem with its line and path', async () => {
    const screen = await render(
      <SuiteProblems problems={[{ line: 4, column: 3, path: 'cases[1].expect', message: 'unknown key' }]} />,
    );
    await expect
      .element(screen.getByTestId('suite-problems'))
      .toHaveTextContent('line 4:3 cases[1].expect: unknown key');
  });

  it('the progress of a finished run: status, counts and the errors apart from the failures', async () => {
    const screen = await render(<SuiteProgress run={suiteRun()} live={undefined} />);
    await expect.element(screen.getByTestId('suite-progress')).toHaveAttribute('data-status', 'failed');
    await expect
      .element(screen.getByTestId('suite-progress'))
      .toHaveTextContent(
        'failed 4/4 runs · 2 passed · 1 failed · 1 error(s) (infrastructure) · 2/4 cells meet their threshold · tools abc123',
      );
    await expect.element(screen.getByRole('progressbar')).toHaveAttribute('value', '4');
  });

  it('the tabs say which is shown and switch', async () => {
    const onTab = vi.fn();
    const screen = await render(<SuiteTabs tab="matrix" onTab={onTab} />);
    await expect
      .element(screen.getByRole('tab', { name: 'Matrix' }))
      .toHaveAttribute('aria-selected', 'true');
    await expect
      .element(screen.getByRole('tab', { name: 'Compare' }))
      .toHaveAttribute('aria-selected', 'false');
    await screen.getByRole('tab', { name: 'Compare' }).click();
    expect(onTab).toHaveBeenCalledWith('compare');
  });

  it("the tabs keyboard is the tool picker's: arrows wrap, Home and End, selection follows focus", async () => {
    const onTab = vi.fn();
    const screen = await render(<SuiteTabs tab="matrix" onTab={onTab} />);
    await expect.element(screen.getByRole('tab', { name: 'Charts' })).toHaveAttribute('tabindex', '-1');
    (screen.getByRole('tab', { name: 'Matrix' }).element() as HTMLElement).focus();
    await userEvent.keyboard('{ArrowLeft}');
    await expect.element(screen.getByRole('tab', { name: 'Compare' })).toHaveFocus();
    await userEvent.keyboard('{Home}');
    await userEvent.keyboard('{ArrowRight}');
    expect(onTab.mock.calls).toEqual([['compare'], ['matrix'], ['charts']]);
  });
});

describe('suites from the view: New suite and Delete', () => {
  it('New suite sends its name, sandbox and first task; Create waits for all three', async () => {
    const onNew = vi.fn();
    const list = await render(<SuiteList suites={[]} current={undefined} onOpen={noop} onNew={onNew} />);
    await list.getByRole('button', { name: 'New suite' }).click();
    expect(onNew).toHaveBeenCalledTimes(1);

    const onCreate = vi.fn();
    const screen = await render(
      <NewSuiteForm
        sandboxes={['ecommerce', 'support']}
        busy={false}
        error={undefined}
        onCreate={onCreate}
        onCancel={noop}
      />,
    );
    const create = screen.getByRole('button', { name: 'Create suite' });
    await expect.element(create).toBeDisabled();
    await screen.getByLabelText('name').fill('smoke tests');
    await expect.element(create).toHaveAttribute('title', 'A name has letters, digits, _ . - only.');
    await screen.getByLabelText('name').fill('smoke');
    await screen.getByLabelText('sandbox').selectOptions('support');
    await expect.element(create).toHaveAttribute('title', 'Write the first case’s task.');
    await screen.getByLabelText('first case’s task').fill('  List the open tickets.  ');
    await create.click();
    expect(onCreate).toHaveBeenCalledWith({
      name: 'smoke',
      sandbox: 'support',
      task: 'List the open tickets.',
    });
  });

  it('shows the service refusing a suite', async () => {
    const screen = await render(
      <NewSuiteForm
        sandboxes={['ecommerce']}
        busy={false}
        error="suite smoke exists already: /w/suites/smoke.toml"
        onCreate={noop}
        onCancel={noop}
      />,
    );
    await expect.element(screen.getByRole('alert')).toBeVisible();
    expect(screen.getByRole('alert').element().textContent).toContain('exists already');
  });

  it('Delete asks once more, naming the file; Keep it goes back', async () => {
    const onDelete = vi.fn();
    const screen = await render(<DeleteSuite name="smoke" onDelete={onDelete} />);
    await screen.getByRole('button', { name: 'Delete' }).click();
    await expect.element(screen.getByRole('group', { name: 'confirm delete' })).toBeVisible();
    expect(screen.getByRole('group', { name: 'confirm delete' }).element().textContent).toContain(
      'Delete suites/smoke.toml?',
    );
    await screen.getByRole('button', { name: 'Keep it' }).click();
    expect(onDelete).not.toHaveBeenCalled();
    await screen.getByRole('button', { name: 'Delete' }).click();
    await screen.getByRole('button', { name: 'Delete suite' }).click();
    expect(onDelete).toHaveBeenCalledTimes(1);
  });
});

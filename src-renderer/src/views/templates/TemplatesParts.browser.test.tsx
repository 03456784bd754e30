import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import type { TemplateInfo } from '../../../../src-main/contract/api.ts';
import { PromoteFailed, TemplateProblems, TemplatesHead, TemplatesTable } from './TemplatesParts.tsx';
import type { RowActions } from './TemplatesParts.tsx';

const template = (name: string, over: Partial<TemplateInfo> = {}): TemplateInfo => ({
  name,
  pattern: 'name of user {id}',
  slots: { id: 'str' },
  body: 'emit_result({{id}})',
  sandbox: 'users',
  language: 'python',
  examples: [{ intent: 'name of user u1' }],
  file: `/w/templates/${name}.json`,
  successes: 3,
  failures: 1,
  lastUsed: null,
  ...over,
});

const actions = (): RowActions => ({
  onTest: vi.fn(),
  onEdit: vi.fn(),
  onConfirmDelete: vi.fn(),
  onDelete: vi.fn(),
  onCloseTest: vi.fn(),
});

describe('TemplatesTable', () => {
  it('tests and edits the template of its row', async () => {
    const a = actions();
    const t = template('b');
    const screen = await render(
      <TemplatesTable
        templates={[template('a'), t]}
        tests={{}}
        confirmDelete={undefined}
        deleting={false}
        {...a}
      />,
    );
    const row = screen.getByRole('row').filter({ hasText: 'b.json' });
    await row.getByRole('button', { name: 'Test' }).click();
    await row.getByRole('button', { name: 'Edit' }).click();
    expect(a.onTest).toHaveBeenCalledWith('b');
    expect(a.onEdit).toHaveBeenCalledWith(t);
    await expect.element(row.getByTestId('template-successes')).toHaveTextContent('3');
    await expect.element(row.getByTestId('template-failures')).toHaveClass('counter-bad');
    await expect.element(row.getByText('never')).toBeInTheDocument();
  });

  it('a template without examples cannot be tested; a running test says so', async () => {
    const screen = await render(
      <TemplatesTable
        templates={[template('none', { examples: [] }), template('busy')]}
        tests={{ busy: { running: true } }}
        confirmDelete={undefined}
        deleting={false}
        {...actions()}
      />,
    );
    const none = screen.getByRole('row').filter({ hasText: 'none.json' });
    await expect.element(none.getByRole('button', { name: 'Test' })).toBeDisabled();
    await expect
      .element(none.getByRole('button', { name: 'Test' }))
      .toHaveAttribute('title', 'This template has no examples to test');
    await expect.element(screen.getByRole('button', { name: 'Testing…' })).toBeDisabled();
    await expect.element(screen.getByText('Running the examples in the sandbox…')).toBeInTheDocument();
    // No "close" while the test runs.
    await expect.element(screen.getByRole('button', { name: 'close' })).not.toBeInTheDocument();
  });

  it('Delete asks first; "Yes, delete" deletes that template, "Keep" stops asking', async () => {
    const a = actions();
    const screen = await render(
      <TemplatesTable
        templates={[template('a'), template('b')]}
        tests={{}}
        confirmDelete={undefined}
        deleting={false}
        {...a}
      />,
    );
    await screen
      .getByRole('row')
      .filter({ hasText: 'a.json' })
      .getByRole('button', { name: 'Delete' })
      .click();
    expect(a.onConfirmDelete).toHaveBeenLastCalledWith('a');
    expect(a.onDelete).not.toHaveBeenCalled();
    await screen.rerender(
      <TemplatesTable
        templates={[template('a'), template('b')]}
        tests={{}}
        confirmDelete="a"
        deleting={false}
        {...a}
      />,
    );
    const confirm = screen.getByRole('group', { name: 'confirm delete a' });
    await confirm.getByRole('button', { name: 'Yes, delete' }).click();
    expect(a.onDelete).toHaveBeenCalledWith('a');
    await confirm.getByRole('button', { name: 'Keep' }).click();
    expect(a.onConfirmDelete).toHaveBeenLastCalledWith(undefined);
    await screen.rerender(
      <TemplatesTable
        templates={[template('a'), template('b')]}
        tests={{}}
        confirmDelete="a"
        deleting
        {...a}
      />,
    );
    await expect.element(confirm.getByRole('button', { name: 'Deleting…' })).toBeDisabled();
    await expect.element(confirm.getByRole('button', { name: 'Keep' })).toBeDisabled();
  });

  it('shows a finished test under its row and closes it', async () => {
    const a = actions();
    const screen = await render(
      <TemplatesTable
        templates={[template('a')]}
        tests={{
          a: {
            running: false,
            result: {
              name: 'a',
              passed: false,
              examples: [{ intent: 'name of user u1', matched: true, success: false, error: 'KeyError: u1' }],
            },
          },
        }}
        confirmDelete={undefined}
        deleting={false}
        {...a}
      />,
    );
    await expect.element(screen.getByText('1 of 1 example failed')).toBeInTheDocument();
    await expect.element(screen.getByText('KeyError: u1')).toBeInTheDocument();
    await screen.getByRole('button', { name: 'close' }).click();
    expect(a.onCloseTest).toHaveBeenCalledWith('a');
  });
});

describe('the head, promotion failure and unreadable files', () => {
  it('Reload reloads; while loading it is disabled', async () => {
    const onReload = vi.fn();
    const screen = await render(<TemplatesHead loading={false} onReload={onReload} />);
    await screen.getByRole('button', { name: 'Reload' }).click();
    expect(onReload).toHaveBeenCalledTimes(1);
    await screen.rerender(<TemplatesHead loading onReload={onReload} />);
    await expect.element(screen.getByRole('button', { name: 'Loading…' })).toBeDisabled();
  });

  it('a failed promotion names its cause and offers the run only when it is known', async () => {
    const onClose = vi.fn();
    const onBack = vi.fn();
    const screen = await render(
      <PromoteFailed
        what="run 01234567"
        error="the run has no script"
        onClose={onClose}
        onBackToRun={onBack}
      />,
    );
    await expect
      .element(screen.getByRole('alert'))
      .toHaveTextContent('Could not propose a template from run 01234567: the run has no script');
    await screen.getByRole('button', { name: 'Back to the run' }).click();
    await screen.getByRole('button', { name: 'Close' }).click();
    expect(onBack).toHaveBeenCalledTimes(1);
    expect(onClose).toHaveBeenCalledTimes(1);
    await screen.rerender(
      <PromoteFailed what="run 01234567" error="x" onClose={onClose} onBackToRun={undefined} />,
    );
    await expect.element(screen.getByRole('button', { name: 'Back to the run' })).not.toBeInTheDocument();
  });

  it('counts and lists the files that could not be read; none shows nothing', async () => {
    const screen = await render(
      <TemplateProblems
        problems={[
          { file: 'a.json', error: 'bad JSON' },
          { file: 'b.json', error: 'no pattern' },
        ]}
      />,
    );
    await expect
      .element(screen.getByTestId('template-problems'))
      .toMatchTextContent(/^2 template files could not be read \(not served\):/);
    await expect.element(screen.getByText('no pattern')).toBeInTheDocument();
    await screen.rerender(<TemplateProblems problems={[]} />);
    await expect.element(screen.getByTestId('template-problems')).not.toBeInTheDocument();
  });
});

import { useReducer } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import type { Response } from '../../../../src-main/contract/api.ts';
import type { KitList } from '../../store/settings.ts';
import { NewRunForm } from './NewRunForm.tsx';
import { initialNewRun, newRunProblem, newRunReducer } from './new-run.ts';
import type { NewRunAction, NewRunState } from './new-run.ts';

const sandboxes = [
  { name: 'demo', tools: 3 },
  { name: 'billing', tools: 1 },
] as Response<'sandboxes.list'>;
const kits = [
  { name: 'readonly', sandbox: 'demo', kit: { grade: { w: 1, d: 0 } } },
  { name: 'broken', sandbox: 'demo', error: 'grade d2 exceeds the workspace maximum d1' },
] as unknown as KitList;

/** The form on the real reducer, as the view wires it; every action and submit is recorded. */
function Harness(props: {
  onSubmit: () => void;
  seen: NewRunAction[];
  start?: Partial<NewRunState>;
  loadError?: string;
  sandboxes?: Response<'sandboxes.list'>;
}) {
  const [state, dispatch] = useReducer(newRunReducer, { ...initialNewRun, sandbox: 'demo', ...props.start });
  return (
    <NewRunForm
      state={state}
      dispatch={(a) => (props.seen.push(a), dispatch(a))}
      problem={newRunProblem(state)}
      onSubmit={props.onSubmit}
      sandboxes={props.sandboxes ?? sandboxes}
      kits={kits}
      providers={[]}
      loadError={props.loadError}
    />
  );
}

describe('NewRunForm', () => {
  it('keeps Start from starting until there is a task, then starts with a click or Ctrl+Enter', async () => {
    const onSubmit = vi.fn();
    const screen = await render(<Harness onSubmit={onSubmit} seen={[]} />);
    const start = screen.getByRole('button', { name: 'Start run' });
    await expect.element(start).toHaveAttribute('aria-disabled', 'true');
    await screen.getByLabelText('task').fill('What is the name of user u1?');
    await expect.element(start).not.toHaveAttribute('aria-disabled');
    await expect.element(start).toBeEnabled();
    await start.click();
    expect(onSubmit).toHaveBeenCalledTimes(1);
    await screen.getByLabelText('task').click();
    await userEvent.keyboard('{Control>}{Enter}{/Control}');
    expect(onSubmit).toHaveBeenCalledTimes(2);
  });

  it('a number field emptied stays empty (it showed 0 at once) and Start says what to fill in', async () => {
    const screen = await render(<Harness onSubmit={vi.fn()} seen={[]} start={{ task: 'x' }} />);
    const retries = screen.getByLabelText('Max retries');
    await retries.fill('');
    await expect.element(retries).toHaveValue(null);
    await expect
      .element(screen.getByText('Max retries must be a whole number from 0 to 20.'))
      .toBeInTheDocument();
    await retries.fill('2');
    await expect.element(retries).toHaveValue(2);
  });

  it('with no task, says why Start cannot go beside it, reachable by Tab and read as its description', async () => {
    const onSubmit = vi.fn();
    const screen = await render(<Harness onSubmit={onSubmit} seen={[]} />);
    const start = screen.getByRole('button', { name: 'Start run' });
    // In words on the page, not only in a tooltip (a title no keyboard or touch user ever sees).
    const why = screen.getByTestId('start-problem');
    await expect.element(why).toBeVisible();
    expect(why.element().textContent).toBe('Describe the task.');
    expect(start.element().getAttribute('title')).toBeNull();
    // A screen reader reads it with the button; the button stays in the tab order (aria-disabled).
    await expect.element(start).toHaveAccessibleDescription('Describe the task.');
    (start.element() as HTMLButtonElement).focus();
    expect(document.activeElement).toBe(start.element());
    // Pressed anyway (Enter, a click, Ctrl+Enter in the field): nothing starts, the focus goes to the task.
    await userEvent.keyboard('{Enter}');
    expect(onSubmit).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(screen.getByLabelText('task').element());
    await userEvent.keyboard('{Control>}{Enter}{/Control}');
    expect(onSubmit).not.toHaveBeenCalled();
    // A task: the reason goes, the shortcut shows again.
    await screen.getByLabelText('task').fill('find u1');
    expect(screen.getByTestId('start-problem').query()).toBeNull();
    await expect.element(start).not.toHaveAttribute('aria-describedby');
  });

  it('a workspace with no sandboxes says so beside the form and where to create one', async () => {
    const screen = await render(
      <Harness onSubmit={() => {}} seen={[]} sandboxes={[]} start={{ sandbox: '', task: 'find u1' }} />,
    );
    await expect
      .element(screen.getByRole('button', { name: 'Start run' }))
      .toHaveAccessibleDescription('Pick a sandbox.');
    const note = screen.getByTestId('no-sandboxes');
    await expect.element(note).toBeVisible();
    expect(note.element().textContent).toContain('This workspace has no sandboxes');
    await expect
      .element(note.getByRole('link', { name: 'Workspace' }))
      .toHaveAttribute('href', '#/workspace');
  });

  it('a workspace with sandboxes has no such note', async () => {
    const screen = await render(<Harness onSubmit={() => {}} seen={[]} />);
    await expect.element(screen.getByRole('button', { name: 'Start run' })).toBeInTheDocument();
    expect(screen.getByTestId('no-sandboxes').query()).toBeNull();
  });

  it('names each number field by the label it shows (screen readers read what the eye reads)', async () => {
    const screen = await render(<Harness onSubmit={() => {}} seen={[]} />);
    for (const name of ['Model', 'Max retries', 'Max steps', 'Timeout (s)'])
      await expect.element(screen.getByLabelText(name, { exact: true })).toBeInTheDocument();
  });

  it('disables a refused kit and shows its grade for an accepted one', async () => {
    const screen = await render(<Harness onSubmit={() => {}} seen={[]} />);
    await expect.element(screen.getByRole('option', { name: 'broken — refused' })).toBeDisabled();
    await expect.element(screen.getByRole('option', { name: 'readonly (w1, d0)' })).toBeEnabled();
  });

  it('choosing another sandbox sends a sandbox action, which clears the kit', async () => {
    const seen: NewRunAction[] = [];
    const screen = await render(<Harness onSubmit={() => {}} seen={seen} start={{ kit: 'readonly' }} />);
    await expect.element(screen.getByLabelText('kit')).toHaveValue('readonly');
    await screen.getByLabelText('sandbox').selectOptions('billing');
    expect(seen).toContainEqual({ type: 'sandbox', sandbox: 'billing' });
    await expect.element(screen.getByLabelText('kit')).toHaveValue('');
  });

  it('says "Starting…" while busy and names a load error', async () => {
    const screen = await render(
      <Harness onSubmit={() => {}} seen={[]} start={{ task: 't', busy: true }} loadError="service down" />,
    );
    await expect.element(screen.getByRole('button', { name: 'Starting…' })).toBeDisabled();
    await expect
      .element(screen.getByRole('alert'))
      .toHaveTextContent('Could not load kits and providers: service down');
  });
});

import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { RunsError, RunsHead, RunsNote } from './RunsParts.tsx';

const noop = () => {};

describe('the run list parts', () => {
  it('the head shows the count, and the count button only for a lower bound', async () => {
    const onCount = vi.fn();
    const exact = await render(
      <RunsHead label="12 runs" totalExact counting={false} onCount={onCount} onNew={noop} onImport={noop} />,
    );
    await expect.element(exact.getByTestId('runs-total')).toHaveTextContent('12 runs');
    expect(exact.container.querySelector('[data-testid="runs-count"]')).toBeNull();
    await exact.unmount();

    const bound = await render(
      <RunsHead
        label="100+ runs"
        totalExact={false}
        counting={false}
        onCount={onCount}
        onNew={noop}
        onImport={noop}
      />,
    );
    await bound.getByTestId('runs-count').click();
    expect(onCount).toHaveBeenCalledOnce();
    await bound.unmount();

    const counting = await render(
      <RunsHead
        label="100+ runs"
        totalExact={false}
        counting
        onCount={onCount}
        onNew={noop}
        onImport={noop}
      />,
    );
    await expect.element(counting.getByTestId('runs-count')).toBeDisabled();
    await expect.element(counting.getByTestId('runs-count')).toHaveTextContent('counting…');
  });

  it('New run and Import hand over to the view', async () => {
    const onNew = vi.fn();
    const onImport = vi.fn();
    const s = await render(
      <RunsHead
        label="0 runs"
        totalExact
        counting={false}
        onCount={noop}
        onNew={onNew}
        onImport={onImport}
      />,
    );
    await s.getByRole('button', { name: 'New run' }).click();
    expect(onNew).toHaveBeenCalledOnce();
    const file = new File(['{}'], 'run.json', { type: 'application/json' });
    await s.getByLabelText('import run file').upload(file);
    await vi.waitFor(() => expect(onImport).toHaveBeenCalledOnce());
    expect((onImport.mock.calls[0]![0] as File).name).toBe('run.json');
  });

  it('the error offers a retry; no error shows nothing', async () => {
    const onRetry = vi.fn();
    const s = await render(<RunsError error="the service is down" onRetry={onRetry} />);
    await expect.element(s.getByRole('alert')).toMatchTextContent('Could not list runs: the service is down');
    await s.getByRole('button', { name: 'Retry' }).click();
    expect(onRetry).toHaveBeenCalledOnce();
    await s.unmount();
    const none = await render(<RunsError error={undefined} onRetry={onRetry} />);
    expect(none.container.textContent).toBe('');
  });

  it('an empty list says so and offers a first run; a filtered one says nothing matches', async () => {
    const onNew = vi.fn();
    const empty = await render(<RunsNote note="empty" onNew={onNew} />);
    await empty.getByRole('button', { name: 'Start one' }).click();
    expect(onNew).toHaveBeenCalledOnce();
    await empty.unmount();
    const none = await render(<RunsNote note="no-match" onNew={onNew} />);
    await expect.element(none.getByText('No run matches these filters.')).toBeVisible();
    await none.unmount();
    const loading = await render(<RunsNote note="loading" onNew={onNew} />);
    await expect.element(loading.getByText('Loading runs…')).toBeVisible();
  });
});

import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { AddToSuiteForm } from './AddToSuite.tsx';

describe('AddToSuiteForm', () => {
  it("adds the run's task to the suite picked, then links the new case", async () => {
    const onAdd = vi.fn();
    const onOpen = vi.fn();
    const props = { busy: false, error: undefined, onAdd, onOpen };
    const screen = await render(
      <AddToSuiteForm {...props} suites={['ecommerce', 'support']} added={undefined} />,
    );
    await screen.getByLabelText('suite to add this task to').selectOptions('support');
    await screen.getByRole('button', { name: 'Add to suite' }).click();
    expect(onAdd).toHaveBeenCalledWith('support');
    await screen.rerender(
      <AddToSuiteForm
        {...props}
        suites={['ecommerce', 'support']}
        added={{ suite: 'support', id: 'open-tickets-2' }}
      />,
    );
    await screen.getByRole('button', { name: 'support/open-tickets-2' }).click();
    expect(onOpen).toHaveBeenCalledWith('support');
  });

  it('shows the refusal; no suites, no form', async () => {
    const screen = await render(
      <AddToSuiteForm
        suites={['support']}
        busy={false}
        error="suite support runs in sandbox support, this task in ecommerce"
        added={undefined}
        onAdd={() => {}}
        onOpen={() => {}}
      />,
    );
    await expect.element(screen.getByRole('alert')).toBeVisible();
    expect(screen.getByRole('alert').element().textContent).toContain('runs in sandbox support');
    await screen.rerender(
      <AddToSuiteForm
        suites={[]}
        busy={false}
        error={undefined}
        added={undefined}
        onAdd={() => {}}
        onOpen={() => {}}
      />,
    );
    expect(screen.getByRole('button', { name: 'Add to suite' }).query()).toBeNull();
  });
});

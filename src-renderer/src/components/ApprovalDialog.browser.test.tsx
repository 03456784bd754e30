import { describe, expect, it, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { ApprovalDialog } from './ApprovalDialog.tsx';

const request = {
  id: '00000000-0000-4000-8000-000000000001',
  sandbox: 'support',
  tool: 'add_note',
  alias: 'note',
  args: { ticket_id: 101, text: 'checked <b>twice</b>' },
  line: 2,
  text: 'r = note(ticket_id=101, text="checked")',
};

describe('ApprovalDialog', () => {
  it('shows the tool, its alias, the script line and the arguments', async () => {
    const screen = await render(<ApprovalDialog request={request} waiting={2} onAnswer={() => {}} />);
    const dialog = screen.getByRole('dialog', { name: 'approve a call of add_note' });
    await expect.element(dialog).toBeVisible();
    await expect.element(screen.getByTestId('approval-tool')).toHaveTextContent('add_note');
    await expect
      .element(screen.getByTestId('approval-line'))
      .toHaveTextContent('Line 2: r = note(ticket_id=101, text="checked")');
    const args = screen.getByTestId('approval-args').element().textContent ?? '';
    expect(JSON.parse(args)).toEqual(request.args);
    // Arguments are text, never markup.
    expect(dialog.element().querySelector('b')).toBeNull();
    expect(dialog.element().textContent).toContain('(as note)');
    expect(dialog.element().textContent).toContain('2 more calls waiting');
  });

  it('is keyboard accessible: focus starts on Refuse, Enter refuses, Esc refuses, Tab then Enter allows', async () => {
    const onAnswer = vi.fn();
    const screen = await render(<ApprovalDialog request={request} onAnswer={onAnswer} />);
    await expect.element(screen.getByRole('button', { name: 'Refuse' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(onAnswer).toHaveBeenLastCalledWith(false);
    await userEvent.keyboard('{Escape}');
    expect(onAnswer).toHaveBeenCalledTimes(2);
    expect(onAnswer).toHaveBeenLastCalledWith(false);
    await screen.getByRole('button', { name: 'Refuse' }).element().focus();
    await userEvent.keyboard('{Tab}');
    await expect.element(screen.getByRole('button', { name: 'Allow' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(onAnswer).toHaveBeenLastCalledWith(true);
  });

  it('Allow and Refuse answer by click', async () => {
    const onAnswer = vi.fn();
    const screen = await render(
      <ApprovalDialog
        request={{ id: request.id, sandbox: 'support', tool: 'add_note', args: {} }}
        onAnswer={onAnswer}
      />,
    );
    await screen.getByRole('button', { name: 'Allow' }).click();
    expect(onAnswer).toHaveBeenLastCalledWith(true);
    await screen.getByRole('button', { name: 'Refuse' }).click();
    expect(onAnswer).toHaveBeenLastCalledWith(false);
  });
});

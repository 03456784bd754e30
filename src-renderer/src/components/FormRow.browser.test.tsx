import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import { FormRow } from './FormRow.tsx';

/** A row whose error follows its value, as an editor's rows do. */
function Checked() {
  const [v, setV] = useState('');
  return (
    <FormRow
      label="Port"
      help="a number from 1 to 65535"
      error={/^\d+$/.test(v) ? undefined : 'not a number'}
      errorTestId="port-error"
    >
      <input value={v} onChange={(e) => setV(e.target.value)} />
    </FormRow>
  );
}

describe('FormRow', () => {
  it('names the control by its label alone: not its value, help or error', async () => {
    const screen = await render(
      <>
        <Checked />
        <FormRow label="expected" help="JSON">
          <textarea defaultValue='{"name": "Ada"}' />
        </FormRow>
      </>,
    );
    const input = screen.getByRole('textbox', { name: 'Port', exact: true });
    await expect.element(input).toBeVisible();
    const area = screen.getByLabelText('expected', { exact: true });
    await expect.element(area).toHaveValue('{"name": "Ada"}');
    await expect.element(area).toHaveAccessibleName('expected');
    // The label holds its text only and points at the control.
    const label = document.querySelector(`label[for="${input.element().id}"]`);
    expect(label?.className).toBe('field');
    expect(label?.textContent).toBe('Port');
  });

  it('ties the help and the error to the control and marks it invalid', async () => {
    const screen = await render(<Checked />);
    const input = screen.getByRole('textbox', { name: 'Port' });
    await expect.element(screen.getByTestId('port-error')).toHaveTextContent('not a number');
    await expect.element(input).toHaveAttribute('aria-invalid', 'true');
    await expect.element(input).toHaveAccessibleDescription('a number from 1 to 65535 not a number');
    expect(input.element().closest('.form-row')?.classList.contains('invalid')).toBe(true);

    await input.fill('8080');
    await expect.element(screen.getByTestId('port-error')).not.toBeInTheDocument();
    await expect.element(input).not.toHaveAttribute('aria-invalid');
    await expect.element(input).toHaveAccessibleDescription('a number from 1 to 65535');
    expect(input.element().closest('.form-row')?.classList.contains('invalid')).toBe(false);
  });

  it('gives the control the id it is asked for, and the error line that id', async () => {
    const screen = await render(
      <FormRow label="limit" id="try-limit" error="required">
        <input />
      </FormRow>,
    );
    const input = screen.getByRole('textbox', { name: 'limit' });
    expect(input.element().id).toBe('try-limit');
    expect(document.getElementById('try-limit-error')?.textContent).toBe('required');
    await expect.element(input).toHaveAttribute('aria-describedby', 'try-limit-error');
    await expect.element(screen.getByRole('alert')).toHaveTextContent('required');
  });

  it('puts a checkbox before its text, and an inline label beside its control', async () => {
    const screen = await render(
      <>
        <FormRow layout="check" label="empty workspace">
          <input type="checkbox" />
        </FormRow>
        <FormRow layout="inline" label="sandbox" className="extra">
          <select>
            <option>a</option>
          </select>
        </FormRow>
      </>,
    );
    const box = screen.getByRole('checkbox', { name: 'empty workspace' });
    await box.click();
    await expect.element(box).toBeChecked();
    const check = document.querySelector(`label[for="${box.element().id}"]`)!;
    expect(check.className).toBe('check');
    // The box comes first, its text after it.
    expect(box.element().nextElementSibling).toBe(check);

    const select = screen.getByRole('combobox', { name: 'sandbox' });
    const inline = document.querySelector(`label[for="${select.element().id}"]`)!;
    expect(inline.className).toBe('inline');
    expect(inline.nextElementSibling).toBe(select.element());
    expect(inline.parentElement?.className).toBe('form-row form-row-inline extra');
  });

  it("keeps the control's own id and what comes after it", async () => {
    const screen = await render(
      <FormRow label="Used by sandbox" help="new or existing">
        <input id="mcp-sandbox" list="mcp-sandboxes" aria-describedby="elsewhere" />
        <datalist id="mcp-sandboxes">
          <option value="notes" />
        </datalist>
      </FormRow>,
    );
    const input = screen.getByRole('combobox', { name: 'Used by sandbox' });
    expect(input.element().id).toBe('mcp-sandbox');
    await expect.element(input).toHaveAttribute('aria-describedby', 'elsewhere mcp-sandbox-help');
    expect(document.getElementById('mcp-sandboxes')?.tagName).toBe('DATALIST');
  });

  it('adds no help or error line when there is none', async () => {
    const screen = await render(
      <FormRow label="Name">
        <input />
      </FormRow>,
    );
    const input = screen.getByRole('textbox', { name: 'Name' });
    await expect.element(input).toBeVisible();
    expect(input.element().hasAttribute('aria-describedby')).toBe(false);
    // The label and the control, nothing else.
    expect(input.element().closest('.form-row')?.children).toHaveLength(2);
  });
});

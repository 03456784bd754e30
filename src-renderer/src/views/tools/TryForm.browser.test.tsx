import { useReducer } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { JsonValue, ToolParameter } from '../../../../src-main/core/tools/model.ts';
import { checkForm } from './coerce.ts';
import { initialTry, tryReducer } from './try-tool.ts';
import { CallFailed, TryForm } from './TryForm.tsx';

const param = (name: string, over: Partial<ToolParameter> = {}): ToolParameter =>
  ({ name, type: 'str', description: '', required: true, source: 'user', ...over }) as ToolParameter;
const tool = (parameters: ToolParameter[]): SandboxTool =>
  ({
    name: 'get_user',
    description: 'one user',
    parameters,
    grade: { w: 0, d: 0 },
  }) as unknown as SandboxTool;

/** The form on the real reducer and check, as useTryTool wires them; a call that passes is reported. */
function Harness({ t, onCall }: { t: SandboxTool; onCall: (args: Record<string, JsonValue>) => void }) {
  const [s, dispatch] = useReducer(tryReducer, t.parameters, initialTry);
  return (
    <TryForm
      tool={t}
      unsaved={false}
      values={s.values}
      errors={s.errors}
      busy={false}
      onField={(name, value) => dispatch({ type: 'field', name, value })}
      onSubmit={() => {
        const check = checkForm(t.parameters, s.values);
        dispatch({ type: 'checked', errors: check.errors });
        if (Object.keys(check.errors).length === 0) onCall(check.args);
      }}
    />
  );
}

describe('TryForm', () => {
  it('holds back a call with a missing required field and an int that is not one, naming both', async () => {
    const onCall = vi.fn();
    const t = tool([param('id'), param('limit', { type: 'int', required: false })]);
    const screen = await render(<Harness t={t} onCall={onCall} />);
    await screen.getByLabelText(/^limit/).fill('ten');
    await screen.getByRole('button', { name: 'Call get_user' }).click();
    expect(onCall).not.toHaveBeenCalled();
    await expect.element(screen.getByTestId('form-errors')).toHaveTextContent('Fix 2 fields before calling.');
    await expect.element(screen.getByText('id is required')).toBeInTheDocument();
    await screen.getByLabelText(/^id/).fill('u1');
    await expect.element(screen.getByText('id is required')).not.toBeInTheDocument();
    await screen.getByLabelText(/^limit/).fill('10');
    await screen.getByRole('button', { name: 'Call get_user' }).click();
    expect(onCall).toHaveBeenCalledWith({ id: 'u1', limit: 10 });
    await expect.element(screen.getByTestId('form-errors')).not.toBeInTheDocument();
  });

  it('sends the chosen option, and leaves an empty optional field to its default', async () => {
    const onCall = vi.fn();
    const t = tool([param('unit', { options: ['C', 'F'] }), param('note', { required: false })]);
    const screen = await render(<Harness t={t} onCall={onCall} />);
    await screen.getByLabelText(/^unit/).selectOptions('F');
    await screen.getByRole('button', { name: 'Call get_user' }).click();
    expect(onCall).toHaveBeenCalledWith({ unit: 'F' });
  });

  it('says when a tool takes no parameters, and warns that unsaved changes are not called', async () => {
    const screen = await render(
      <TryForm
        tool={tool([])}
        unsaved
        values={{}}
        errors={{}}
        busy={false}
        onField={() => {}}
        onSubmit={() => {}}
      />,
    );
    await expect.element(screen.getByText('This tool takes no parameters.')).toBeInTheDocument();
    await expect.element(screen.getByText(/the call runs the saved/)).toBeInTheDocument();
  });

  it('while a call runs the button is disabled and says so', async () => {
    const onSubmit = vi.fn();
    const screen = await render(
      <TryForm
        tool={tool([])}
        unsaved={false}
        values={{}}
        errors={{}}
        busy
        onField={() => {}}
        onSubmit={onSubmit}
      />,
    );
    await expect.element(screen.getByRole('button', { name: 'Calling…' })).toBeDisabled();
    await expect.element(screen.getByText('running in the sandbox…')).toBeInTheDocument();
  });

  it('a failed call names its cause', async () => {
    const screen = await render(<CallFailed error="the sandbox did not start" />);
    await expect
      .element(screen.getByTestId('call-failed'))
      .toHaveTextContent('The call failed: the sandbox did not start');
  });
});

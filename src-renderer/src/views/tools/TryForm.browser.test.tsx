import { useReducer } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { JsonValue, ToolParameter } from '../../../../src-main/core/tools/model.ts';
import { parametersSchema } from '../../../../src-main/core/tools/schema.ts';
import type { JsonSchema } from '../../../../src-main/core/tools/schema.ts';
import { checkTry, initialTry, tryReducer } from './try-tool.ts';
import { CallFailed, TryForm } from './TryForm.tsx';

const param = (name: string, over: Partial<ToolParameter> = {}): ToolParameter =>
  ({ name, type: 'str', description: '', required: true, source: 'user', ...over }) as ToolParameter;
const tool = (parameters: ToolParameter[], inputSchema?: JsonSchema): SandboxTool =>
  ({
    name: 'get_user',
    description: 'one user',
    parameters,
    ...(inputSchema ? { inputSchema } : {}),
    grade: { w: 0, d: 0 },
  }) as unknown as SandboxTool;

/** The form on the real reducer and check, as useTryTool wires them; a call that passes is reported. */
function Harness({ t, onCall }: { t: SandboxTool; onCall: (args: Record<string, JsonValue>) => void }) {
  const schema = parametersSchema(t);
  const [s, dispatch] = useReducer(tryReducer, schema, initialTry);
  return (
    <TryForm
      tool={t}
      schema={schema}
      unsaved={false}
      values={s.values}
      errors={s.errors}
      busy={false}
      onField={(name, value) => dispatch({ type: 'field', name, value })}
      onSubmit={() => {
        const check = checkTry(schema, s.values);
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
    await expect.element(screen.getByText('required', { exact: true })).toBeInTheDocument();
    await screen.getByLabelText(/^id/).fill('u1');
    await expect.element(screen.getByText('required', { exact: true })).not.toBeInTheDocument();
    await screen.getByLabelText(/^limit/).fill('10');
    await screen.getByRole('button', { name: 'Call get_user' }).click();
    expect(onCall).toHaveBeenCalledWith({ id: 'u1', limit: 10 });
    await expect.element(screen.getByTestId('form-errors')).not.toBeInTheDocument();
  });

  it('sends the chosen option, and leaves an empty optional field to its default', async () => {
    const onCall = vi.fn();
    const t = tool([param('unit', { options: ['C', 'F'] }), param('note', { required: false })]);
    const screen = await render(<Harness t={t} onCall={onCall} />);
    await expect.element(screen.getByLabelText(/^note/)).toHaveValue('');
    await screen.getByLabelText(/^unit/).selectOptions('F');
    await screen.getByRole('button', { name: 'Call get_user' }).click();
    expect(onCall).toHaveBeenCalledWith({ unit: 'F' });
  });

  it("renders an MCP tool's nested schema: a list of objects holding a list, added to and sent as JSON", async () => {
    const onCall = vi.fn();
    const t = tool([], {
      type: 'object',
      required: ['entities'],
      properties: {
        entities: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              entityType: { enum: ['person', 'place'] },
              observations: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    });
    const screen = await render(<Harness t={t} onCall={onCall} />);
    await screen.getByRole('button', { name: 'add to entities' }).click();
    await screen.getByRole('button', { name: 'add to entities' }).click();
    await screen.getByLabelText('entities[0].name').fill('Ada');
    await screen.getByLabelText('entities[0].entityType').selectOptions('person');
    await screen.getByRole('button', { name: 'add to entities[0].observations' }).click();
    await screen.getByLabelText('entities[0].observations[0]').fill('writes compilers');
    await screen.getByRole('button', { name: 'Call get_user' }).click();
    expect(onCall).not.toHaveBeenCalled();
    await expect.element(screen.getByTestId('form-errors')).toHaveTextContent('Fix 1 field before calling.');
    await expect.element(screen.getByLabelText('entities[1].name')).toHaveAttribute('aria-invalid', 'true');
    await screen.getByRole('button', { name: 'remove entities[1]' }).click();
    await screen.getByRole('button', { name: 'Call get_user' }).click();
    expect(onCall).toHaveBeenCalledWith({
      entities: [{ name: 'Ada', entityType: 'person', observations: ['writes compilers'] }],
    });
  });

  it('says when a tool takes no parameters, and warns that unsaved changes are not called', async () => {
    const screen = await render(
      <TryForm
        tool={tool([])}
        schema={{ type: 'object', properties: {} }}
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
        schema={{ type: 'object', properties: {} }}
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

import { useReducer } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { draftOf, EMPTY, providerFormReducer } from './providers.ts';
import type { Draft, Provider, TestResult } from './providers.ts';
import { ProviderFormView, ProvidersTable, TestOutcome } from './ProvidersParts.tsx';
import '../../styles.css';
import '../manage.css';

const noop = () => {};
const providers = [
  { id: 'local', kind: 'openai', model: 'qwen', baseUrl: 'http://127.0.0.1:11434/v1' },
  { id: 'cloud', kind: 'anthropic', model: 'claude' },
] as Provider[];

/** The form on its real reducer, as the editor wires it. */
function Form(props: {
  initial: Draft;
  editing?: string;
  keyStored?: boolean;
  onTest?: () => void;
  onSave?: () => void;
  error?: string;
}) {
  const [state, dispatch] = useReducer(providerFormReducer, { draft: props.initial, first: true });
  return (
    <ProviderFormView
      state={state}
      dispatch={dispatch}
      initial={props.initial}
      editing={props.editing}
      keyStored={props.keyStored ?? false}
      busy={undefined}
      error={props.error}
      onTest={props.onTest ?? noop}
      onSave={props.onSave ?? noop}
      onCancel={noop}
    />
  );
}

describe('ProviderFormView', () => {
  it('needs an id and a model; a preset fills them and Add provider saves', async () => {
    const onSave = vi.fn();
    const screen = await render(<Form initial={EMPTY} onSave={onSave} />);
    const add = screen.getByRole('button', { name: 'Add provider' });
    await expect.element(add).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'Test connection' })).toBeDisabled();
    await screen.getByRole('button', { name: 'Ollama' }).click();
    await expect.element(screen.getByLabelText('Base URL')).toHaveValue('http://127.0.0.1:11434/v1');
    await expect.element(add).toBeEnabled();
    await add.click();
    expect(onSave).toHaveBeenCalledTimes(1);
    await expect.element(screen.getByLabelText('Make it the default (tried first)')).toBeChecked();
  });

  it('editing: a new URL without the key says the key is needed again', async () => {
    const screen = await render(<Form initial={draftOf(providers[0]!)} editing="local" keyStored />);
    await expect.element(screen.getByRole('form', { name: 'edit provider local' })).toBeInTheDocument();
    expect(screen.getByTestId('key-again').query()).toBeNull();
    await screen.getByLabelText('Base URL').fill('http://10.0.0.9/v1');
    await expect.element(screen.getByTestId('key-again')).toBeInTheDocument();
    await screen.getByPlaceholder('unchanged').fill('sk-1');
    await expect.element(screen.getByTestId('key-again')).not.toBeInTheDocument();
  });

  it('editing a provider with no stored key (a local server): a new URL asks for no key', async () => {
    const screen = await render(<Form initial={draftOf(providers[0]!)} editing="local" />);
    await screen.getByLabelText('Base URL').fill('http://127.0.0.1:8000/v1');
    await expect.element(screen.getByLabelText('Base URL')).toHaveValue('http://127.0.0.1:8000/v1');
    expect(screen.getByTestId('key-again').query()).toBeNull();
  });

  it('shows the error', async () => {
    const screen = await render(<Form initial={EMPTY} error="id must be a name" />);
    await expect.element(screen.getByRole('alert')).toHaveTextContent('id must be a name');
  });
});

describe('TestOutcome', () => {
  it('names the URL of a success and the failure of a dead one', async () => {
    const good = { ok: true, url: 'http://h/v1', model: 'm', latencyMs: 12, reply: ' OK ' } as TestResult;
    const screen = await render(<TestOutcome result={good} />);
    await expect.element(screen.getByTestId('provider-test-result')).toHaveAttribute('data-ok', 'true');
    await expect
      .element(screen.getByTestId('provider-test-result'))
      .toHaveTextContent('Connected to http://h/v1: m answered in 12 ms (OK).');
    const bad = { ok: false, url: 'http://dead/v1', model: 'm', latencyMs: 4 } as TestResult;
    await screen.rerender(<TestOutcome result={bad} />);
    await expect
      .element(screen.getByTestId('provider-test-result'))
      .toHaveTextContent('Failed after 4 ms: cannot reach http://dead/v1');
  });
});

describe('ProvidersTable', () => {
  it("a long base URL breaks inside its cell: the row's buttons stay in a narrow panel", async () => {
    const long = [
      {
        id: 'gemini',
        kind: 'openai',
        model: 'gemini-2.5-flash',
        baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
      },
    ] as Provider[];
    const screen = await render(
      <div style={{ width: '575px' }} data-testid="panel">
        <ProvidersTable
          providers={long}
          tests={{}}
          keyBadge={() => <span className="badge">no key needed</span>}
          onMove={noop}
          onTest={noop}
          onEdit={noop}
          onRemove={noop}
        />
      </div>,
    );
    const panel = screen.getByTestId('panel').element().getBoundingClientRect();
    const remove = screen.getByRole('button', { name: 'remove gemini' }).element().getBoundingClientRect();
    expect(remove.right).toBeLessThanOrEqual(panel.right);
  });

  it('marks the first as default and moves, tests, edits and removes by id', async () => {
    const onMove = vi.fn();
    const onTest = vi.fn();
    const onEdit = vi.fn();
    const onRemove = vi.fn();
    const screen = await render(
      <ProvidersTable
        providers={providers}
        tests={{}}
        keyBadge={() => null}
        onMove={onMove}
        onTest={onTest}
        onEdit={onEdit}
        onRemove={onRemove}
      />,
    );
    await expect.element(screen.getByTestId('default-provider')).toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'move local up' })).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'move cloud down' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'make local the default' }).query()).toBeNull();
    await screen.getByRole('button', { name: 'make cloud the default' }).click();
    expect(onMove).toHaveBeenLastCalledWith('cloud', 0);
    await screen.getByRole('button', { name: 'move local down' }).click();
    expect(onMove).toHaveBeenLastCalledWith('local', 1);
    await screen.getByRole('button', { name: 'test cloud' }).click();
    await screen.getByRole('button', { name: 'edit local' }).click();
    await screen.getByRole('button', { name: 'remove cloud' }).click();
    expect([onTest.mock.calls, onEdit.mock.calls, onRemove.mock.calls]).toEqual([
      [['cloud']],
      [['local']],
      [['cloud']],
    ]);
  });

  it('a running test disables its button; none configured says the LLM tier needs one', async () => {
    const screen = await render(
      <ProvidersTable
        providers={providers}
        tests={{ local: 'running' }}
        keyBadge={() => null}
        onMove={noop}
        onTest={noop}
        onEdit={noop}
        onRemove={noop}
      />,
    );
    await expect.element(screen.getByRole('button', { name: 'test local' })).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'test local' })).toHaveTextContent('Testing…');
    await screen.rerender(
      <ProvidersTable
        providers={[]}
        tests={{}}
        keyBadge={() => null}
        onMove={noop}
        onTest={noop}
        onEdit={noop}
        onRemove={noop}
      />,
    );
    await expect.element(screen.getByText(/No provider is configured/)).toBeInTheDocument();
  });
});

import { useReducer } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import type { TemplateDraft } from './drafts.ts';
import { checkExamples, initialEditor, saveProblems, templateEditorReducer } from './template-editor.ts';
import { EditorHeader, ExampleRow, NameFields, SaveBar } from './TemplateEditorParts.tsx';

const draft: TemplateDraft = {
  name: 'user-name',
  pattern: 'name of user {id}',
  slots: { id: 'str' },
  body: 'emit_result(get_user({{id}}))',
  sandbox: 'users',
  kit: 'readonly',
  language: 'python',
  examples: [{ intent: 'name of user u1', expect: '' }],
  description: '',
};
const noop = () => {};

/** The examples and the save bar on the real reducer and checks, as the editor wires them. */
function Harness({ runResult, existing = [] }: { runResult?: unknown; existing?: string[] }) {
  const [s, dispatch] = useReducer(templateEditorReducer, draft, initialEditor);
  const checks = checkExamples(s.draft);
  return (
    <form onSubmit={(e) => e.preventDefault()}>
      {s.draft.examples.map((ex, i) => (
        <ExampleRow
          key={i}
          index={i}
          example={ex}
          check={checks[i]}
          runResult={runResult}
          onChange={(patch) => dispatch({ type: 'example', index: i, patch })}
          onRemove={() => dispatch({ type: 'removeExample', index: i })}
        />
      ))}
      <SaveBar
        mode="promote"
        problems={saveProblems(s, checks, 'promote', existing)}
        patternIssues={0}
        saving={false}
        error={undefined}
        onCancel={noop}
      />
    </form>
  );
}

describe('the examples of the template editor', () => {
  it('the intent and expected fields have visible labels (their accessible names)', async () => {
    const screen = await render(<Harness />);
    await expect.element(screen.getByText('example 1 intent', { exact: true })).toBeVisible();
    await expect.element(screen.getByText('example 1 expected', { exact: true })).toBeVisible();
    await expect.element(screen.getByLabelText('example 1 expected')).toHaveAttribute('rows', '1');
  });

  it('checks an intent against the pattern as it is typed', async () => {
    const screen = await render(<Harness />);
    await expect.element(screen.getByText('matches: id = "u1"')).toBeInTheDocument();
    await screen.getByLabelText('example 1 intent').fill('who is u1');
    await expect.element(screen.getByText('does not match the pattern')).toBeInTheDocument();
    await screen.getByLabelText('example 1 intent').fill('');
    await expect.element(screen.getByText('Write an intent.')).toBeInTheDocument();
    await expect
      .element(screen.getByRole('list', { name: 'cannot save yet' }))
      .toHaveTextContent('An example has no intent.');
    await expect.element(screen.getByRole('button', { name: 'Save template' })).toBeDisabled();
  });

  it('an expected value that is not JSON is named and stops the save until fixed', async () => {
    const screen = await render(<Harness />);
    await expect.element(screen.getByRole('button', { name: 'Save template' })).toBeEnabled();
    await screen.getByLabelText('example 1 expected').fill('{"name": ');
    await expect.element(screen.getByText(/expected not JSON/)).toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'Save template' })).toBeDisabled();
    await expect
      .element(screen.getByRole('button', { name: 'Save template' }))
      .toHaveAttribute('title', 'An expected value is not valid JSON.');
    await screen.getByLabelText('example 1 expected').fill('{"name": "Ada"}');
    await expect.element(screen.getByRole('button', { name: 'Save template' })).toBeEnabled();
  });

  it('"Use run result" fills the first example with the run\'s result as JSON', async () => {
    const screen = await render(<Harness runResult={{ name: 'Ada', age: 36 }} />);
    await screen.getByRole('button', { name: 'Use run result' }).click();
    await expect.element(screen.getByLabelText('example 1 expected')).toHaveValue('{"name":"Ada","age":36}');
  });

  it('removes the example of its row', async () => {
    const screen = await render(<Harness />);
    await screen.getByRole('button', { name: 'remove example 1' }).click();
    await expect.element(screen.getByLabelText('example 1 intent')).not.toBeInTheDocument();
  });

  it('no run result, no "Use run result"', async () => {
    const screen = await render(<Harness />);
    await expect.element(screen.getByRole('button', { name: 'Use run result' })).not.toBeInTheDocument();
  });
});

describe('NameFields', () => {
  it('a taken name offers "replace", which reports the choice', async () => {
    const onReplace = vi.fn();
    const onChange = vi.fn();
    const screen = await render(
      <NameFields
        mode="promote"
        name="user-name"
        description=""
        taken
        replace={false}
        onChange={onChange}
        onReplace={onReplace}
      />,
    );
    await screen.getByRole('checkbox').click();
    expect(onReplace).toHaveBeenCalledWith(true);
    // (named by its visible label, as a screen reader reads it)
    await screen.getByLabelText('Description', { exact: true }).fill('who');
    expect(onChange).toHaveBeenLastCalledWith({ description: 'who' });
  });

  it('an edit keeps its name', async () => {
    const screen = await render(
      <NameFields
        mode="edit"
        name="user-name"
        description=""
        taken={false}
        replace={false}
        onChange={noop}
        onReplace={noop}
      />,
    );
    await expect.element(screen.getByLabelText('Name', { exact: true })).toHaveAttribute('readonly');
    await expect.element(screen.getByRole('checkbox')).not.toBeInTheDocument();
  });
});

describe('SaveBar and EditorHeader', () => {
  it('shows the service refusal, saving state and the pattern warnings; Cancel cancels', async () => {
    const onCancel = vi.fn();
    const screen = await render(
      <SaveBar
        mode="edit"
        problems={[]}
        patternIssues={2}
        saving={false}
        error="body does not validate"
        onCancel={onCancel}
      />,
    );
    await expect
      .element(screen.getByTestId('template-save-error'))
      .toHaveTextContent('body does not validate');
    await expect
      .element(screen.getByText('2 pattern warnings: fix them or the service will refuse the template.'))
      .toBeInTheDocument();
    await expect
      .element(screen.getByRole('button', { name: 'Save changes' }))
      .toHaveAttribute('title', 'The pattern has warnings: the service may refuse it');
    await screen.getByRole('button', { name: 'Cancel' }).click();
    expect(onCancel).toHaveBeenCalledTimes(1);
    await screen.rerender(
      <SaveBar mode="edit" problems={[]} patternIssues={0} saving error={undefined} onCancel={onCancel} />,
    );
    await expect.element(screen.getByRole('button', { name: 'Saving…' })).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'Cancel' })).toBeDisabled();
  });

  it('names where a promotion comes from', async () => {
    const screen = await render(
      <EditorHeader
        mode="promote"
        name="user-name"
        draft={draft}
        fromRun={{ runId: '0123456789abcdef', attempt: 2, task: 'name of user u1?' }}
      />,
    );
    await expect.element(screen.getByRole('heading', { name: 'Promote to template' })).toBeInTheDocument();
    await expect.element(screen.getByText('from run 01234567 attempt 2')).toBeInTheDocument();
    await expect.element(screen.getByText('task: “name of user u1?”')).toBeInTheDocument();
    await expect.element(screen.getByText('readonly')).toBeInTheDocument();
  });
});

import { useReducer } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { deriveKitEditor, initialKitEditor, kitEditorReducer } from './kit-editor.ts';
import type { Kit } from './kit.ts';
import { KitFields, KitGradeLine, KitSaveBar, KitToolRows } from './KitEditorParts.tsx';
import { KitCard, KitsHead } from './KitsParts.tsx';

const tool = (name: string, w: number, d: number): SandboxTool =>
  ({ name, description: `${name} tool`, parameters: [], grade: { w, d } }) as unknown as SandboxTool;
const tools = [tool('get_user', 1, 0), tool('delete_user', 1, 2)];
const noop = () => {};

/** The rows, grade and save bar of the editor on the real reducer, the tools already listed. */
function Harness({ loaded = tools, listing = false }: { loaded?: SandboxTool[]; listing?: boolean }) {
  const [s, dispatch] = useReducer(
    kitEditorReducer,
    { name: 'lookup', sandbox: 'web', description: '', rows: [] },
    (d) =>
      !listing
        ? kitEditorReducer(initialKitEditor(d), { type: 'toolsLoaded', tools: loaded })
        : initialKitEditor(d),
  );
  const d = deriveKitEditor(s, 'new', [], { w: 1, d: 1 });
  return (
    <form onSubmit={(e) => e.preventDefault()}>
      <KitToolRows
        sandbox={s.draft.sandbox}
        rows={s.draft.rows}
        rowTools={d.rowTools}
        tools={s.tools}
        toolsError={s.toolsError}
        onAlias={(index, alias) => dispatch({ type: 'alias', index, alias })}
        onTool={(index, t) => dispatch({ type: 'tool', index, tool: t })}
        onRemove={(index) => dispatch({ type: 'removeRow', index })}
        onAdd={() => dispatch({ type: 'addRow' })}
        onAll={() => dispatch({ type: 'allTools' })}
      />
      <KitGradeLine grade={d.grade} over={d.over} maxGrade={{ w: 1, d: 1 }} />
      <KitSaveBar problems={d.problems} saving={false} error={undefined} onCancel={noop} />
    </form>
  );
}

describe('the tool rows of the kit editor', () => {
  it('adds the next tool, and the grade rises above the maximum with a tool that deletes', async () => {
    const screen = await render(<Harness />);
    await expect.element(screen.getByRole('button', { name: 'Save kit' })).toBeDisabled();
    await expect.element(screen.getByText('Add at least one tool.')).toBeInTheDocument();
    await screen.getByRole('button', { name: 'Add tool' }).click();
    await expect.element(screen.getByLabelText('alias 1')).toHaveValue('get_user');
    await expect.element(screen.getByRole('button', { name: 'Save kit' })).toBeEnabled();
    await expect
      .element(screen.getByText('above the workspace maximum', { exact: false }))
      .not.toBeInTheDocument();
    await screen.getByLabelText('tool 1', { exact: true }).selectOptions('delete_user (w1, d2)');
    await expect.element(screen.getByLabelText('alias 1')).toHaveValue('delete_user');
    await expect
      .element(screen.getByText('above the workspace maximum: the service will refuse it'))
      .toBeInTheDocument();
  });

  it('an alias that is not an identifier stops the save with the row named', async () => {
    const screen = await render(<Harness />);
    await screen.getByRole('button', { name: 'All tools of web' }).click();
    await screen.getByLabelText('alias 2').fill('2nd');
    await expect
      .element(screen.getByRole('list', { name: 'cannot save yet' }))
      .toHaveTextContent('Row 2: the alias must be an identifier (letters, digits, _).');
    await expect.element(screen.getByRole('button', { name: 'Save kit' })).toBeDisabled();
    await screen.getByRole('button', { name: 'remove tool 2' }).click();
    await expect.element(screen.getByLabelText('alias 2')).not.toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'Save kit' })).toBeEnabled();
  });

  it('a sandbox without tools says so and offers nothing to add', async () => {
    const screen = await render(<Harness loaded={[]} />);
    await expect.element(screen.getByText('The sandbox web has no tools.')).toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'Add tool' })).toBeDisabled();
  });

  it('says the tools are loading until they are listed', async () => {
    const screen = await render(<Harness listing />);
    await expect.element(screen.getByText('Loading the tools…')).toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'Add tool' })).toBeDisabled();
  });

  it('names the sandbox whose tools could not be listed', async () => {
    const screen = await render(
      <KitToolRows
        sandbox="web"
        rows={[{ alias: 'get', tool: 'get_user' }]}
        rowTools={[undefined]}
        tools={undefined}
        toolsError="tools.py does not parse"
        onAlias={noop}
        onTool={noop}
        onRemove={noop}
        onAdd={noop}
        onAll={noop}
      />,
    );
    await expect
      .element(screen.getByRole('alert'))
      .toHaveTextContent('Could not list the tools of web: tools.py does not parse');
    await expect.element(screen.getByRole('button', { name: 'All tools of web' })).toBeDisabled();
  });

  it('a row whose tool left the sandbox keeps it, marked', async () => {
    const screen = await render(
      <KitToolRows
        sandbox="web"
        rows={[{ alias: 'old', tool: 'old_tool' }]}
        rowTools={[undefined]}
        tools={tools}
        toolsError={undefined}
        onAlias={noop}
        onTool={noop}
        onRemove={noop}
        onAdd={noop}
        onAll={noop}
      />,
    );
    await expect
      .element(screen.getByLabelText('tool 1', { exact: true }))
      .toHaveDisplayValue('old_tool (not in the sandbox)');
  });
});

describe('KitFields and KitSaveBar', () => {
  it('reports the picked sandbox and typing; an edit keeps its name; a taken name warns', async () => {
    const onSandbox = vi.fn();
    const onChange = vi.fn();
    const draft = { name: 'lookup', sandbox: 'web', description: '', rows: [] };
    const screen = await render(
      <KitFields
        mode="new"
        draft={draft}
        sandboxes={['web', 'files']}
        taken
        onChange={onChange}
        onSandbox={onSandbox}
      />,
    );
    await expect
      .element(screen.getByText('A kit named lookup exists: saving replaces its file.'))
      .toBeInTheDocument();
    // (each field named by its visible label, as a screen reader reads it)
    await screen.getByLabelText('Sandbox', { exact: true }).selectOptions('files');
    expect(onSandbox).toHaveBeenCalledWith('files');
    await screen.getByLabelText('Name', { exact: true }).fill('lookup2');
    expect(onChange).toHaveBeenLastCalledWith({ name: 'lookup2' });
    await screen.getByLabelText('Description', { exact: true }).fill('lookups');
    expect(onChange).toHaveBeenLastCalledWith({ description: 'lookups' });
    await screen.rerender(
      <KitFields
        mode="edit"
        draft={draft}
        sandboxes={['web']}
        taken={false}
        onChange={noop}
        onSandbox={noop}
      />,
    );
    await expect.element(screen.getByLabelText('Name', { exact: true })).toHaveAttribute('readonly');
  });

  it("shows the service's refusal; Cancel cancels; saving disables both", async () => {
    const onCancel = vi.fn();
    const screen = await render(
      <KitSaveBar problems={[]} saving={false} error="grade over max" onCancel={onCancel} />,
    );
    await expect
      .element(screen.getByTestId('kit-save-error'))
      .toHaveTextContent('The kit was refused: grade over max');
    await screen.getByRole('button', { name: 'Cancel' }).click();
    expect(onCancel).toHaveBeenCalledTimes(1);
    await screen.rerender(<KitSaveBar problems={[]} saving error={undefined} onCancel={onCancel} />);
    await expect.element(screen.getByRole('button', { name: 'Saving…' })).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'Cancel' })).toBeDisabled();
  });
});

describe('KitsHead and KitCard', () => {
  it('shows the max grade, or none, or unknown with the cause', async () => {
    const props = { settingsError: undefined, loading: false, canCreate: true, onReload: noop, onNew: noop };
    const screen = await render(<KitsHead maxGrade={{ w: 1, d: 1 }} settingsKnown {...props} />);
    await expect
      .element(screen.getByTestId('max-grade').getByText('max', { exact: true }))
      .toBeInTheDocument();
    await screen.rerender(<KitsHead maxGrade={undefined} settingsKnown {...props} />);
    await expect.element(screen.getByText('none (every grade allowed)')).toBeInTheDocument();
    await screen.rerender(
      <KitsHead
        maxGrade={undefined}
        settingsKnown={false}
        {...props}
        settingsError="config.toml: bad max_grade"
      />,
    );
    await expect.element(screen.getByText('unknown')).toHaveAttribute('title', 'config.toml: bad max_grade');
  });

  it('New kit needs a sandbox; Reload and New kit call back', async () => {
    const onReload = vi.fn();
    const onNew = vi.fn();
    const screen = await render(
      <KitsHead
        maxGrade={undefined}
        settingsKnown
        settingsError={undefined}
        loading={false}
        canCreate
        onReload={onReload}
        onNew={onNew}
      />,
    );
    await screen.getByRole('button', { name: 'Reload' }).click();
    await screen.getByRole('button', { name: 'New kit' }).click();
    expect(onReload).toHaveBeenCalledTimes(1);
    expect(onNew).toHaveBeenCalledTimes(1);
    await screen.rerender(
      <KitsHead
        maxGrade={undefined}
        settingsKnown
        settingsError={undefined}
        loading
        canCreate={false}
        onReload={onReload}
        onNew={onNew}
      />,
    );
    await expect.element(screen.getByRole('button', { name: 'New kit' })).toBeDisabled();
    await expect
      .element(screen.getByRole('button', { name: 'New kit' }))
      .toHaveAttribute('title', 'The workspace has no sandbox');
    await expect.element(screen.getByRole('button', { name: 'Loading…' })).toBeDisabled();
  });

  it('a refused kit shows why; Edit edits; a kit above the max is marked', async () => {
    const onEdit = vi.fn();
    const refused: Kit = { name: 'bad', sandbox: 'web', error: 'grade (w2, d0) above max (w1, d1)' };
    const screen = await render(<KitCard kit={refused} maxGrade={{ w: 1, d: 1 }} onEdit={onEdit} />);
    await expect
      .element(screen.getByTestId('kit-error'))
      .toHaveTextContent('grade (w2, d0) above max (w1, d1)');
    await expect.element(screen.getByText('refused')).toBeInTheDocument();
    await screen.getByRole('button', { name: 'Edit' }).click();
    expect(onEdit).toHaveBeenCalledTimes(1);
    const ok = {
      name: 'ops',
      sandbox: 'web',
      kit: {
        name: 'ops',
        sandbox: 'web',
        description: 'admin',
        grade: { w: 1, d: 2 },
        tools: [{ alias: 'drop', tool: tools[1] }],
      },
    } as unknown as Kit;
    await screen.rerender(<KitCard kit={ok} maxGrade={{ w: 1, d: 1 }} onEdit={onEdit} />);
    await expect
      .element(screen.getByRole('table', { name: 'tools of ops' }))
      .toMatchTextContent(/→ delete_user/);
    await expect
      .element(
        screen
          .getByRole('article')
          .getByTitle(/above the workspace maximum/)
          .first(),
      )
      .toBeInTheDocument();
  });
});

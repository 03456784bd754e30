import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { CreateSandboxForm, OpenWorkspace, SandboxList } from './WorkspaceParts.tsx';
import type { Recent } from './workspace.ts';

const recent: Recent = {
  current: '/home/me/tools',
  recent: [
    { path: '/home/me/old', exists: true },
    { path: '/home/me/gone', exists: false },
  ],
  canChoose: true,
  canOpen: true,
};
const form = { path: '', newPath: '', empty: false, busy: false };
const noop = () => {};

describe('OpenWorkspace', () => {
  it('opens a recent workspace; one that is gone cannot be opened', async () => {
    const onOpen = vi.fn();
    const screen = await render(
      <OpenWorkspace
        recent={recent}
        form={form}
        onChange={noop}
        onOpen={onOpen}
        onChoose={noop}
        onCreate={noop}
      />,
    );
    await screen.getByRole('button', { name: 'open /home/me/old' }).click();
    expect(onOpen).toHaveBeenCalledWith('/home/me/old');
    await expect.element(screen.getByRole('button', { name: 'open /home/me/gone' })).toBeDisabled();
    await expect.element(screen.getByText('(no longer a workspace)')).toBeInTheDocument();
  });

  it('opens a typed path trimmed, and creates a new one with the "empty" choice', async () => {
    const onOpen = vi.fn();
    const onCreate = vi.fn();
    const screen = await render(
      <OpenWorkspace
        recent={recent}
        form={{ ...form, path: '  /srv/tools ', newPath: '/srv/new', empty: true }}
        onChange={noop}
        onOpen={onOpen}
        onChoose={noop}
        onCreate={onCreate}
      />,
    );
    await screen
      .getByRole('form', { name: 'open workspace' })
      .getByRole('button', { name: 'Open', exact: true })
      .click();
    expect(onOpen).toHaveBeenCalledWith('/srv/tools');
    await screen.getByRole('button', { name: 'Create and open' }).click();
    expect(onCreate).toHaveBeenCalledWith('/srv/new', true);
  });

  it('reports typing as changes and disables everything while busy', async () => {
    const onChange = vi.fn();
    const screen = await render(
      <OpenWorkspace
        recent={recent}
        form={{ ...form, path: '/x', busy: true }}
        onChange={onChange}
        onOpen={noop}
        onChoose={noop}
        onCreate={noop}
      />,
    );
    await screen.getByLabelText('New folder', { exact: true }).fill('/y');
    expect(onChange).toHaveBeenLastCalledWith({ newPath: '/y' });
    await expect.element(screen.getByRole('button', { name: 'Open folder…' })).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'open /home/me/old' })).toBeDisabled();
  });

  it('names each field by the label it shows (screen readers read what the eye reads)', async () => {
    const screen = await render(
      <OpenWorkspace
        recent={recent}
        form={form}
        onChange={noop}
        onOpen={noop}
        onChoose={noop}
        onCreate={noop}
      />,
    );
    await expect
      .element(screen.getByRole('textbox', { name: 'Workspace folder', exact: true }))
      .toBeInTheDocument();
    const fresh = screen.getByRole('textbox', { name: 'New folder', exact: true });
    await expect.element(fresh).toHaveAccessibleDescription(/absolute path; created if missing/);
    await expect
      .element(screen.getByRole('checkbox', { name: 'empty (no sample sandboxes)', exact: true }))
      .toBeInTheDocument();
  });

  it('says a front end that cannot switch workspaces so', async () => {
    const screen = await render(
      <OpenWorkspace
        recent={{ ...recent, canOpen: false }}
        form={form}
        onChange={noop}
        onOpen={noop}
        onChoose={noop}
        onCreate={noop}
      />,
    );
    await expect.element(screen.getByText(/start it with --workspace DIR/)).toBeInTheDocument();
    expect(screen.getByRole('button').all()).toHaveLength(0);
  });
});

describe('SandboxList', () => {
  it('opens a sandbox in Tools and says when there is none', async () => {
    const onOpenTools = vi.fn();
    const screen = await render(
      <SandboxList
        sandboxes={[{ name: 'demo', tools: 3, description: 'users' }] as never}
        onOpenTools={onOpenTools}
      />,
    );
    await expect.element(screen.getByText('3 tools · users')).toBeInTheDocument();
    await screen.getByRole('button', { name: 'Tools' }).click();
    expect(onOpenTools).toHaveBeenCalledWith('demo');
    const empty = await render(<SandboxList sandboxes={[]} onOpenTools={noop} />);
    await expect
      .element(empty.getByText('No sandboxes yet: create the first one below.'))
      .toBeInTheDocument();
  });
});

describe('CreateSandboxForm', () => {
  const draft = { name: '', runtime: 'python' as const, description: '' };
  it('needs a name, offers the enabled runtimes and submits', async () => {
    const onSubmit = vi.fn();
    const onChange = vi.fn();
    const screen = await render(
      <CreateSandboxForm
        draft={draft}
        runtimes={['python', 'node']}
        busy={false}
        error={undefined}
        onChange={onChange}
        onSubmit={onSubmit}
      />,
    );
    await expect.element(screen.getByRole('button', { name: 'Create sandbox' })).toBeDisabled();
    await screen.getByLabelText('Runtime', { exact: true }).selectOptions('node');
    expect(onChange).toHaveBeenCalledWith({ runtime: 'node' });
    await screen.rerender(
      <CreateSandboxForm
        draft={{ ...draft, name: 'billing' }}
        runtimes={['python', 'node']}
        busy={false}
        error={undefined}
        onChange={onChange}
        onSubmit={onSubmit}
      />,
    );
    await screen.getByRole('button', { name: 'Create sandbox' }).click();
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });

  it('names each field by the label it shows', async () => {
    const screen = await render(
      <CreateSandboxForm
        draft={draft}
        runtimes={['python']}
        busy={false}
        error={undefined}
        onChange={noop}
        onSubmit={noop}
      />,
    );
    const form = screen.getByRole('form', { name: 'create sandbox' });
    await expect.element(form.getByRole('textbox', { name: 'Name', exact: true })).toBeInTheDocument();
    await expect.element(form.getByRole('combobox', { name: 'Runtime', exact: true })).toBeInTheDocument();
    await expect.element(form.getByRole('textbox', { name: 'Description', exact: true })).toBeInTheDocument();
  });

  it('shows the failure and the busy state', async () => {
    const screen = await render(
      <CreateSandboxForm
        draft={{ ...draft, name: 'demo' }}
        runtimes={[]}
        busy={true}
        error="sandbox demo already exists"
        onChange={noop}
        onSubmit={noop}
      />,
    );
    await expect.element(screen.getByRole('alert')).toHaveTextContent('sandbox demo already exists');
    await expect.element(screen.getByRole('button', { name: 'Creating…' })).toBeDisabled();
  });
});

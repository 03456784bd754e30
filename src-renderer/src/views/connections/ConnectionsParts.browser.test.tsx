import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import type { McpServerView } from '../../../../src-main/contract/api.ts';
import { HostCommands, ServersTable, StateBadge, TestState } from './ConnectionsParts.tsx';

const noop = () => {};
const server = (
  name: string,
  state: McpServerView['state'],
  sandboxes: string[] = [],
  error?: string,
): McpServerView => ({
  name,
  transport: 'stdio',
  target: `npx ${name}`,
  state,
  ...(error ? { error } : {}),
  tools: 3,
  connects: 1,
  description: '',
  def: { command: 'npx', args: [name], env: {}, headers: {}, timeout_ms: 30000 },
  sandboxes,
});

describe('ServersTable', () => {
  it('selects, tests and edits a server; marks the selected row', async () => {
    const onSelect = vi.fn();
    const onEdit = vi.fn();
    const files = server('files', 'connected', ['demo']);
    const screen = await render(
      <ServersTable
        servers={[files, server('mem', 'idle')]}
        selected="files"
        onSelect={onSelect}
        onEdit={onEdit}
      />,
    );
    await expect.element(screen.getByRole('row').filter({ hasText: 'files' })).toHaveClass('expanded');
    await screen.getByRole('button', { name: 'mem' }).click();
    expect(onSelect).toHaveBeenLastCalledWith('mem');
    const row = screen.getByRole('row').filter({ hasText: 'npx files' });
    await row.getByRole('button', { name: 'Test' }).click();
    expect(onSelect).toHaveBeenLastCalledWith('files');
    await row.getByRole('button', { name: 'Edit' }).click();
    expect(onEdit).toHaveBeenCalledWith(files);
    await expect
      .element(screen.getByRole('row').filter({ hasText: 'npx mem' }).getByText('none'))
      .toBeInTheDocument();
  });

  it('Remove asks for the server it sits beside; no Remove without a handler', async () => {
    const onRemove = vi.fn();
    const broken = server('broken', 'error', ['demo'], 'connect ECONNREFUSED 127.0.0.1:9');
    const screen = await render(
      <ServersTable
        servers={[server('files', 'connected'), broken]}
        selected={undefined}
        onSelect={noop}
        onEdit={noop}
        onRemove={onRemove}
      />,
    );
    await screen.getByRole('button', { name: 'Remove broken' }).click();
    expect(onRemove).toHaveBeenCalledExactlyOnceWith(broken);
    const plain = await render(
      <ServersTable servers={[broken]} selected={undefined} onSelect={noop} onEdit={noop} />,
    );
    expect(plain.container.querySelectorAll('button[aria-label^="Remove"]').length).toBe(0);
  });

  it('says when there is no server', async () => {
    const screen = await render(
      <ServersTable servers={[]} selected={undefined} onSelect={noop} onEdit={noop} />,
    );
    await expect
      .element(screen.getByTestId('mcp-empty'))
      .toHaveTextContent('No MCP servers yet. Add one with Add server.');
  });
});

describe('StateBadge', () => {
  it('shows the state, and the error on hover', async () => {
    const screen = await render(<StateBadge s={server('x', 'error', [], 'spawn npx ENOENT')} />);
    const badge = screen.getByTestId('mcp-state');
    await expect.element(badge).toHaveAttribute('data-state', 'error');
    await expect.element(badge).toHaveAttribute('title', 'spawn npx ENOENT');
    await expect.element(badge).toHaveClass('status-failed');
  });
});

describe('TestState', () => {
  const tested = {
    server: { ...server('files', 'connected'), server: { name: 'fs', version: '2' } },
    tools: [],
    ms: 7,
  };
  it('connecting, then the failure', async () => {
    const screen = await render(
      <TestState selected="files" testing testError={undefined} tested={undefined} />,
    );
    await expect.element(screen.getByText('Connecting…')).toBeInTheDocument();
    await screen.rerender(
      <TestState selected="files" testing={false} testError="connection refused" tested={undefined} />,
    );
    await expect.element(screen.getByTestId('mcp-error')).toHaveTextContent('connection refused');
    expect(screen.getByText('Connecting…').query()).toBeNull();
  });

  it("shows the connected line only for the selected server's test", async () => {
    const screen = await render(
      <TestState selected="files" testing={false} testError={undefined} tested={tested} />,
    );
    await expect
      .element(screen.getByTestId('mcp-connected'))
      .toHaveTextContent(
        'Connected in 7 ms to fs 2: 0 tools. Use it in a sandbox (Edit) to try its tools and run scripts.',
      );
    await screen.rerender(<TestState selected="mem" testing={false} testError={undefined} tested={tested} />);
    expect(screen.getByTestId('mcp-connected').query()).toBeNull();
  });
});

describe('HostCommands', () => {
  const refusal =
    'the browser front end does not start commands on this computer (MCP server memory: node): a web page cannot ask you first. Restart the workbench with `npm start -- --allow-host-commands` (or `toolsmith serve --allow-host-commands`), or use the desktop app, which asks you first';

  it('a refused stdio server says what to run and why, where the person is', async () => {
    const screen = await render(
      <HostCommands servers={[server('memory', 'error', ['notes'], refusal)]} browser />,
    );
    await expect.element(screen.getByTestId('host-commands-refused')).toBeVisible();
    const text = screen.getByTestId('host-commands-refused').element().textContent;
    expect(text).toContain('Not started: memory runs a command on this computer.');
    expect(text).toContain('npm start -- --allow-host-commands');
    expect(text).toContain('toolsmith serve --allow-host-commands');
    expect(text).toContain('A web page cannot ask you before it starts a command');
  });

  it('the browser front end says it before any server is added; the desktop app shows nothing', async () => {
    const screen = await render(<HostCommands servers={[]} browser />);
    await expect.element(screen.getByTestId('host-commands-note')).toBeVisible();
    expect(screen.getByTestId('host-commands-note').element().textContent).toContain(
      'npm start -- --allow-host-commands',
    );
    await screen.rerender(
      <HostCommands servers={[server('memory', 'error', [], refusal)]} browser={false} />,
    );
    expect(screen.getByTestId('host-commands-refused').query()).toBeNull();
    expect(screen.getByTestId('host-commands-note').query()).toBeNull();
  });
});

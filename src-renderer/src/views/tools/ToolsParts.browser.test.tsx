import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import {
  McpProblems,
  McpToolsNote,
  ProblemList,
  SaveHeld,
  ToolPicker,
  ToolsHead,
  ToolsLoadError,
  ToolsMetaLine,
} from './ToolsParts.tsx';

const noop = () => {};
const v = (rule: string, line: number, column: number): Violation => ({
  rule,
  message: `${rule} message`,
  line,
  column,
  endLine: line,
  endColumn: column,
});

describe('ToolsHead', () => {
  it('Save and Revert call back when there are unsaved changes', async () => {
    const onSave = vi.fn();
    const onRevert = vi.fn();
    const screen = await render(
      <ToolsHead sandbox="demo" badge="dirty" dirty saving={false} onRevert={onRevert} onSave={onSave} />,
    );
    await expect.element(screen.getByTestId('dirty')).toHaveTextContent('unsaved changes');
    await screen.getByRole('button', { name: 'Save' }).click();
    await screen.getByRole('button', { name: 'Revert' }).click();
    expect(onSave).toHaveBeenCalledTimes(1);
    expect(onRevert).toHaveBeenCalledTimes(1);
  });

  it('nothing to save: both disabled and the badge says saved; saving says so', async () => {
    const screen = await render(
      <ToolsHead sandbox="demo" badge="saved" dirty={false} saving={false} onRevert={noop} onSave={noop} />,
    );
    await expect.element(screen.getByTestId('saved')).toBeInTheDocument();
    await expect.element(screen.getByRole('button', { name: 'Save' })).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'Revert' })).toBeDisabled();
    await screen.rerender(
      <ToolsHead sandbox="demo" badge="dirty" dirty saving onRevert={noop} onSave={noop} />,
    );
    await expect.element(screen.getByRole('button', { name: 'Saving…' })).toBeDisabled();
  });
});

describe('ToolsMetaLine', () => {
  it('counts the saved tools and problems and names the extraction state', async () => {
    const screen = await render(
      <ToolsMetaLine description="users" savedTools={1} savedProblems={2} extractState="pending" />,
    );
    await expect.element(screen.getByText('saved: 1 tool, 2 problems')).toBeInTheDocument();
    await expect.element(screen.getByTestId('extract-state')).toHaveAttribute('data-state', 'pending');
    await expect.element(screen.getByTestId('extract-state')).toHaveTextContent('waiting…');
  });
});

describe('SaveHeld', () => {
  it('jumps to the first syntax error and offers Save anyway', async () => {
    const onJump = vi.fn();
    const onSaveAnyway = vi.fn();
    const hold = { count: 2, first: v('syntax', 7, 3), message: 'Not saved: tools.py has 2 syntax errors' };
    const screen = await render(<SaveHeld hold={hold} onJump={onJump} onSaveAnyway={onSaveAnyway} />);
    await expect
      .element(screen.getByRole('alert'))
      .toMatchTextContent(/Not saved: tools.py has 2 syntax errors/);
    await screen.getByRole('button', { name: 'Go to line 7' }).click();
    expect(onJump).toHaveBeenCalledWith(7, 3);
    await screen.getByRole('button', { name: 'Save anyway' }).click();
    expect(onSaveAnyway).toHaveBeenCalledTimes(1);
  });
});

describe('ProblemList', () => {
  it('each problem jumps to its line; syntax errors are announced', async () => {
    const onJump = vi.fn();
    const problems = [v('syntax', 2, 4), v('no-docstring', 9, 1)];
    const screen = await render(<ProblemList problems={problems} syntaxErrors={1} onJump={onJump} />);
    await expect
      .element(screen.getByRole('alert'))
      .toMatchTextContent(/tools.py has 1 syntax error; the metadata/);
    await screen.getByRole('button', { name: 'line 9:1' }).click();
    expect(onJump).toHaveBeenCalledWith(problems[1]);
  });

  it('says when there is none', async () => {
    const screen = await render(<ProblemList problems={[]} syntaxErrors={0} onJump={noop} />);
    await expect.element(screen.getByTestId('no-problems')).toHaveTextContent('No problems in tools.py.');
  });
});

describe('ToolPicker', () => {
  it('marks the selected tool and picks another', async () => {
    const onPick = vi.fn();
    const tools = [{ name: 'get_user' }, { name: 'list_orders' }] as never;
    const screen = await render(<ToolPicker tools={tools} selected="get_user" onPick={onPick} />);
    await expect
      .element(screen.getByRole('tab', { name: 'get_user' }))
      .toHaveAttribute('aria-selected', 'true');
    await expect
      .element(screen.getByRole('tab', { name: 'list_orders' }))
      .toHaveAttribute('aria-selected', 'false');
    await screen.getByRole('tab', { name: 'list_orders' }).click();
    expect(onPick).toHaveBeenCalledWith('list_orders');
  });

  it('follows the tabs keyboard: arrows (wrapping), Home and End pick the tool they move to, one tab stop', async () => {
    const tools = [{ name: 'get_user' }, { name: 'list_orders' }, { name: 'restock' }] as never;
    const picked: string[] = [];
    function Picker() {
      const [selected, setSelected] = useState('list_orders');
      return (
        <>
          <button>before</button>
          <ToolPicker
            tools={tools}
            selected={selected}
            onPick={(name) => {
              picked.push(name);
              setSelected(name);
            }}
          />
          <button>after</button>
        </>
      );
    }
    const screen = await render(<Picker />);
    const tab = (name: string) => screen.getByRole('tab', { name });
    const selectedAndFocused = async (name: string) => {
      await expect.element(tab(name)).toHaveAttribute('aria-selected', 'true');
      await expect.element(tab(name)).toHaveFocus();
      for (const other of ['get_user', 'list_orders', 'restock'].filter((n) => n !== name)) {
        await expect.element(tab(other)).toHaveAttribute('aria-selected', 'false');
        await expect.element(tab(other)).toHaveAttribute('tabindex', '-1');
      }
      await expect.element(tab(name)).toHaveAttribute('tabindex', '0');
    };
    // Tab enters the list at the selected tool, and the next Tab leaves it.
    (screen.getByRole('button', { name: 'before' }).element() as HTMLElement).focus();
    await userEvent.keyboard('{Tab}');
    await expect.element(tab('list_orders')).toHaveFocus();
    await userEvent.keyboard('{ArrowRight}');
    await selectedAndFocused('restock');
    await userEvent.keyboard('{ArrowRight}');
    await selectedAndFocused('get_user');
    await userEvent.keyboard('{ArrowLeft}');
    await selectedAndFocused('restock');
    await userEvent.keyboard('{Home}');
    await selectedAndFocused('get_user');
    await userEvent.keyboard('{End}');
    await selectedAndFocused('restock');
    expect(picked).toEqual(['restock', 'get_user', 'restock', 'get_user', 'restock']);
    await userEvent.keyboard('{Tab}');
    await expect.element(screen.getByRole('button', { name: 'after' })).toHaveFocus();
  });

  it('with no tool selected, the first is the tab stop', async () => {
    const tools = [{ name: 'get_user' }, { name: 'list_orders' }] as never;
    const screen = await render(<ToolPicker tools={tools} selected={undefined} onPick={() => {}} />);
    await expect.element(screen.getByRole('tab', { name: 'get_user' })).toHaveAttribute('tabindex', '0');
    await expect.element(screen.getByRole('tab', { name: 'list_orders' })).toHaveAttribute('tabindex', '-1');
  });
});

describe('McpToolsNote and ToolsLoadError', () => {
  it('says an MCP-only sandbox has no tools.py', async () => {
    const screen = await render(<McpToolsNote count={3} mcpOnly />);
    await expect
      .element(screen.getByText(/This sandbox has no tools.py: its 3 tools come from MCP servers/))
      .toBeInTheDocument();
  });

  it('lists the problems of the MCP selection (a refused alias with why) as an alert', async () => {
    const screen = await render(
      <McpProblems
        sandbox="mem"
        problems={[
          "alias len (for memory's tool read_graph) is a name scripts already have (a builtin, module, helper or global): it would replace it in every script of the sandbox; the alias is not used, name it after what read_graph does",
        ]}
      />,
    );
    const alert = screen.getByRole('alert');
    await expect
      .element(alert)
      .toMatchTextContent(/^A problem in the MCP tools of mem \(\[sandboxes\.mem\.mcp\] in config\.toml\):/);
    await expect
      .element(alert)
      .toMatchTextContent(/alias len \(for memory's tool read_graph\) is a name scripts already have/);
  });

  it('names the load failure and retries', async () => {
    const onRetry = vi.fn();
    const screen = await render(<ToolsLoadError sandbox="demo" error="no such sandbox" onRetry={onRetry} />);
    await expect
      .element(screen.getByRole('alert'))
      .toHaveTextContent('Could not load the tools of demo: no such sandbox');
    await screen.getByRole('button', { name: 'Try again' }).click();
    expect(onRetry).toHaveBeenCalledTimes(1);
  });
});

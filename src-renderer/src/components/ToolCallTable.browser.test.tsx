import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import { ToolCallTable } from './ToolCallTable.tsx';
import '../styles.css';

describe('ToolCallTable', () => {
  it("names the skill whose code made a call; a call of the script's own has none", async () => {
    const screen = await render(
      <ToolCallTable
        label="tool calls"
        calls={[
          {
            name: 'get_orders',
            args: {},
            result: { success: true, data: [] },
            ms: 3,
            location: 'sandbox',
            skill: 'spent_by',
          },
          { name: 'get_user', args: { user_id: 'u2' }, ms: 2.5, location: 'sandbox' },
        ]}
      />,
    );
    await expect.element(screen.getByRole('table', { name: 'tool calls' })).toBeVisible();
    const rows = [...screen.container.querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-skill'))).toEqual(['spent_by', null]);
    expect(rows[0]?.querySelector('td')?.textContent).toBe('get_orders in skill spent_by');
    expect(rows[1]?.querySelector('td')?.textContent).toBe('get_user');
  });

  it('in a narrow panel (Try tool, ~300 px) keeps short words whole: a name wraps only after an underscore', async () => {
    const screen = await render(
      <div style={{ width: 296 }}>
        <ToolCallTable
          label="trace"
          calls={[
            { name: 'boom', args: { n: 7 }, error: 'ValueError: boom 7', ms: 0.3, location: 'sandbox' },
            {
              name: 'check_inventory',
              args: { product_id: 'p1', warehouse: 'New York' },
              error: 'ValueError: no such warehouse',
              ms: 12.5,
              location: 'sandbox',
            },
          ]}
        />
      </div>,
    );
    await expect.element(screen.getByRole('table', { name: 'trace' })).toBeVisible();
    const rows = [...screen.container.querySelectorAll('tbody tr')];
    /** The lines a cell's text takes (a word broken in two takes two). */
    const lines = (el: Element | null | undefined) => {
      const range = document.createRange();
      range.selectNodeContents(el!);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    };
    const cells = (r: Element | undefined) => [...(r?.querySelectorAll('td') ?? [])];
    // "boom" and "sandbox" each on one line (they read "boo m", "sandbo x").
    expect(lines(cells(rows[0])[0])).toBe(1);
    expect(lines(cells(rows[0])[4])).toBe(1);
    expect(lines(cells(rows[1])[3])).toBe(1);
    // check_inventory: at most its two halves, each whole.
    expect(lines(cells(rows[1])[0])).toBeLessThanOrEqual(2);
    const name = cells(rows[1])[0]!.querySelector('code')!;
    expect(name.textContent).toBe('check_inventory');
    expect(name.getBoundingClientRect().width).toBeGreaterThanOrEqual(
      (() => {
        const probe = document.createElement('code');
        probe.textContent = 'inventory';
        probe.style.position = 'absolute';
        name.parentElement!.appendChild(probe);
        const w = probe.getBoundingClientRect().width;
        probe.remove();
        return w - 0.5;
      })(),
    );
    // The table stays inside its panel.
    const table = screen.container.querySelector('table')!;
    expect(table.getBoundingClientRect().width).toBeLessThanOrEqual(296.5);
  });

  it("an MCP server's long camelCase name wraps between its words and keeps the table inside the panel", async () => {
    const name = 'github__searchIssuesByTopicAndLabel';
    const screen = await render(
      <div style={{ width: 296 }}>
        <ToolCallTable
          label="trace"
          calls={[
            { name, args: { topic: 'x' }, result: { success: true, data: [] }, ms: 40.2, location: 'mcp' },
          ]}
        />
      </div>,
    );
    await expect.element(screen.getByRole('table', { name: 'trace' })).toBeVisible();
    const code = screen.container.querySelector('td.call-name code')!;
    // The name reads whole (the breaks are <wbr>, no text added) and wraps onto more than one line.
    expect(code.textContent).toBe(name);
    const range = document.createRange();
    range.selectNodeContents(code);
    expect(new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size).toBeGreaterThan(1);
    // Before (breaks after underscores only): "searchIssuesByTopicAndLabel" on one line, the
    // table wider than its panel.
    const table = screen.container.querySelector('table')!;
    expect(table.getBoundingClientRect().width).toBeLessThanOrEqual(296.5);
  });
});

import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import { ToolCallTable } from './ToolCallTable.tsx';

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
});

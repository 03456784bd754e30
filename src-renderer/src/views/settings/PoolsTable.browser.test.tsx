import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import { PoolsTable } from './PoolsTable.tsx';

const pool = {
  sandbox: 'weather (python)',
  size: 2,
  idle: 1,
  busy: 1,
  queued: 0,
  standby: 1,
  standbyStarting: 0,
  standbyTarget: 1,
  replaced: 3,
};

describe('PoolsTable', () => {
  it('no pool: says when one starts', async () => {
    const screen = await render(<PoolsTable pools={[]} />);
    await expect.element(screen.getByText(/No pool is running/)).toBeInTheDocument();
    expect(screen.getByRole('table', { name: 'pools' }).query()).toBeNull();
  });

  it('a pool whose worker stopped after a cleanup that failed: the count, and when and why', async () => {
    const reason =
      "the worker stopped: the job's launcher (pid 12) could not clean up after the job (/tmp/root-left, which the job left, could not be removed)";
    const at = '2026-12-05T21:04:05.000Z';
    const screen = await render(
      <PoolsTable
        pools={[pool, { ...pool, sandbox: 'shop (deno)', replaced: 1, lastReplaced: { at, reason } }]}
      />,
    );
    const table = screen.getByRole('table', { name: 'pools' });
    await expect.element(table).toBeInTheDocument();
    const rows = [...table.element().querySelectorAll('tbody tr')].map((r) =>
      [...r.querySelectorAll('td')].map((c) => c.textContent),
    );
    expect(rows.map((r) => [r[0], r.at(-1)])).toEqual([
      ['weather (python)', '3'],
      ['shop (deno)', '1'],
    ]);
    const last = screen.getByRole('list', { name: 'last replaced workers' });
    // (only the pool that has one is listed, with its time as a machine-readable <time>)
    expect(last.getByRole('listitem').all()).toHaveLength(1);
    const item = last.element().querySelector('li')?.textContent ?? '';
    expect(item.startsWith('shop (deno): a worker was last replaced at '), item).toBe(true);
    expect(item.endsWith(`: ${reason}`), item).toBe(true);
    expect(last.element().querySelector('time')?.getAttribute('dateTime')).toBe(at);
  });

  it('no replacement yet: no list', async () => {
    const screen = await render(<PoolsTable pools={[{ ...pool, replaced: 0 }]} />);
    await expect.element(screen.getByRole('table', { name: 'pools' })).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'last replaced workers' }).query()).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import { SkillCallTable } from './SkillCallTable.tsx';
import { ToolCallTable } from './ToolCallTable.tsx';
import type { SkillCallTrace, ToolCallTrace } from '../../../src-main/core/sandbox/execution.ts';

const skillCalls: SkillCallTrace[] = [
  { id: 1, name: 'chain_tier', args: { user_id: 'u2', depth: 1 }, at: 3, ms: 9.5 },
  { id: 2, name: 'chain_tier', parent: 1, args: { user_id: 'u2', depth: 0 }, at: 5, ms: 2 },
  {
    id: 3,
    name: 'strict_tier',
    args: { user_id: 'u4' },
    at: 14,
    ms: 1.25,
    error: { type: 'ValueError', message: 'u4 is bronze, not gold' },
  },
  { id: 4, name: 'slow_tier', args: {}, at: 16, ms: 30_000, unfinished: true },
];
const toolCalls: ToolCallTrace[] = [
  {
    name: 'get_user',
    args: { user_id: 'u2' },
    ms: 1,
    location: 'sandbox',
    skill: 'chain_tier',
    skillCall: 1,
  },
  {
    name: 'get_user',
    args: { user_id: 'u2' },
    ms: 1,
    location: 'sandbox',
    skill: 'chain_tier',
    skillCall: 2,
  },
  {
    name: 'get_user',
    args: { user_id: 'u4' },
    ms: 1,
    location: 'sandbox',
    skill: 'strict_tier',
    skillCall: 3,
  },
];

describe('SkillCallTable', () => {
  it('lists each skill call under the one that made it, marks the failed and unfinished ones', async () => {
    const screen = await render(<SkillCallTable calls={skillCalls} toolCalls={toolCalls} notRecorded={2} />);
    await expect.element(screen.getByRole('table', { name: 'skill calls' })).toBeVisible();
    await expect.element(screen.getByRole('heading', { name: 'Skill calls (6)' })).toBeVisible();
    const rows = [...screen.container.querySelectorAll('tbody tr')];
    expect(rows.map((r) => [r.getAttribute('data-skill-call'), r.getAttribute('data-parent')])).toEqual([
      ['1', null],
      ['2', '1'],
      ['3', null],
      ['4', null],
    ]);
    const cells = rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
    expect(cells[1]?.[0]).toBe('chain_tier #2 in #1');
    expect(cells[0]?.[2]).toBe('returned');
    expect(cells[2]?.[2]).toBe('raised ValueError: u4 is bronze, not gold');
    expect(cells[3]?.[2]).toBe('still running when the job ended');
    expect(cells.map((c) => c[4])).toEqual(['1', '1', '1', '0']);
    expect(rows.map((r) => r.className)).toEqual(['', '', 'row-error', 'row-error']);
    // The inner call is drawn inside the outer one.
    const pad = (i: number) => parseFloat((rows[i]?.querySelector('td') as HTMLElement).style.paddingLeft);
    expect(pad(1)).toBeGreaterThan(pad(0));
    await expect
      .element(screen.getByTestId('skill-calls-not-recorded'))
      .toHaveTextContent('2 more skill calls not recorded (past the first 4; limits.tool_calls)');
  });

  it('shows nothing for a job that called no skill, or a run recorded before skill calls were', async () => {
    const screen = await render(<SkillCallTable calls={undefined} toolCalls={[]} />);
    expect(screen.container.querySelector('[data-testid="skill-calls"]')).toBeNull();
  });

  it('a tool call names the skill call that made it when it was recorded', async () => {
    const screen = await render(<ToolCallTable calls={toolCalls.slice(1, 2)} label="tool calls" />);
    await expect.element(screen.getByRole('table', { name: 'tool calls' })).toBeVisible();
    expect(screen.container.querySelector('tbody tr td')?.textContent).toBe(
      'get_user in skill chain_tier #2',
    );
  });
});

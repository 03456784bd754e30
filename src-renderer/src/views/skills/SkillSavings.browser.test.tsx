import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { SkillSavings } from './SkillSavings.tsx';

const saving = {
  skill: 'city_of_order',
  status: 'passed' as const,
  sequence: ['get_orders', 'get_user'],
  lines: 4,
  runs: 2,
  matches: [
    { runId: 'r-gold', caseId: 'gold-spend', column: 'local:good', lines: [1, 4] },
    { runId: 'r-city', caseId: 'order-city', column: 'local:good', lines: [1, 2] },
  ],
};

describe('SkillSavings', () => {
  it('says what each skill would have saved and opens its runs and the skill', async () => {
    const onOpenRun = vi.fn();
    const onOpenSkill = vi.fn();
    const screen = await render(
      <SkillSavings
        savings={[saving, { ...saving, skill: 'unused', status: 'untested', lines: 0, runs: 0, matches: [] }]}
        onOpenRun={onOpenRun}
        onOpenSkill={onOpenSkill}
      />,
    );
    const section = screen.getByTestId('skill-savings');
    await expect.element(section).toBeInTheDocument();
    expect(section.element().textContent).toContain(
      'city_of_order would have saved 4 tool-call lines in 2 runs (get_orders → get_user)',
    );
    await expect.element(section.getByText('untested')).toBeInTheDocument();
    await expect.element(section.getByText('lines 1, 4')).toBeInTheDocument();
    await section.getByRole('button', { name: 'order-city @ local:good' }).click();
    expect(onOpenRun).toHaveBeenCalledWith('r-city');
    await section.getByRole('button', { name: 'city_of_order' }).click();
    expect(onOpenSkill).toHaveBeenCalledWith('city_of_order');
  });

  it('shows nothing when the sandbox has no skill (or the run is not finished)', async () => {
    const screen = await render(
      <div data-testid="host">
        <SkillSavings savings={undefined} onOpenRun={vi.fn()} onOpenSkill={vi.fn()} />
      </div>,
    );
    await expect.element(screen.getByTestId('host')).toBeEmptyDOMElement();
  });
});

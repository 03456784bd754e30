/**
 * Skill calls in a run's view (Chromium, browser front end, real container): a run whose script calls a
 * skill that calls itself and one that raises shows, in its Tool calls tab, each skill call under the one
 * that made it and the failed call marked with its exception, and each tool call names its skill call.
 * Before, the view showed only "in skill <name>" on the tool calls: which call of a skill failed (and with
 * what arguments) was not shown anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fence, startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { CHAIN_PY, STRICT_PY } from '../support/skill-sources.ts';

let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

describe("a run's skill calls in the workbench", () => {
  it('lists each skill call, nested, with the failed one marked and its exception', async () => {
    const { page, llm } = w;
    for (const [name, source, args] of [
      ['chain_tier', CHAIN_PY, { user_id: 'u1', depth: 1 }],
      ['strict_tier', STRICT_PY, { user_id: 'u1' }],
    ] as const) {
      const saved = await w.svc.skills().save({
        sandbox: 'ecommerce',
        name,
        source,
        tests: [{ args, assert: [{ type: 'equals', value: 'gold' }] }],
      });
      expect(saved.test.passed, JSON.stringify(saved.test)).toBe(true);
    }
    // Every attempt's answer is the same script, whose strict_tier call raises.
    llm.fallback = {
      text: fence(
        't = chain_tier(user_id="u2", depth=1)\ns = strict_tier(user_id="u4")\nemit_result([t, s])',
      ),
    };
    await page.goto(w.web.url);
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'New run' }).click();
    await page.getByLabel('task').fill('Tiers of u2 and u4');
    await page.getByText('skip templates and rules').click();
    await page.getByRole('button', { name: 'Start run' }).click();
    const status = () => page.locator('.run-detail').getAttribute('data-run-status');
    await expect.poll(status, { timeout: 180_000 }).toBe('failed');
    await page.getByRole('tab', { name: /^Tool calls \(3\) · skill calls \(3\)$/ }).click();
    const table = page.getByRole('table', { name: 'skill calls' });
    await table.waitFor({ timeout: 30_000 });
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    const row = (id: number) => table.locator(`tbody tr[data-skill-call="${id}"]`);
    expect(await row(1).innerText()).toMatch(/^chain_tier #1\s+\{"user_id":"u2","depth":1\}\s+returned\s/);
    expect(await row(2).getAttribute('data-parent')).toBe('1');
    expect(await row(2).innerText()).toMatch(
      /^chain_tier #2 in #1\s+\{"user_id":"u2","depth":0\}\s+returned\s/,
    );
    expect(await row(3).getAttribute('class')).toContain('row-error');
    expect(await row(3).innerText()).toMatch(
      /^strict_tier #3\s+\{"user_id":"u4"\}\s+raised ValueError: u4 is bronze, not gold\s/,
    );
    for (const id of [1, 2]) expect(await row(id).getAttribute('class')).not.toContain('row-error');
    // Each tool call names the skill call that made it.
    const calls = page.getByRole('table', { name: 'tool calls' });
    expect(await calls.locator('tbody tr td:first-child').allInnerTexts()).toEqual([
      'get_user in skill chain_tier #1',
      'get_user in skill chain_tier #2',
      'get_user in skill strict_tier #3',
    ]);
    await w.screenshot('run-skill-calls');
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});

/**
 * The workbench shows a tool call's wrong arguments where it shows every violation: a PLAN run whose
 * first script calls get_user() without its argument is refused by validation (nothing ran), and the
 * attempt's violation list and editor markers name the argument and the tool's signature.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fence, startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';

let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

describe('tool-call arguments in the workbench', () => {
  it("an attempt refused for a call's arguments lists the argument and the signature", async () => {
    const { page, llm } = w;
    llm.push(
      fence('r = get_user()\nemit_result(r.data["name"])'),
      fence('r = get_user(user_id="u1", verbose=True)\nemit_result(r.data["name"])'),
      fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'),
    );
    await page.getByRole('button', { name: 'New run' }).first().click();
    await page.getByLabel('task').fill('What is the name of user u1?');
    await page.getByLabel('sandbox', { exact: true }).selectOption('ecommerce');
    await page.getByText('skip templates and rules').click();
    await page.getByRole('button', { name: 'Start run' }).click();

    await expect.poll(() => page.locator('.run-detail').getAttribute('data-run-status')).toBe('succeeded');
    await expect.poll(() => page.locator('.timeline .tl-item').count()).toBe(2);
    await page.locator('.tl-item[data-attempt="1"]').click();
    const list = page.locator('ul[aria-label="violations"]');
    await expect
      .poll(() => list.innerText())
      .toContain("get_user() got an unexpected keyword argument 'verbose' (get_user(user_id: str))");
    expect(await list.innerText()).toContain('tool-arguments');
    await page.locator('[data-testid="editor-script"] .squiggly-error').first().waitFor();
    // The candidate the LLM redid within the attempt: its own violation, the missing argument.
    await page
      .getByRole('button', { name: /^Rejected candidates/ })
      .or(page.locator('summary', { hasText: 'Rejected candidates' }))
      .first()
      .click();
    await expect
      .poll(() => page.locator('.rejected').innerText())
      .toContain("get_user() missing required argument 'user_id' (get_user(user_id: str))");
    await w.screenshot('run-attempt-tool-arguments');
    expect(w.pageErrors).toEqual([]);
  });
});

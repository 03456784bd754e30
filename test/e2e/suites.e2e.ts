/**
 * The Suites view in Chromium against the browser front end, the scripted LLM server (answers per
 * model) and real sandbox containers: schema markers in the editor, a suite over two models with live
 * progress, the matrix (filters, a cell opening its run), charts, and the comparison with an earlier run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fence, modelOf, ORACLE, taskOf } from '../support/suite-oracle.ts';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';

let w: E2eWorld;
/** Monaco renders spaces as no-break spaces. */
const textOf = async (l: { innerText(): Promise<string> }) => (await l.innerText()).replace(/\u00a0/g, ' ');

beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

describe('the Suites view', () => {
  it('edit with markers, run over two models, matrix, charts, comparison', async () => {
    const { page, llm } = w;
    let weakWrong = true;
    llm.responder = (req) => {
      const task = taskOf(req);
      if (weakWrong && modelOf(req) === 'weak' && task.startsWith('How many units'))
        return fence('emit_result(check_inventory(product_id="p3").data["in_stock"])');
      return ORACLE[task] ? fence(ORACLE[task]) : undefined;
    };
    await page.getByRole('button', { name: 'Suites' }).first().click();
    await expect.poll(() => page.locator('.suite-list').innerText()).toContain('support');
    const editor = page.locator('[data-testid="editor-suite"]');
    await editor.locator('.monaco-editor').waitFor({ timeout: 60_000 });
    await expect.poll(() => textOf(editor)).toContain('sandbox = "ecommerce"');

    // A key the schema does not know: a marker on its line and the problem listed; Start is disabled.
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('bogus = 1');
    await expect.poll(() => page.locator('[data-testid="suite-problems"]').innerText()).toMatch(/line \d+:1/);
    await editor.locator('.squiggly-error').first().waitFor();
    expect(await page.getByRole('button', { name: 'Start suite' }).isDisabled()).toBe(true);
    await w.screenshot('suites-editor-problems');
    // Another suite opened and this one again: the unsaved edit is still there, with its problem (it
    // was dropped without asking), and a reload asks first; Revert drops it.
    await page.getByRole('button', { name: /^support/ }).click();
    await expect.poll(() => page.locator('.suite-detail h2').innerText()).toBe('support');
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: /^ecommerce/ }).click();
    await expect.poll(() => page.locator('.suite-detail h2').innerText()).toBe('ecommerce');
    // (to the end of the editor, where the edit is: it shows only the lines in view)
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await expect.poll(() => textOf(editor)).toContain('bogus = 1');
    await expect.poll(() => page.locator('[data-testid="suite-problems"]').innerText()).toMatch(/line \d+:1/);
    expect(await page.getByRole('button', { name: 'Start suite' }).isDisabled()).toBe(true);
    const asks = () =>
      page.evaluate(`(() => {
        const e = new Event('beforeunload', { cancelable: true });
        window.dispatchEvent(e);
        return e.defaultPrevented;
      })()`);
    expect(await asks()).toBe(true);
    await page.getByRole('button', { name: 'Revert' }).click();
    await expect.poll(() => textOf(editor)).not.toContain('bogus');
    await expect.poll(() => page.locator('[data-testid="suite-problems"]').innerText()).toBe('');
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    expect(await asks()).toBe(false);

    // Two models, live progress, the expected matrix.
    await page.getByLabel('models').fill('local:good,local:weak');
    await page.getByRole('button', { name: 'Start suite' }).click();
    const progress = page.locator('[data-testid="suite-progress"]');
    await expect.poll(() => progress.getAttribute('data-status'), { timeout: 120_000 }).toBe('failed');
    await expect.poll(() => progress.innerText()).toContain('16/16 runs');
    const bad = page.locator('[data-testid="cell-stock-tokyo-local:weak"]');
    const good = page.locator('[data-testid="cell-stock-tokyo-local:good"]');
    // (the matrix is read again after the progress that ended the run, not with it: each is polled)
    await expect.poll(() => bad.innerText()).toContain('✗ 0/1');
    await expect.poll(() => good.innerText()).toContain('✓ 1/1');
    await expect
      .poll(() => page.locator('[data-testid="total-local:weak"]').innerText())
      .toContain('7/8 met');
    await expect
      .poll(() => page.locator('[data-testid="total-local:good"]').innerText())
      .toContain('8/8 met');
    await w.screenshot('suites-matrix');

    // Filters: only failing cases.
    // Scoped to the matrix: Monaco's suggest widget has a "Show More" of its own.
    await page.getByTestId('suite-matrix').getByLabel('show', { exact: true }).selectOption('failing');
    await expect.poll(() => page.locator('table.matrix tbody tr').count()).toBe(1);
    // A cell opens its runs and verdicts; a run opens in the run detail view.
    await bad.click();
    const detail = page.locator('.cell-detail');
    await expect.poll(() => detail.innerText()).toContain('expected 9, got 4');
    await w.screenshot('suites-matrix-cell');
    await detail.getByRole('button', { name: /^run / }).click();
    await expect.poll(() => page.locator('.run-detail').getAttribute('data-run-status')).toBe('succeeded');
    await expect.poll(() => page.locator('[data-testid="run-result"]').innerText()).toContain('4');
    // The run links back to its suite run.
    await page.locator('[data-testid="run-suite-link"]').click();
    await expect.poll(() => page.url()).toContain('#/suites/');
    await expect.poll(() => page.locator('[data-testid="cell-stock-tokyo-local:weak"]').count()).toBe(1);

    // A second run with the weak model fixed: charts and the comparison with the first run.
    weakWrong = false;
    await page.getByRole('button', { name: 'Suites' }).first().click();
    await page.getByLabel('models').fill('local:good,local:weak');
    await page.getByRole('button', { name: 'Start suite' }).click();
    await expect
      .poll(() => page.locator('[data-testid="suite-progress"]').getAttribute('data-status'), {
        timeout: 120_000,
      })
      .toBe('passed');
    await page.getByRole('tab', { name: 'Charts' }).click();
    // (drawn from the suite run as last read, which may be from before its last case ended)
    await expect.poll(() => page.locator('[data-testid="chart-pass-rate"]').innerText()).toContain('100%');
    expect(await page.locator('[data-testid="chart-latency"] rect').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="chart-tokens"] rect').count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('[data-testid="chart-trend"] circle').count()).toBe(2);
    await w.screenshot('suites-charts');

    await page.getByRole('tab', { name: 'Compare' }).click();
    const select = page.getByLabel('compare with');
    const options = await select.locator('option').allTextContents();
    expect(options.length).toBe(2);
    await select.selectOption({ index: 1 });
    const cmp = page.locator('[data-testid="suite-comparison"]');
    await expect.poll(() => cmp.innerText()).toContain('1 fixed');
    expect(await cmp.innerText()).toContain('0 new failure(s)');
    expect(await cmp.locator('tr.change-fixed').innerText()).toContain('stock-tokyo');
    await w.screenshot('suites-comparison');

    // The runs list filtered by this suite run.
    await page.getByRole('tab', { name: 'Matrix' }).click();
    await page.getByRole('button', { name: 'Runs of this suite run' }).click();
    await expect.poll(() => page.getByLabel('suite run filter').inputValue()).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => page.locator('main').innerText()).toMatch(/16 runs|16 of|\b16\b/);
    await w.screenshot('suites-runs-filtered');
    expect(w.pageErrors).toEqual([]);
  });
});

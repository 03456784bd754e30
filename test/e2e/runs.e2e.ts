/**
 * The workbench in Chromium against the browser front end, the scripted LLM server and a real sandbox
 * container: a PLAN run that fails validation, then at runtime, then succeeds, inspected attempt by
 * attempt (markers, traceback jump, diff); the run list's search and filters.
 */
import { join } from 'node:path';
import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedManyRuns } from '../../bench/support/seed-runs.ts';
import { SCREENSHOTS, fence, startWorld } from './support/app.ts';
import { launchChromium } from './support/browser.ts';
import type { E2eWorld } from './support/app.ts';
import { POLL_MS } from '../support/budgets.ts';

let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

describe('runs in the workbench', () => {
  it('a PLAN run: validation failure, runtime KeyError, success — each attempt inspectable', async () => {
    const { page, llm } = w;
    llm.push(
      fence('import os\nemit_result(os.getcwd())'),
      fence('import sys\nemit_result(1)'),
      fence('r = get_user(user_id="u1")\nname = r.data[0]\nemit_result(name)'),
      fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'),
    );
    await page.getByRole('button', { name: 'New run' }).first().click();
    await page.getByLabel('task').fill('What is the name of user u1?');
    await page.getByLabel('sandbox', { exact: true }).selectOption('ecommerce');
    // The check box and its label on one line (the label used to wrap below its box).
    const checkBox = await page.locator('.form-row-check input[type="checkbox"]').first().boundingBox();
    const checkLabel = await page.locator('.form-row-check label').first().boundingBox();
    expect(checkBox && checkLabel).toBeTruthy();
    expect(checkLabel!.y).toBeLessThan(checkBox!.y + checkBox!.height);
    expect(checkLabel!.height).toBeLessThan(2 * checkBox!.height + 8);
    await page.getByText('skip templates and rules').click();
    await w.screenshot('new-run');
    await page.getByRole('button', { name: 'Start run' }).click();

    const detail = page.locator('section.run-detail');
    await detail
      .locator('[data-run-status="succeeded"]')
      .or(page.locator('.run-detail[data-run-status="succeeded"]'))
      .first()
      .waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('.run-detail').getAttribute('data-run-status')).toBe('succeeded');
    await expect.poll(() => page.locator('[data-testid="run-result"]').innerText()).toContain('Ada Lovelace');
    await expect.poll(() => page.locator('.timeline .tl-item').count()).toBe(3);

    // A narrow window: the back link keeps one line beside the task (the title shrinks, not the link).
    const size = page.viewportSize();
    await page.setViewportSize({ width: 420, height: 700 });
    const back = page.locator('.view-head > button', { hasText: 'Runs' });
    await expect
      .poll(() =>
        back.evaluate(
          (b) =>
            b.getBoundingClientRect().height /
            parseFloat(
              (
                globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }
              ).getComputedStyle(b).fontSize,
            ),
        ),
      )
      .toBeLessThan(2); // (two lines are ~2.4 font sizes high, one ~1.2)
    if (size) await page.setViewportSize(size);

    // Attempt 1: validation failed — violations listed and shown as Monaco markers.
    await page.locator('.tl-item[data-attempt="1"]').click();
    await expect.poll(() => page.locator('ul[aria-label="violations"]').innerText()).toContain('no-import');
    await page.locator('[data-testid="editor-script"] .squiggly-error').first().waitFor();
    expect(await page.locator('[data-testid="editor-script"] .squiggly-error').count()).toBeGreaterThan(0);
    await page
      .getByRole('button', { name: /^Rejected candidates/ })
      .or(page.locator('summary', { hasText: 'Rejected candidates' }))
      .first()
      .click();
    // The rejected script is in a read-only editor (Monaco renders spaces as no-break spaces).
    expect((await page.locator('.rejected').innerText()).replace(/\u00a0/g, ' ')).toContain('import os');
    await page.getByRole('tab', { name: 'Prompt' }).click();
    expect(await page.locator('[data-testid="prompt-panel"]').innerText()).toContain(
      'What is the name of user u1?',
    );
    await page.getByRole('tab', { name: 'LLM output' }).click();
    expect(await page.locator('[data-testid="llm-panel"]').innerText()).toContain('import');
    await w.screenshot('run-attempt-validation');

    // Attempt 2: runtime KeyError — the traceback frame jumps to the script line.
    await page.locator('.tl-item[data-attempt="2"]').click();
    const tb = page.getByRole('region', { name: 'traceback' });
    await expect.poll(() => tb.innerText()).toContain('KeyError');
    const frame = tb.locator('[data-frame-line]').last();
    const line = Number(await frame.getAttribute('data-frame-line'));
    expect(line).toBe(2);
    await frame.click();
    await expect
      .poll(() => page.locator('[data-testid="editor-script"]').getAttribute('data-cursor-line'))
      .toBe(String(line));
    await page.getByRole('tab', { name: 'Prompt' }).click();
    expect(await page.locator('[data-testid="prompt-panel"]').innerText()).toContain('Previous script');
    // Another attempt picked while its prompt is on its way (held here; a loaded service answers late):
    // the panel says it is loading, and never shows the prompt of the attempt it left under this one's
    // name (it showed attempt 2's prompt for attempt 1 until the answer came).
    const held: Route[] = [];
    await page.route(/\/api\/runs\.prompt$/, (r) => void held.push(r));
    await page.locator('.tl-item[data-attempt="1"]').click();
    await expect.poll(() => held.length).toBe(1);
    await expect.poll(() => page.getByTestId('attempt-view').getAttribute('data-attempt')).toBe('1');
    await page.getByText('Loading the prompt…').waitFor();
    expect(await page.locator('[data-testid="prompt-panel"]').count()).toBe(0);
    for (const r of held) await r.continue();
    await page.unroute(/\/api\/runs\.prompt$/);
    const prompt = page.locator('[data-testid="prompt-panel"]');
    await expect.poll(() => prompt.innerText()).toContain('What is the name of user u1?');
    expect(await prompt.innerText()).not.toContain('Previous script');
    await page.locator('.tl-item[data-attempt="2"]').click();
    await expect.poll(() => prompt.innerText()).toContain('Previous script');
    await page.getByRole('tab', { name: /Tool calls/ }).click();
    expect(await page.locator('table[aria-label="tool calls"]').innerText()).toContain('get_user');
    await w.screenshot('run-attempt-traceback');

    // Attempt 3: success; diff against attempt 2 in the Monaco diff editor.
    await page.locator('.tl-item[data-attempt="3"]').click();
    await page.getByRole('tab', { name: 'Execution' }).click();
    expect(await page.locator('[data-testid="execution-panel"]').innerText()).toContain('isolation: docker');
    await page.getByRole('tab', { name: 'Diff' }).click();
    await page.getByLabel('diff with').selectOption('2');
    await page.locator('[data-testid="diff-attempts"] .monaco-diff-editor').waitFor();
    await expect
      .poll(() =>
        page
          .locator('[data-testid="diff-attempts"] .line-insert, [data-testid="diff-attempts"] .char-insert')
          .count(),
      )
      .toBeGreaterThan(0);
    await w.screenshot('run-attempt-diff');
    expect(
      Number((await page.locator('[data-testid="run-tokens"]').innerText()).split(' ')[0]),
    ).toBeGreaterThan(0);

    // Keyboard: previous attempt.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('k');
    await expect
      .poll(() => page.locator('[data-testid="attempt-view"]').getAttribute('data-attempt'))
      .toBe('2');
  });

  it('the run list: search and filters find runs; failed runs are one click away', async () => {
    const { page, llm } = w;
    // A second run that fails for good (the LLM keeps writing an import).
    llm.fallback = { text: fence('import os\nemit_result(1)') };
    await page.getByRole('button', { name: 'New run' }).first().click();
    // (the run started above emptied the form)
    expect(await page.getByLabel('task').inputValue()).toBe('');
    await page.getByLabel('task').fill('List the pending orders of the shop');
    await page.getByLabel('max retries').fill('1');
    await page.getByText('skip templates and rules').click();
    // The form outlives a look at another view (it came back empty).
    const nav = page.getByRole('navigation', { name: 'main' });
    await nav.getByRole('button', { name: 'Tools' }).click();
    await nav.getByRole('button', { name: 'New run' }).click();
    await expect.poll(() => page.getByLabel('task').inputValue()).toBe('List the pending orders of the shop');
    expect(await page.getByLabel('max retries').inputValue()).toBe('1');
    expect(await page.getByLabel('skip templates and rules').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Start run' }).click();
    await expect
      .poll(() => page.locator('.run-detail').getAttribute('data-run-status'), { timeout: 60_000 })
      .toBe('failed');
    llm.fallback = undefined;

    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Runs' }).click();
    await expect.poll(() => page.locator('.run-row[data-run-id]').count()).toBe(2);
    await w.screenshot('runs-list');

    await page.getByLabel('search runs').fill('pending orders');
    await expect.poll(() => page.locator('.run-row[data-run-id]').count()).toBe(1);
    expect(await page.locator('.run-row[data-run-id]').innerText()).toContain('List the pending orders');
    await page.getByLabel('search runs').fill('');
    await expect.poll(() => page.locator('.run-row[data-run-id]').count()).toBe(2);

    await page.getByRole('button', { name: 'Failed only' }).click();
    await expect.poll(() => page.locator('.run-row[data-run-id]').count()).toBe(1);
    expect(await page.locator('.run-row[data-run-id] [data-status]').getAttribute('data-status')).toBe(
      'failed',
    );
    await page.getByRole('button', { name: 'Failed only' }).click();

    await page.getByLabel('search runs').fill('no such run anywhere');
    await page.getByText('No run matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => page.locator('.run-row[data-run-id]').count()).toBe(2);

    // "/" focuses the search box.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    expect(
      await page.evaluate(() =>
        (
          globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } } }
        ).document.activeElement.getAttribute('aria-label'),
      ),
    ).toBe('search runs');
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });

  it('a search over many runs counts up to its pages ("100+"), grows as it scrolls, counts on demand', async () => {
    const { page } = w;
    seedManyRuns((await w.svc.runs()).store, 250); // tasks "check <word> number <i>", older than the runs above
    await page.getByLabel('search runs').fill('check');
    const total = page.locator('[data-testid="runs-total"]');
    await expect.poll(() => total.innerText()).toBe('100+ runs matching');
    await expect
      .poll(() => page.locator('.run-row[data-run-id]').first().innerText())
      .toContain('number 249');
    await page.getByTestId('runs-count').click();
    await expect.poll(() => total.innerText()).toBe('250 runs matching');
    expect(await page.getByTestId('runs-count').count()).toBe(0);
    // A new search: a lower bound again; scrolled to the end of what is known, the next pages load, the
    // bound grows, and the last page makes the total exact by itself.
    await page.getByLabel('search runs').fill('check ');
    await expect.poll(() => total.innerText()).toBe('100+ runs matching');
    await expect
      .poll(
        async () => {
          await page.locator('[data-testid="run-scroll"]').evaluate((el) => (el.scrollTop = el.scrollHeight));
          return total.innerText();
        },
        { timeout: POLL_MS },
      )
      .toBe('250 runs matching');
    // The last page arrived with the exact total; the rows at the new end render after it (scrolled there).
    await expect
      .poll(async () => {
        await page.locator('[data-testid="run-scroll"]').evaluate((el) => (el.scrollTop = el.scrollHeight));
        return page.locator('.run-row[data-run-id]').last().innerText();
      })
      .toContain('number 0');
    // Unfiltered, the total is exact from the first page.
    await page.getByLabel('search runs').fill('');
    await expect.poll(() => total.innerText()).toBe('252 runs');
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
  it('a template test is its own kind: hidden from the run list until the filter shows it', async () => {
    const { page } = w;
    const nav = (label: string) =>
      page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: label }).click();
    (await w.svc.templates()).create({
      name: 'user-name-check',
      pattern: 'name of user {user_id}',
      slots: { user_id: 'str' },
      sandbox: 'ecommerce',
      language: 'python',
      body: 'r = get_user(user_id={{user_id}})\nemit_result(r.data["name"])\n',
      examples: [{ intent: 'name of user u1', expect: 'Ada Lovelace' }],
    });
    await nav('Runs');
    await page.locator('.filters').getByRole('button', { name: 'Clear' }).click();
    const total = page.getByTestId('runs-total');
    await expect.poll(() => total.innerText()).toMatch(/^\d+ runs?$/);
    const before = Number.parseInt(await total.innerText(), 10);
    const runs = (n: number) => (n === 1 ? '1 run' : `${n} runs`);

    // Test the template in the Templates view: its example runs in the sandbox.
    await nav('Templates');
    const row = page.locator('tr[data-template="user-name-check"]');
    await row.getByRole('button', { name: 'Test' }).click();
    const results = page.getByTestId('template-test-results');
    await results.waitFor({ timeout: 60_000 });
    expect(await results.getAttribute('data-passed')).toBe('true');

    // The run list does not show it, nor count it, even when searched for.
    await nav('Runs');
    await expect.poll(() => total.innerText()).toBe(runs(before));
    await page.getByLabel('search runs').fill('template test user-name-check');
    await expect.poll(() => total.innerText()).toBe('0 runs matching');
    expect(await page.getByText('No run matches these filters.').count()).toBe(1);

    // The filter shows it, marked as a template test, and the totals count it.
    const filter = page.locator('label[data-filter="template-tests"]');
    await filter.click();
    expect(await page.getByLabel('show template tests').isChecked()).toBe(true);
    await expect.poll(() => total.innerText()).toBe('1 run matching');
    const shown = page.locator('.run-row[data-run-id]');
    await expect.poll(() => shown.count()).toBe(1);
    // Its badge says "template test" once; it was served by the template, with no LLM.
    const task = await shown.first().locator('.c-task').innerText();
    expect(task).toContain('user-name-check: name of user u1');
    expect(task).not.toContain('template test template test');
    expect(await shown.first().locator('.c-tier').innerText()).toBe('template');
    expect(await shown.first().locator('.c-model').innerText()).toBe('no LLM');
    expect(await shown.first().locator('[data-kind="template_test"]').innerText()).toBe('template test');
    await w.screenshot('runs-template-tests');
    await page.getByLabel('search runs').fill('');
    await expect.poll(() => total.innerText()).toBe(`${runs(before + 1)} matching`);
    await filter.click();
    await expect.poll(() => total.innerText()).toBe(runs(before));
    // The chip is a real checkbox: reachable by keyboard, Space toggles it.
    await page.getByLabel('show template tests').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => total.innerText()).toBe(`${runs(before + 1)} matching`);
    await page.keyboard.press('Space');
    await expect.poll(() => total.innerText()).toBe(runs(before));
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  }, 120_000);
  it("with a vertical scrollbar that takes room, the header's columns stay over the rows' and the list does not scroll sideways at 1280 px (1280x800, 1000x700, 1440x900)", async () => {
    // Enough runs that the list scrolls down; classic scrollbars (15 px), as on a person's desktop.
    seedManyRuns((await w.svc.runs()).store, 60);
    const browser = await launchChromium({ scrollbars: true });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
      page.setDefaultTimeout(POLL_MS);
      await page.goto(w.web.url.split('#')[0] + '#/runs');
      await page.locator('.run-row[data-run-id]').first().waitFor();
      const scroll = page.getByTestId('run-scroll');
      /** Each header cell's right edge minus that of the same cell of the first row shown whole. */
      const offsets = () =>
        page.evaluate(`(() => {
          const scroll = document.querySelector('[data-testid="run-scroll"]');
          const head = document.querySelector('.run-row.head');
          const top = head.getBoundingClientRect().bottom;
          const row = [...document.querySelectorAll('.run-row[data-run-id]')]
            .filter((r) => r.getBoundingClientRect().top >= top - 1)
            .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0];
          const rights = (r) => [...r.children].map((c) => Math.round(c.getBoundingClientRect().right));
          const r = rights(row);
          return {
            scrollbar: scroll.offsetWidth - scroll.clientWidth > 0,
            // How far the list scrolls sideways: at 1280 px not at all (it did by 18 px beside a
            // vertical scrollbar); at 1000 px it does, to show every column whole.
            sideways: scroll.scrollWidth - scroll.clientWidth,
            offsets: rights(head).map((x, i) => x - r[i]),
            // The header is at the top of the list, not scrolled away with the rows.
            headAtTop: Math.abs(head.getBoundingClientRect().top - scroll.getBoundingClientRect().top) < 2,
          };
        })()`);
      const aligned = { scrollbar: true, offsets: Array(10).fill(0), headAtTop: true };
      for (const [width, height] of [
        [1280, 800],
        [1000, 700],
        [1440, 900],
      ] as const) {
        await page.setViewportSize({ width, height });
        await scroll.evaluate((e) => e.scrollTo(0, 0));
        const sideways = width === 1000 ? expect.any(Number) : 0;
        await expect.poll(offsets).toEqual({ ...aligned, sideways });
        // Scrolled down and to the right end (the 1000 px list scrolls sideways): still over each other.
        await scroll.evaluate((e) => e.scrollTo(e.scrollWidth, 400));
        await expect.poll(offsets).toEqual({ ...aligned, sideways });
        await page.screenshot({ path: join(SCREENSHOTS, `runs-scrollbar-${width}.png`) });
      }
    } finally {
      await browser.close();
    }
  });

  it('a sandbox with its kit shows whole in the sandbox column at 1280x800 (classic scrollbars), on two lines, without a sideways scroll', async () => {
    const { store } = await w.svc.runs();
    const spec = {
      mode: 'plan',
      language: 'python',
      maxRetries: 3,
      maxSteps: 8,
      provider: 'openai',
      model: 'm',
    };
    const ids = [
      store.createRun({ ...spec, task: 'kit column one', sandbox: 'ecommerce', kit: 'inventory' } as never),
      store.createRun({ ...spec, task: 'kit column two', sandbox: 'support', kit: 'helpdesk' } as never),
    ];
    const browser = await launchChromium({ scrollbars: true });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
      page.setDefaultTimeout(POLL_MS);
      await page.goto(w.web.url.split('#')[0] + '#/runs');
      const cell = (id: string) => page.locator(`.run-row[data-run-id="${id}"] .c-sandbox`);
      await cell(ids[0]!).waitFor();
      const shown = (id: string) =>
        cell(id).evaluate((e) => {
          const row = e.parentElement!.getBoundingClientRect();
          const box = e.getBoundingClientRect();
          return {
            text: (e as unknown as { innerText: string }).innerText.replace(/\n/g, ''),
            title: e.getAttribute('title'),
            // Nothing of it cut: all its text inside the cell, the cell inside its row.
            whole: e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight + 1,
            inRow: box.top >= row.top - 1 && box.bottom <= row.bottom + 1,
          };
        });
      expect(await shown(ids[0]!)).toEqual({
        text: 'ecommerce/inventory',
        title: 'ecommerce/inventory',
        whole: true,
        inRow: true,
      });
      expect(await shown(ids[1]!)).toEqual({
        text: 'support/helpdesk',
        title: 'support/helpdesk',
        whole: true,
        inRow: true,
      });
      const scroll = page.getByTestId('run-scroll');
      expect(await scroll.evaluate((e) => e.scrollWidth - e.clientWidth)).toBe(0);
      await page.screenshot({ path: join(SCREENSHOTS, 'runs-sandbox-kit-1280.png') });
    } finally {
      await browser.close();
      // (running runs that never end: the next tests' lists and filters do not want them)
      for (const id of ids) store.delete(id);
    }
  });

  it('a narrow window (1000x700): the list scrolls sideways with its header, every column whole', async () => {
    const { page } = w;
    seedManyRuns((await w.svc.runs()).store, 3);
    const size = page.viewportSize();
    await page.setViewportSize({ width: 1000, height: 700 });
    try {
      await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Runs' }).click();
      const row = page.locator('.run-row[data-run-id]').first();
      await row.waitFor();
      const scroll = page.getByTestId('run-scroll');
      // The columns need more than the list's width: it scrolls sideways to the start date.
      await scroll.evaluate((e) => {
        e.scrollLeft = e.scrollWidth;
      });
      const head = page.locator('.run-row.head');
      const x = async (l: typeof row) => (await l.boundingBox())!.x;
      // The header followed (it used to stay put: "started" over nothing, the rows' columns under others).
      await expect
        .poll(async () => Math.abs((await x(head.locator('.c-time'))) - (await x(row.locator('.c-time')))))
        .toBeLessThan(2);
      expect(Math.abs((await x(head.locator('.c-model'))) - (await x(row.locator('.c-model'))))).toBeLessThan(
        2,
      );
      const list = (await scroll.boundingBox())!;
      const time = (await row.locator('.c-time').boundingBox())!;
      expect(time.x + time.width).toBeLessThanOrEqual(list.x + list.width);
      expect(await row.locator('.c-time').innerText()).toMatch(/\d{4}/);
      // The row (its border and hover) reaches under the last column, not just the list's width.
      const box = (await row.boundingBox())!;
      expect(box.x + box.width).toBeGreaterThanOrEqual(time.x + time.width);
      await w.screenshot('runs-narrow');
    } finally {
      if (size) await page.setViewportSize(size);
    }
  });
  it("keys typed with no delay right after a click into a run's script all land, in order, where they were typed", async () => {
    const { page } = w;
    const run = await (
      await w.svc.runs()
    ).runScript({
      sandbox: 'ecommerce',
      task: 'the name of user u1',
      body: 'emit_result(get_user(user_id="u1").data["name"])\n',
    });
    expect(run.status).toBe('succeeded');
    const script = page.locator('[data-testid="editor-script"]');
    const text = async () => (await script.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
    // Each round a fresh page, then keys at once (they came out scrambled at the top of the script: an
    // older render's text was written back into the editor after newer keys, the cursor sent to line 1).
    for (let round = 1; round <= 3; round++) {
      await page.goto(`${w.web.url.split('#')[0]}#/run/${run.runId}`);
      await page.reload();
      await expect.poll(() => script.getAttribute('data-ready'), { timeout: 60_000 }).toBe('true');
      await script.locator('.view-lines').click({ position: { x: 400, y: 8 } });
      await page.keyboard.press('End');
      const typed = ` # round ${round}: abcdefghijklmnopqrstuvwxyz 0123456789`;
      await page.keyboard.type(typed, { delay: 0 });
      await expect.poll(text).toContain(`emit_result(get_user(user_id="u1").data["name"])${typed}`);
      await page.getByRole('button', { name: 'Reset', exact: true }).click();
      await expect.poll(text).not.toContain('# round');
    }
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});

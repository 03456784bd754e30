/**
 * The workbench for keyboard users and small screens (Chromium, browser front end, scripted LLM server,
 * real container): `g n` and the keyboard help; job 2 (run, inspect, edit, Continue, Replay, Diff) walked
 * by keyboard alone, Tab leaving a read-only editor and the way out of an editable one shown; the runs
 * table and the Tools view at 1280x800; and screenshots of the main screens at 1280x800 and 1920x1080 in
 * both themes (test-results/screenshots/screens-*.png). An address changed while the page loads is the view
 * shown.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fence, startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { POLL_MS } from '../support/budgets.ts';

let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});
beforeEach(() => w.llm.reset());

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 60_000 });
const status = () => w.page.locator('.run-detail').getAttribute('data-run-status');
const currentRunId = () => decodeURIComponent(w.page.url().split('#/run/')[1]?.split('?')[0] ?? '');

/** What has the focus: its tag, role, accessible text, and the editor (data-testid) it is inside, if any. */
const focused = () =>
  w.page.evaluate<{ tag: string; role: string; text: string; editor: string }>(`(() => {
    const el = document.activeElement;
    if (!el) return { tag: '', role: '', text: '', editor: '' };
    const editor = el.closest('[data-testid^="editor-"], [data-testid^="diff-"]');
    return {
      tag: el.tagName.toLowerCase(),
      role: el.getAttribute('role') || '',
      text: (el.getAttribute('aria-label') || (el.labels && el.labels[0] ? el.labels[0].textContent : '') || el.textContent || '').trim(),
      editor: editor ? editor.getAttribute('data-testid') : '',
    };
  })()`);

/** Presses `key` (Tab or Shift+Tab) until the focus is where `want` says; fails after `max` presses. */
async function tabTo(
  want: (f: { tag: string; role: string; text: string; editor: string }) => boolean,
  key: 'Tab' | 'Shift+Tab' = 'Tab',
  max = 80,
): Promise<void> {
  for (let i = 0; i < max; i++) {
    const f = await focused();
    if (want(f)) return;
    // Passing through an editable editor whose Tab indents: Ctrl+M first (the way out its note shows).
    const hint = w.page.getByTestId('editor-tab-hint');
    if (
      f.editor.startsWith('editor-') &&
      (await hint.count()) &&
      (await hint.innerText()).startsWith('Tab indents')
    )
      await w.page.keyboard.press('Control+M');
    await w.page.keyboard.press(key);
  }
  throw new Error(`${key} never reached the element (focus: ${JSON.stringify(await focused())})`);
}
/**
 * The `g` chord (`g` then `key`) pressed 50 ms apart, as the browser records it: each key event carries
 * the time it was pressed (Input.dispatchKeyEvent's `timestamp`), and the workbench times the chord by
 * its events' times. Two `keyboard.press` calls of a loaded test process reached the browser more than
 * the chord's one second apart, and `n` then fell outside it.
 */
async function chord(key: string): Promise<void> {
  const cdp = await w.page.context().newCDPSession(w.page);
  const at = Date.now() / 1000;
  for (const [k, t] of [
    ['g', at],
    [key, at + 0.05],
  ] as const) {
    const code = `Key${k.toUpperCase()}`;
    const windowsVirtualKeyCode = k.toUpperCase().charCodeAt(0);
    await cdp.send('Input.dispatchKeyEvent', {
      type: 'keyDown',
      key: k,
      code,
      text: k,
      windowsVirtualKeyCode,
      timestamp: t,
    });
    await cdp.send('Input.dispatchKeyEvent', {
      type: 'keyUp',
      key: k,
      code,
      windowsVirtualKeyCode,
      timestamp: t + 0.02,
    });
  }
  await cdp.detach();
}

const button = (name: string) => (f: { tag: string; text: string }) => f.tag === 'button' && f.text === name;

describe('the address', () => {
  it('an address changed while the page loads, before the app listens for it, is the view shown', async () => {
    // The store reads the route from the address when it is made; the app listens for changes once it is
    // mounted. The address moves in between here (a link or a typed URL while the page loads; on a busy
    // machine, a test's goto right after the load): the change made no event anyone heard.
    const page = await w.browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(POLL_MS);
    try {
      await page.addInitScript(`(() => {
        const add = window.addEventListener.bind(window);
        let moved = false;
        window.addEventListener = (type, ...rest) => {
          if (type === 'popstate' && !moved) {
            moved = true;
            history.replaceState(null, '', '#/connections');
          }
          return add(type, ...rest);
        };
      })()`);
      await page.goto(w.web.url.split('#')[0]!);
      await page.locator('section[aria-label="connections"]').waitFor();
      expect(page.url()).toContain('#/connections');
    } finally {
      await page.close();
    }
  });
});

describe('the keyboard', () => {
  it('`g n` opens New run with an empty, focused Task; `?` lists every shortcut', async () => {
    const { page } = w;
    await page.locator('[data-testid="runs-total"]').waitFor();
    await page.locator('body').click({ position: { x: 600, y: 10 } });
    await chord('n');
    const task = page.getByLabel('task');
    await task.waitFor();
    await poll(async () => (await focused()).tag).toBe('textarea');
    expect(await task.inputValue()).toBe('');

    await page.keyboard.press('Escape');
    await page.locator('body').click({ position: { x: 600, y: 10 } });
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'keyboard shortcuts' });
    await help.waitFor();
    const text = await help.innerText();
    for (const want of ['Ctrl+M', 'Alt+↓', 'go to Suites', 'leaves a read-only editor', 'indents'])
      expect(text).toContain(want);
    await w.screenshot('keyboard-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
  });

  it('job 2 by keyboard alone: run, inspect, edit, Continue, Replay, Diff', async () => {
    const { page, llm } = w;
    const wrong = fence('r = get_user(user_id="u1")\nemit_result(r.data[0])');
    llm.push(wrong, wrong);

    // Run: from the run list, g n, type the task, fewer retries, skip templates, Ctrl+Enter.
    await page.evaluate(`location.hash = '#/runs'`);
    await page.locator('[data-testid="runs-total"]').waitFor();
    await page.locator('body').click({ position: { x: 600, y: 10 } });
    await chord('n');
    await poll(async () => (await focused()).tag).toBe('textarea');
    await page.keyboard.type('Email of user u1, by keyboard');
    await tabTo((f) => f.text === 'Max retries');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('1');
    await tabTo((f) => f.tag === 'input' && f.text.startsWith('skip templates and rules'));
    await page.keyboard.press('Space');
    expect(await page.getByLabel('skip templates and rules (always ask the LLM)').isChecked()).toBe(true);
    await page.keyboard.press('Control+Enter');
    await poll(status).toBe('failed');
    const original = currentRunId();

    // Inspect: k/j move between attempts (outside text fields).
    await page.keyboard.press('k');
    await poll(() => page.locator('.tl-item[data-attempt="1"]').getAttribute('aria-current')).toBe('step');
    await page.keyboard.press('j');
    await poll(() => page.locator('.tl-item[data-attempt="2"]').getAttribute('aria-current')).toBe('step');
    await page.keyboard.press('k');
    await poll(() => page.locator('.tl-item[data-attempt="1"]').getAttribute('aria-current')).toBe('step');

    // Edit: Tab into the script's editor; it shows the way out while it has the focus.
    await tabTo((f) => f.editor === 'editor-script');
    const hint = page.getByTestId('editor-tab-hint');
    await hint.waitFor();
    expect(await hint.innerText()).toMatch(/Tab indents · Ctrl\s*\+\s*M: Tab leaves the editor/);
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('r = get_user(user_id="u1")\nemit_result(r.data["nope"])\n');
    // (the editor's change reaches the toolbar in a render of its own, after the key events returned)
    await poll(() => page.locator('.editor-toolbar').innerText()).toContain('edited');
    await w.screenshot('keyboard-editor-hint');
    // Ctrl+M: Tab now leaves the editor (Shift+Tab goes back to the toolbar).
    await page.keyboard.press('Control+M');
    await poll(() => hint.innerText()).toMatch(/Tab leaves the editor · Ctrl\s*\+\s*M: Tab indents/);
    await page.keyboard.press('Shift+Tab');
    expect((await focused()).editor).toBe('');

    // Continue from here: the edited script fails, the LLM fixes it.
    llm.push(fence('r = get_user(user_id="u1")\nemit_result(r.data["email"])'));
    const before = llm.requests.length;
    await tabTo(button('Continue from here'), 'Shift+Tab');
    await page.keyboard.press('Enter');
    await poll(currentRunId).not.toBe(original);
    await poll(status).toBe('succeeded');
    expect(llm.requests.length).toBe(before + 1);
    const continued = currentRunId();

    // Diff: the LLM's fix (attempt 2) against the edited script (attempt 1), by the Diff tab.
    await poll(() => page.locator('.timeline .tl-item').count()).toBe(2);
    await tabTo(button('Replay'));
    await page.keyboard.press('j');
    await poll(() => page.locator('.tl-item[data-attempt="2"]').getAttribute('aria-current')).toBe('step');
    // The attempt's tabs are one stop of the Tab order (the selected tab); End goes to the last, Diff, and
    // the selection follows the focus (WAI-ARIA tabs).
    await tabTo((f) => f.role === 'tab');
    await page.keyboard.press('End');
    expect((await focused()).text).toBe('Diff');
    const diff = page.getByTestId('diff-attempts');
    await diff.waitFor();
    await poll(() => diff.locator('.view-line').count()).toBeGreaterThan(0);
    // A read-only editor is passed with Tab like any other part of the page.
    await tabTo((f) => f.editor === 'diff-attempts');
    // (its two sides, then out)
    await tabTo((f) => f.editor === '', 'Tab', 3);
    await w.screenshot('keyboard-diff');

    // Replay: the recorded LLM outputs, no LLM call.
    await tabTo(button('Replay'), 'Shift+Tab');
    await page.keyboard.press('Enter');
    await poll(currentRunId).not.toBe(continued);
    await poll(status).toMatch(/^(succeeded|failed)$/);
    expect(llm.requests.length).toBe(before + 1);
    // It names the run it replays.
    expect(await page.locator('.run-detail .meta-line').first().innerText()).toMatch(
      new RegExp(`\\w+ of ${continued.slice(0, 8)}`),
    );

    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});

describe('small screens', () => {
  it('runs table at 1280x800: the start date shows whole, the task gets the room', async () => {
    const { page } = w;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(`location.hash = '#/runs'`);
    const row = page.locator('.run-row[data-run-id]').first();
    await row.waitFor();
    const fits = await page.evaluate(`(() => {
      const head = document.querySelector('.run-row.head');
      const scroll = document.querySelector('[data-testid="run-scroll"]');
      const cells = [...document.querySelectorAll('.run-row[data-run-id] > span, .run-row.head > span')];
      const right = scroll.getBoundingClientRect().right;
      const started = [...document.querySelectorAll('.run-row[data-run-id] .c-time')];
      return {
        overflowRight: cells.filter((c) => c.getBoundingClientRect().right > right + 1).length,
        startedCut: started.filter((c) => c.scrollWidth > c.clientWidth).length,
        // Every column's header shows whole ("attempts" was cut to "attempt").
        headCut: [...head.querySelectorAll(':scope > span, :scope > span *')]
          .filter((c) => c.scrollWidth > c.clientWidth)
          .map((c) => c.textContent),
        task: document.querySelector('.run-row[data-run-id] .c-task').getBoundingClientRect().width,
        model: document.querySelector('.run-row[data-run-id] .c-model').getBoundingClientRect().width,
        scrollsSideways: scroll.scrollWidth > scroll.clientWidth,
        head: !!head,
        // The widest dates of the year in this locale (en-US, lib/dates.ts's options), not just today's.
        widestCut: (() => {
          const cell = started[0];
          const was = cell.textContent;
          const f = new Intl.DateTimeFormat('en-US', {
            year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit',
          });
          const cut = [];
          for (let m = 0; m < 12; m++)
            for (const h of [10, 12, 22]) {
              cell.textContent = f.format(new Date(2026, m, 28, h, 58));
              if (cell.scrollWidth > cell.clientWidth) cut.push(cell.textContent);
            }
          cell.textContent = was;
          return cut;
        })(),
      };
    })()`);
    expect(fits).toMatchObject({
      overflowRight: 0,
      startedCut: 0,
      headCut: [],
      widestCut: [],
      scrollsSideways: false,
      head: true,
    });
    const f = fits as { task: number; model: number };
    // (its least width, 240 px since 2026-12-06: 260 made the rows 12 px wider than the list beside a
    // classic scrollbar, runs.e2e.ts "vertical scrollbar")
    expect(f.task).toBeGreaterThanOrEqual(240);
    expect(f.task).toBeGreaterThan(2 * f.model);
  });

  it('Tools at 1280x800: Try tool is in view beside the editor; wrapped lines keep numbers whole', async () => {
    const { page } = w;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(`location.hash = '#/tools/ecommerce'`);
    const editor = page.locator('[data-testid="editor-tools.py"]');
    await editor.locator('.view-line').first().waitFor();
    const tryHead = page.getByRole('heading', { name: 'Try tool' });
    const box = await tryHead.boundingBox();
    expect(box && box.y + box.height).toBeLessThanOrEqual(800);
    const ed = await editor.boundingBox();
    expect(box && ed && box.x).toBeGreaterThan((ed?.x ?? 0) + (ed?.width ?? 0) - 1);

    // A long line of decimals wraps between the numbers, never inside one.
    const numbers = Array.from({ length: 40 }, (_, i) => `${1000 + i}.${250 + i}`).join(', ');
    await editor.locator('.monaco-editor').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText(`\nPRICES = [${numbers}]\n`);
    const viewLines = () =>
      editor.locator('.view-line').evaluateAll((els) =>
        els
          .map((e) => {
            const el = e as unknown as { style: { top: string }; innerText: string };
            return [parseFloat(el.style.top), el.innerText.replace(/\u00a0/g, ' ')] as const;
          })
          .sort((a, b) => a[0] - b[0])
          .map((x) => x[1]),
      );
    /** The inserted line as drawn: its wrapped pieces, from `PRICES = [` to the one ending in `]`. */
    const drawn = async () => {
      const lines = await viewLines();
      const start = lines.findIndex((l) => l.startsWith('PRICES = ['));
      const end = lines.findIndex((l, i) => start >= 0 && i >= start && l.trimEnd().endsWith(']'));
      return start >= 0 && end >= start ? lines.slice(start, end + 1) : [];
    };
    // Polled: Monaco draws the new text in an animation frame after the input, not during it.
    await poll(async () => (await drawn()).length).toBeGreaterThan(1);
    const wrapped = await drawn();
    for (let i = 1; i < wrapped.length; i++) {
      const prev = wrapped[i - 1]!.trimEnd();
      const next = wrapped[i]!.trimStart();
      expect(`${prev} | ${next}`).not.toMatch(/[\d.] \| [\d.]/);
    }
    await page.keyboard.press('Control+Z');
  });
});

describe('suites from the Suites view', () => {
  it("create a suite, add a run's task to it from the run, delete it", async () => {
    const { page } = w;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(`location.hash = '#/suites'`);
    await page.getByRole('button', { name: 'New suite' }).click();
    const form = page.getByRole('form', { name: 'new suite' });
    await form.getByLabel('name').fill('from-ui');
    await form.getByLabel('sandbox').selectOption('ecommerce');
    await form.getByLabel('first case’s task').fill('Name of user u1?');
    await w.screenshot('suites-new');
    await form.getByRole('button', { name: 'Create suite' }).click();
    const file = join(w.workspace, 'suites', 'from-ui.toml');
    await poll(() => existsSync(file)).toBe(true);
    await page.locator('.suite-detail h2', { hasText: 'from-ui' }).waitFor();
    expect(await page.locator('.suite-list').innerText()).toMatch(/from-ui\s+1 cases/);

    // From a run of the same sandbox: its task becomes a case.
    await page.evaluate(`location.hash = '#/runs'`);
    const runId = await page.locator('.run-row[data-run-id]').first().getAttribute('data-run-id');
    expect(runId).toBeTruthy();
    await page.evaluate(`location.hash = '#/run/${runId}'`);
    const add = page.getByRole('group', { name: 'add to suite' });
    await add.getByLabel('suite to add this task to').selectOption('from-ui');
    await add.getByRole('button', { name: 'Add to suite' }).click();
    await add.getByRole('status').waitFor();
    expect(await add.getByRole('status').innerText()).toMatch(/added as from-ui\//);
    await w.screenshot('run-add-to-suite');
    expect(readFileSync(file, 'utf8').match(/\[\[cases\]\]/g)).toHaveLength(2);

    // Delete it from the Suites view.
    await add.getByRole('status').getByRole('button').click();
    await page.locator('.suite-detail h2', { hasText: 'from-ui' }).waitFor();
    await page.locator('.suite-detail').getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete suite' }).click();
    await poll(() => existsSync(file)).toBe(false);
    await poll(() => page.locator('.suite-list').innerText()).not.toContain('from-ui');
  });
});

describe('screenshots of the main screens', () => {
  it('1280x800 and 1920x1080, light and dark', async () => {
    const { page } = w;
    await page.evaluate(`location.hash = '#/runs'`);
    const runId = (await page.locator('.run-row[data-run-id]').first().getAttribute('data-run-id')) ?? '';
    const screens: [string, string][] = [
      ['runs', '#/runs'],
      ['run', `#/run/${runId}`],
      ['new', '#/new'],
      ['tools', '#/tools/ecommerce'],
      ['templates', '#/templates'],
      ['suites', '#/suites/ecommerce'],
      ['settings', '#/settings'],
      ['connections', '#/connections'],
    ];
    const themeIs = async () =>
      (await page.locator('.app').getAttribute('class'))?.includes('theme-dark') ? 'dark' : 'light';
    for (const theme of ['light', 'dark'] as const) {
      if ((await themeIs()) !== theme) await page.getByRole('button', { name: 'toggle theme' }).click();
      for (const [width, height] of [
        [1280, 800],
        [1920, 1080],
      ] as const) {
        await page.setViewportSize({ width, height });
        for (const [name, hash] of screens) {
          await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
          await page.locator('main').first().waitFor();
          await page.waitForLoadState('networkidle').catch(() => {});
          await w.screenshot(`screens-${name}-${width}x${height}-${theme}`);
        }
      }
    }
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});

/**
 * Issue 10's workbench bugs in Chromium against the browser front end, the scripted LLM server and a real
 * sandbox container: a script redone within an attempt shows its markers, the attempt diff reads
 * earlier -> later with labels, a traceback frame inside tools.py opens the Tools view at that line, a
 * cancelled attempt reads "cancelled", the run says why no template matched, the run list sorts on the
 * server and shows dates and the full task, and the Tools editor is wide and wraps.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fence, startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { POLL_MS } from '../support/budgets.ts';

let w: E2eWorld;
let brokenLine = 0;

beforeAll(async () => {
  w = await startWorld();
  // A tool that raises inside a helper, before any pool has loaded tools.py.
  const tools = join(w.workspace, 'sandboxes/ecommerce/tools.py');
  appendFileSync(
    tools,
    `

def _lookup(table, key):
    return table[key]


@tool(grade=(0, 0))
def broken(key: str) -> ToolResponse:
    """A tool that raises.

    Args:
        key: Any key.
    """
    return ToolResponse(success=True, data=_lookup({}, key))
`,
  );
  brokenLine =
    readFileSync(tools, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('return table[key]')) + 1;
});
afterAll(async () => {
  await w?.close();
});

async function startRun(task: string, opts: { skipTemplates?: boolean; retries?: number } = {}) {
  const { page } = w;
  await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'New run' }).click();
  await page.getByLabel('task').fill(task);
  await page.getByLabel('sandbox', { exact: true }).selectOption('ecommerce');
  if (opts.retries !== undefined) await page.getByLabel('max retries').fill(String(opts.retries));
  if (opts.skipTemplates !== false) await page.getByText('skip templates and rules').click();
  await page.getByRole('button', { name: 'Start run' }).click();
}
const status = () => w.page.locator('.run-detail').getAttribute('data-run-status');

describe('run view', () => {
  it('a redone script has markers; the diff is labelled earlier -> later; a tools.py frame opens tools.py', async () => {
    const { page, llm } = w;
    llm.push(
      fence('import os\nemit_result(os.getcwd())'), // attempt 1, rejected
      fence('r = broken(key="x")\nemit_result(r.data)'), // attempt 1, corrected: raises in tools.py
      fence('r = get_user(user_id="u1")\nemit_result(r.data["name"])'), // attempt 2
    );
    await startRun('Name of user u1 through a broken tool', { retries: 2 });
    await expect.poll(status, { timeout: 90_000 }).toBe('succeeded');

    // Attempt 1: the rejected candidate in its own editor, with markers.
    await page.locator('.tl-item[data-attempt="1"]').click();
    await page.locator('summary', { hasText: 'Rejected candidates' }).click();
    const rejected = page.locator('[data-testid="editor-rejected-1"]');
    await rejected.locator('.squiggly-error').first().waitFor();
    expect(await rejected.locator('.squiggly-error').count()).toBeGreaterThan(0);
    await w.screenshot('bugs-rejected-markers');

    // Diff from attempt 1: attempt 1 on the left (before), attempt 2 on the right (after).
    await page.getByRole('tab', { name: 'Diff' }).click();
    await page.locator('[data-testid="diff-attempts"] .monaco-diff-editor').waitFor();
    expect(await page.getByTestId('diff-original-label').innerText()).toBe('attempt 1 (before)');
    expect(await page.getByTestId('diff-modified-label').innerText()).toBe('attempt 2 (after)');
    await expect
      .poll(() =>
        page
          .locator(
            '[data-testid="diff-attempts"] .modified .line-insert, [data-testid="diff-attempts"] .modified .char-insert',
          )
          .count(),
      )
      .toBeGreaterThan(0);
    await w.screenshot('bugs-diff-labels');
    expect(await page.getByTestId('diff-labels').getAttribute('data-layout')).toBe('side-by-side');
    // A narrow window: Monaco shows one inline view, and the labels no longer say left and right but
    // whose lines are which (they read "attempt 1 (before)" on the left over a view with no left side).
    const size = page.viewportSize();
    await page.setViewportSize({ width: 1000, height: 700 });
    try {
      await expect
        .poll(() => page.getByTestId('diff-attempts').getAttribute('data-layout'), { timeout: POLL_MS })
        .toBe('inline');
      expect(
        await page.locator('[data-testid="diff-attempts"] .monaco-diff-editor.side-by-side').count(),
      ).toBe(0);
      await expect
        .poll(() => page.getByTestId('diff-original-label').innerText())
        .toBe('attempt 1 (before): the lines marked −');
      expect(await page.getByTestId('diff-modified-label').innerText()).toBe(
        'attempt 2 (after): the lines marked +',
      );
      expect(await page.getByTestId('diff-labels').getAttribute('data-layout')).toBe('inline');
      await w.screenshot('bugs-diff-labels-inline');
    } finally {
      if (size) await page.setViewportSize(size);
    }
    // Wide again: two sides, labelled left and right.
    await expect
      .poll(() => page.getByTestId('diff-original-label').innerText(), { timeout: POLL_MS })
      .toBe('attempt 1 (before)');

    // The traceback names the tool's frames in tools.py; one click opens it at that line.
    const tb = page.getByRole('region', { name: 'traceback' });
    await expect.poll(() => tb.innerText()).toContain('KeyError');
    const frame = tb.locator(`[data-frame-file="tools.py"][data-frame-line="${brokenLine}"]`);
    expect(await frame.innerText()).toBe(`tools.py line ${brokenLine}, in _lookup`);
    await frame.click();
    await expect.poll(() => page.locator('section.tools-view').count()).toBe(1);
    await expect
      .poll(() => page.locator('[data-testid="editor-tools.py"]').getAttribute('data-cursor-line'), {
        timeout: POLL_MS,
      })
      .toBe(String(brokenLine));
    expect(page.url()).toContain(`#/tools/ecommerce?line=${brokenLine}`);
    await w.screenshot('bugs-tools-frame');
  });

  it('a cancelled attempt reads "cancelled"', async () => {
    const { page, llm } = w;
    llm.push(fence('x = 0\nfor i in range(10**10):\n    x += i\nemit_result(x)'));
    await startRun('Count for a very long time', { retries: 0 });
    await page.locator('.tl-item[data-attempt="1"]').waitFor({ timeout: 60_000 });
    await expect
      .poll(() => page.locator('.tl-item[data-attempt="1"] .tl-outcome').innerText())
      .toBe('in progress');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(status, { timeout: 60_000 }).toBe('cancelled');
    await expect
      .poll(() => page.locator('.tl-item[data-attempt="1"] .tl-outcome').innerText())
      .toBe('cancelled');
    expect(await page.locator('.timeline').innerText()).not.toContain('runtime error');
    await w.screenshot('bugs-cancelled');
  });

  it('a run says why no template matched', async () => {
    const { page, llm } = w;
    (await w.svc.templates()).files.write({
      name: 'user-name',
      pattern: 'What is the name of user {user_id}?',
      slots: { user_id: 'str' },
      sandbox: 'ecommerce',
      language: 'python',
      body: 'r = get_user(user_id={{user_id}})\nemit_result(r.data["name"])\n',
      examples: [],
    });
    llm.push(fence('r = get_user(user_id="u1")\nemit_result(r.data["email"])'));
    await startRun('What is the email of user u1?', { skipTemplates: false, retries: 0 });
    await expect.poll(status, { timeout: 60_000 }).not.toBe('running');
    const miss = page.getByTestId('template-miss');
    await expect
      .poll(() => miss.innerText())
      .toMatch(/nearest template user-name .* differs at character 13/);
    await w.screenshot('bugs-template-miss');
  });
});

describe('run list and Tools editor', () => {
  it('columns sort on the server; dates and the full task show', async () => {
    const { page } = w;
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Runs' }).click();
    await expect.poll(() => page.locator('.run-row[data-run-id]').count()).toBe(3);
    const tasks = () => page.locator('.run-row[data-run-id] .c-task').allInnerTexts();
    // Newest first by default.
    expect((await tasks())[0]).toContain('What is the email of user u1?');
    await page.locator('[data-sort="task"]').click();
    await expect
      .poll(async () => (await tasks()).map((t) => t.replace(/^↳\s*/, '').slice(0, 12)))
      .toEqual(['Count for a ', 'Name of user', 'What is the ']);
    expect(
      await page.locator('[role="columnheader"]:has([data-sort="task"])').getAttribute('aria-sort'),
    ).toBe('ascending');
    await page.locator('[data-sort="task"]').click();
    await expect.poll(async () => (await tasks())[0]).toContain('What is the email');
    await page.locator('[data-sort="tokens"]').click();
    await expect
      .poll(() => page.locator('[role="columnheader"]:has([data-sort="tokens"])').getAttribute('aria-sort'))
      .toBe('descending');
    // Dates: always with the date, in the browser's locale (en-US here), the same format as the run view.
    expect(await page.locator('.run-row[data-run-id] .c-time').first().innerText()).toMatch(
      /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d\s?[AP]M$/,
    );
    const long = page.locator('.run-row[data-run-id] .c-task', { hasText: 'Name of user u1' });
    expect(await long.getAttribute('title')).toContain('Name of user u1 through a broken tool');
    await w.screenshot('bugs-runs-sorted');
  });

  it('the Tools editor takes most of the width and wraps long lines', async () => {
    const { page } = w;
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Tools' }).click();
    const editor = page.locator('[data-testid="editor-tools.py"]');
    await editor.waitFor();
    expect(await editor.getAttribute('data-word-wrap')).toBe('on');
    const box = await editor.boundingBox();
    // The editor's share of the sandbox pane (beside the metadata): ~0.53 before, ~0.65 now.
    const main = await page.locator('.tools-main').boundingBox();
    expect(box && main && box.width / main.width).toBeGreaterThan(0.6);
    await w.screenshot('bugs-tools-editor');
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});

/**
 * The Tools view in Chromium against the real service and a real sandbox container: the sandbox's
 * tools and their parameters, live extraction while typing in Monaco (parameters, XML prompt,
 * problems), saving with Ctrl+S (tools.list and the registry follow), and "Try tool": a generated form
 * whose required fields and types are checked before the call runs in Docker.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIResponse, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLL_MS } from '../support/budgets.ts';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';

let w: E2eWorld;

beforeAll(async () => {
  // The service follows hand edits of the workspace's files, as `serve` and the desktop app do: the
  // view's own saves come back as changes on disk too.
  w = await startWorld(undefined, { watch: true });
});
afterAll(async () => {
  await w?.close();
});

const MEASURE = `

@tool(grade=(0, 0), options={"unit": ["cm", "in"]}, examples={"size": [10, 25]})
def measure(size: int, unit: str = "cm") -> ToolResponse:
    """Echo a size with its unit.

    Args:
        size: How long the thing is.
        unit: The unit of the size.
    """
    return ToolResponse(success=True, data={"size": size, "unit": unit, "double": size * 2})
`;

/** Runs in the page: pastes text into the focused element (Monaco's input) through a paste event. */
const PASTE = `(text) => {
  const data = new DataTransfer();
  data.setData('text/plain', text);
  document.activeElement.dispatchEvent(
    new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
  );
}`;

/**
 * The Tools view on ecommerce, its editor following tools.py as the tests before left it (its first line
 * at the top) with nothing unsaved: a change on disk still on its way would replace what a test types.
 */
async function openClean() {
  const { page } = w;
  const toolsFile = join(w.workspace, 'sandboxes', 'ecommerce', 'tools.py');
  const before = readFileSync(toolsFile, 'utf8');
  await page.evaluate(`location.hash = '#/tools/ecommerce'`);
  const box = page.locator('[data-testid="editor-tools.py"][data-ready="true"]');
  await box.waitFor();
  const editor = box.locator('.monaco-editor .view-lines');
  /** The editor's first line (scrolled to the top first: Monaco draws only the lines on screen). */
  const top = async () => {
    await editor.click();
    await page.keyboard.press('Control+Home');
    return (await editor.innerText()).replace(/\u00a0/g, ' ').split('\n')[0];
  };
  await expect.poll(top, { timeout: POLL_MS }).toBe(before.split('\n')[0]);
  await page.locator('[data-testid="saved"]').waitFor({ timeout: POLL_MS });
  return { toolsFile, before, editor, top };
}

/**
 * Holds the page's first request to `path` once the service has answered it: the answer is kept from the
 * page until `release` (which resolves once the page has it); later requests pass. `answered` resolves
 * once the service has answered the first; `unhold` ends the holding.
 */
async function holdFirstAnswer(path: RegExp) {
  const { page } = w;
  let taken = false;
  let held: { route: Route; response: APIResponse } | undefined;
  let answered = () => {};
  const first = new Promise<void>((r) => (answered = r));
  await page.route(path, async (route) => {
    if (taken) return route.continue();
    taken = true;
    held = { route, response: await route.fetch() };
    answered();
  });
  return {
    answered: first,
    release: async () => {
      const handed = page.waitForEvent('requestfinished', (r) => r === held?.route.request());
      await held!.route.fulfill({ response: held!.response });
      await handed;
    },
    unhold: () => page.unroute(path),
  };
}

/**
 * Appends a comment to config.toml and waits until the page has heard of it (its push), then puts the
 * file back: a change the page hears of after what it had on its way before.
 */
async function touchConfig(): Promise<void> {
  const configFile = join(w.workspace, '.toolsmith', 'config.toml');
  const config = readFileSync(configFile, 'utf8');
  const heard = () => w.pushed.filter((e) => e.type === 'workspace_changed').length;
  const seen = heard();
  try {
    appendFileSync(configFile, '\n# touched by tools.e2e\n');
    await expect.poll(heard, { timeout: POLL_MS }).toBeGreaterThan(seen);
  } finally {
    writeFileSync(configFile, config);
  }
}

describe('tools in the workbench', () => {
  it('shows tools, extracts live while typing, saves, and calls a tool in its sandbox', async () => {
    const { page } = w;
    const toolsFile = join(w.workspace, 'sandboxes', 'ecommerce', 'tools.py');
    const original = readFileSync(toolsFile, 'utf8');

    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Tools' }).click();
    await page.locator('button[data-sandbox="ecommerce"]').click();
    // Waits on the outcome (the route changed), at the page's own pace, however busy the machine is.
    await page.waitForFunction(
      () => (globalThis as unknown as { location: { hash: string } }).location.hash === '#/tools/ecommerce',
    );

    // The saved tools and their parameters.
    const live = page.locator('[data-testid="live-tools"]');
    await live.locator('[data-tool="get_user"]').waitFor();
    await live.locator('[data-tool="check_inventory"]').waitFor();
    const warehouse = live.locator('[data-tool="check_inventory"] [data-param="warehouse"]');
    expect(await warehouse.innerText()).toContain('"New York"');
    expect(await warehouse.locator('[data-required]').getAttribute('data-required')).toBe('false');
    expect(await warehouse.innerText()).toContain('"Berlin"');
    const userId = live.locator('[data-tool="get_user"] [data-param="user_id"]');
    expect(await userId.locator('[data-required]').getAttribute('data-required')).toBe('true');
    expect(await userId.innerText()).toContain('User ID');
    expect(await userId.innerText()).toContain('history');
    await page.locator('[data-testid="editor-tools.py"][data-ready="true"]').waitFor();
    await page.locator('[data-testid="no-problems"]').waitFor();
    await w.screenshot('tools');

    // Type a new @tool into tools.py: the metadata follows without saving.
    const editor = page.locator('[data-testid="editor-tools.py"] .monaco-editor .view-lines');
    // Replace the whole text as a paste: typed text would be auto-indented and auto-closed by Monaco.
    const setSource = async (text: string) => {
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.evaluate(`(${PASTE})(${JSON.stringify(text)})`);
    };

    // Real keystrokes at the end of the file: a one-line tool shows up in the metadata while typing.
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('@tool');
    // The line break as input, not an Enter key: Monaco's word suggestions for `@tool` come from its
    // worker and, on a loaded machine, can open after an Escape; an Enter then accepts one (CI once got
    // no `ping` tool that way).
    await page.keyboard.insertText('\n');
    await page.keyboard.type(
      'def ping(host: str, count: int = 3) -> ToolResponse: return ToolResponse(success=True)',
    );
    await page.keyboard.press('Escape');
    await live.locator('[data-tool="ping"]').waitFor({ timeout: POLL_MS });
    expect(await live.locator('[data-tool="ping"] [data-param="count"]').innerText()).toContain('3');
    await page.locator('[data-testid="dirty"]').waitFor();
    await page.locator('[data-testid="no-problems"]').waitFor();

    await setSource(original + MEASURE);
    await live.locator('[data-tool="ping"]').waitFor({ state: 'detached', timeout: POLL_MS });
    await live.locator('[data-tool="measure"]').waitFor({ timeout: POLL_MS });
    const unit = live.locator('[data-tool="measure"] [data-param="unit"]');
    expect(await unit.innerText()).toContain('"cm"');
    expect(await unit.innerText()).toContain('"in"');
    expect(await live.locator('[data-tool="measure"] [data-param="size"]').innerText()).toContain('int');
    await page.locator('[data-testid="dirty"]').waitFor();
    expect(readFileSync(toolsFile, 'utf8')).toBe(original);
    await page.getByRole('tab', { name: 'XML prompt' }).click();
    await expect
      .poll(() => page.locator('[data-testid="xml-preview"]').innerText())
      .toContain('<tool name="measure"');
    expect(await page.locator('[data-testid="xml-preview"]').innerText()).toContain(
      'measure(size: int, unit: str = "cm")',
    );
    await page.getByRole('tab', { name: 'OpenAI schema' }).click();
    expect(await page.locator('[data-testid="openai-preview"]').innerText()).toContain('"name": "measure"');
    await page.getByRole('tab', { name: /^Parameters/ }).click();

    // A syntax error: a problem in the list and a marker in the editor; then fixed.
    await setSource(original + MEASURE + '\n\ndef broken(:\n    pass\n');
    const problems = page.locator('ul[aria-label="problems"]');
    await expect.poll(() => problems.innerText(), { timeout: POLL_MS }).toContain('syntax');
    await page.locator('[data-testid="editor-tools.py"] .squiggly-error').first().waitFor();
    await problems.getByRole('button').first().click();
    const problemLine = Number(
      (await problems.getByRole('button').first().innerText()).match(/line (\d+)/)?.[1],
    );
    await expect
      .poll(() => page.locator('[data-testid="editor-tools.py"]').getAttribute('data-cursor-line'))
      .toBe(String(problemLine));
    // Save with the syntax error: held back with a message naming the count and the first line, the
    // cursor on it, and the file untouched.
    await editor.click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const held = page.locator('[data-testid="save-held"]');
    await held.waitFor();
    expect(await held.innerText()).toMatch(
      /Not saved: tools\.py has \d+ syntax errors?, the first at line \d+:\d+/,
    );
    expect(await held.innerText()).toContain(`line ${problemLine}`);
    // The summary's line:column is the list's first, and the list is in position order (the parser tells
    // `def broken(:`'s errors out of order: the summary named the "(" not closed, at column 11, above a
    // list that started at column 12).
    const firstListed = (await problems.getByRole('button').first().innerText()).match(/line (\d+:\d+)/)?.[1];
    expect(firstListed).toBeTruthy();
    expect((await held.innerText()).match(/the first at line (\d+:\d+)/)?.[1]).toBe(firstListed);
    const positions = (await problems.getByRole('button').allInnerTexts()).map((t) =>
      (t.match(/line (\d+):(\d+)/) ?? []).slice(1).map(Number),
    );
    expect(positions).toEqual(
      [...positions].sort(([l1 = 0, c1 = 0], [l2 = 0, c2 = 0]) => l1 - l2 || c1 - c2),
    );
    await w.screenshot('tools-save-held');
    expect(readFileSync(toolsFile, 'utf8')).toBe(original);
    await setSource(original + MEASURE);
    await held.waitFor({ state: 'detached' });
    await page.locator('[data-testid="no-problems"]').waitFor({ timeout: POLL_MS });

    // Save with Ctrl+S in the editor: the file, the registry and tools.list follow.
    await editor.click();
    await page.keyboard.press('Control+S');
    await page.locator('[data-testid="saved"]').waitFor({ timeout: POLL_MS });
    expect(readFileSync(toolsFile, 'utf8')).toBe(original + MEASURE);
    expect(w.svc.catalog.registry('ecommerce').get('measure')).toBeTruthy();
    await page.reload();
    await page.locator('.tool-picker button[data-tool="measure"]').waitFor();
    await expect
      .poll(() => page.locator('button[data-sandbox="ecommerce"]').innerText())
      .toContain('5 tools');

    // Try check_inventory: the required product id is checked before anything is sent.
    const tryTool = page.getByRole('region', { name: 'try tool' });
    await tryTool.locator('.tool-picker button[data-tool="check_inventory"]').click();
    const form = tryTool.locator('form[aria-label="try check_inventory"]');
    const productId = form.locator('#try-product_id');
    expect(await productId.getAttribute('placeholder')).toContain('p1');
    expect(await form.locator('#try-warehouse').evaluate((e) => e.tagName)).toBe('SELECT');
    expect(await form.locator('#try-warehouse option').allInnerTexts()).toEqual([
      'default ("New York")',
      'New York',
      'Berlin',
      'Tokyo',
    ]);
    await form.getByRole('button', { name: 'Call check_inventory' }).click();
    await expect.poll(() => form.locator('#try-product_id-error').innerText()).toContain('required');
    expect(await productId.getAttribute('aria-invalid')).toBe('true');
    expect(await tryTool.locator('[data-testid="try-result"]').count()).toBe(0);

    await productId.fill('p1');
    await form.locator('#try-warehouse').selectOption({ label: 'Berlin' });
    await form.getByRole('button', { name: 'Call check_inventory' }).click();
    const result = tryTool.locator('[data-testid="try-result"]');
    await result.waitFor({ timeout: 90_000 });
    expect(await result.getAttribute('data-success')).toBe('true');
    const data = await result.locator('[data-testid="response-data"]').innerText();
    expect(data).toContain('"Mechanical keyboard"');
    expect(data).toContain('in_stock');
    expect(data).toContain('"Berlin"');
    expect(data).toMatch(/in_stock: 3\b/);
    expect(await result.locator('[data-isolation]').getAttribute('data-isolation')).toBe('docker');
    const trace = await result.locator('table[aria-label="trace"]').innerText();
    expect(trace).toContain('check_inventory');
    expect(trace).toContain('"product_id":"p1"');
    await result.scrollIntoViewIfNeeded();
    await w.screenshot('try-tool');

    // The freshly saved tool runs in the hot-reloaded sandbox; bad input is refused inline.
    await tryTool.locator('.tool-picker button[data-tool="measure"]').click();
    const measure = tryTool.locator('form[aria-label="try measure"]');
    await measure.locator('#try-size').fill('twelve');
    await measure.getByRole('button', { name: 'Call measure' }).click();
    await expect.poll(() => measure.locator('#try-size-error').innerText()).toContain('integer');
    await measure.locator('#try-size').fill('12');
    await measure.locator('#try-unit').selectOption({ label: 'in' });
    await measure.getByRole('button', { name: 'Call measure' }).click();
    await expect
      .poll(() => tryTool.locator('[data-testid="try-result"] [data-testid="response-data"]').innerText(), {
        timeout: 60_000,
      })
      .toContain('double: 24');
    expect(await tryTool.locator('[data-testid="try-result"]').innerText()).toContain('"unit":"in"');

    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });

  it('the editor keeps what was saved, follows tools.py changed on disk, and never drops unsaved edits', async () => {
    const { page } = w;
    const toolsFile = join(w.workspace, 'sandboxes', 'ecommerce', 'tools.py');
    const before = readFileSync(toolsFile, 'utf8');
    await page.evaluate(`location.hash = '#/tools/ecommerce'`);
    const box = page.locator('[data-testid="editor-tools.py"][data-ready="true"]');
    await box.waitFor();
    const editor = box.locator('.monaco-editor .view-lines');
    // What the editor holds, read from its first lines (scrolled to the top first: Monaco renders only
    // the lines on screen).
    const shown = async () => {
      await editor.click();
      await page.keyboard.press('Control+Home');
      return (await editor.innerText()).replace(/\u00a0/g, ' '); // (Monaco draws spaces as no-break spaces)
    };
    const setSource = async (text: string) => {
      await editor.click();
      await page.keyboard.press('Control+A');
      await page.evaluate(`(${PASTE})(${JSON.stringify(text)})`);
    };
    const applied = page
      .getByRole('status')
      .filter({ hasText: 'the tools of sandbox ecommerce changed on disk' });

    // Saved: the file watcher does not take the service's own save for a change on disk (it showed a
    // second "changed on disk: applied" notice and reloaded the workers again); the editor holds the
    // saved text, and the next save keeps it.
    await setSource(`# kept after saving\n${before}`);
    await page.locator('[data-testid="dirty"]').waitFor();
    const changesBefore = w.pushed.filter((e) => e.type === 'workspace_changed').length;
    await editor.click();
    await page.keyboard.press('Control+S');
    await page.locator('[data-testid="saved"]').waitFor({ timeout: POLL_MS });
    // A change of suites/ after the save: once it is heard, the watcher handled the save before it (it
    // applies changes in order), so no wait for a time is needed to know nothing else came.
    const suitesHeard = () =>
      w.pushed.filter((e) => e.type === 'workspace_changed' && (e as { what?: string }).what === 'suites')
        .length;
    const suitesBefore = suitesHeard();
    writeFileSync(join(w.workspace, 'suites', 'after-save-marker.toml'), 'name = "after-save-marker"\n');
    await expect.poll(suitesHeard, { timeout: POLL_MS }).toBe(suitesBefore + 1);
    await page.waitForLoadState('networkidle');
    expect(await applied.count()).toBe(0);
    expect(w.pushed.filter((e) => e.type === 'workspace_changed')).toHaveLength(changesBefore + 1);
    rmSync(join(w.workspace, 'suites', 'after-save-marker.toml'));
    await expect.poll(suitesHeard, { timeout: POLL_MS }).toBe(suitesBefore + 2);
    await expect.poll(shown).toContain('# kept after saving');
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('\n# and one more line\n');
    await page.keyboard.press('Control+S');
    await expect
      .poll(() => readFileSync(toolsFile, 'utf8'), { timeout: POLL_MS })
      .toContain('# and one more line');
    expect(readFileSync(toolsFile, 'utf8')).toContain('# kept after saving');

    // Changed on disk by another editor while nothing is unsaved here: the editor shows the new text.
    await page.locator('[data-testid="saved"]').waitFor({ timeout: POLL_MS });
    writeFileSync(toolsFile, `# from another editor\n${before}`);
    await expect.poll(shown, { timeout: POLL_MS }).toContain('# from another editor');
    await expect.poll(shown).not.toContain('# kept after saving');
    await page.locator('[data-testid="saved"]').waitFor();

    // Changed on disk while there are unsaved edits: they stay, with a warning; the person takes the
    // file's text when they choose to.
    await setSource(`# my unsaved edit\n${before}`);
    await page.locator('[data-testid="dirty"]').waitFor();
    // A reload or a closed tab would lose it: the page asks first (beforeunload cancelled).
    const asks = () =>
      page.evaluate(`(() => {
        const e = new Event('beforeunload', { cancelable: true });
        window.dispatchEvent(e);
        return e.defaultPrevented;
      })()`);
    expect(await asks()).toBe(true);
    writeFileSync(toolsFile, `# theirs\n${before}`);
    await page.locator('[data-testid="disk-changed"]').waitFor({ timeout: POLL_MS });
    await expect.poll(shown).toContain('# my unsaved edit');
    expect(readFileSync(toolsFile, 'utf8')).toBe(`# theirs\n${before}`);
    await page.getByRole('button', { name: "Take the file's text" }).click();
    await expect.poll(shown).toContain('# theirs');
    await page.locator('[data-testid="disk-changed"]').waitFor({ state: 'detached' });
    // Nothing unsaved any more: it goes without asking.
    expect(await asks()).toBe(false);

    // A link to a line the file does not have (a traceback frame of a longer tools.py): the last line,
    // not a blank workbench.
    const lines = readFileSync(toolsFile, 'utf8').split('\n').length;
    await page.evaluate(`location.hash = '#/tools/ecommerce?line=5000'`);
    await box.waitFor();
    await expect.poll(() => box.getAttribute('data-cursor-line')).toBe(String(lines));
    expect(await page.locator('[data-testid="view-failed"]').count()).toBe(0);
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
    writeFileSync(toolsFile, before);
  });

  it('Ctrl+S while a save is on its way: it saves once that one has answered, with the text as it is then', async () => {
    // The service answers a save once the sandbox's workers have reloaded (slow on a busy machine, where
    // the listing read on the file's change had already shown "saved"): a Ctrl+S after more typing
    // meanwhile was dropped without a word, and CI's run of the test above waited in vain for the file.
    const { page } = w;
    const { toolsFile, before, editor } = await openClean();
    // The first save is held on its way to the service until the second Ctrl+S has been pressed.
    const held: Route[] = [];
    let holding = true;
    await page.route(/\/api\/tools\.save$/, (r) => {
      if (holding) held.push(r);
      else void r.continue();
    });
    try {
      await editor.click();
      await page.keyboard.press('Control+End');
      await page.keyboard.insertText('\n# first save\n');
      await page.keyboard.press('Control+S');
      await expect.poll(() => held.length).toBe(1);
      await page.keyboard.insertText('# second save\n');
      await page.keyboard.press('Control+S');
      await page.locator('[data-testid="dirty"]').waitFor();
      holding = false;
      for (const r of held) await r.continue();
      await expect
        .poll(() => readFileSync(toolsFile, 'utf8'), { timeout: POLL_MS })
        .toContain('# first save\n# second save\n');
      await page.locator('[data-testid="saved"]').waitFor({ timeout: POLL_MS });
    } finally {
      await page.unroute(/\/api\/tools\.save$/);
      writeFileSync(toolsFile, before);
    }
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });

  it('a save whose answer comes after another editor changed the file again: the editor keeps the newer file', async () => {
    // The service answers a save once the sandbox's workers have reloaded; meanwhile another editor wrote
    // tools.py again and the page showed that text (the watcher's read). The save's answer then put the
    // saved text back in the editor, marked saved, the file's newer text lost from view (a later save
    // would have written over it).
    const { page } = w;
    const { toolsFile, before, editor, top } = await openClean();
    // (the editor holding the file as it is now: a change of the test before still on its way is in)
    writeFileSync(toolsFile, `# start\n${before}`);
    await expect.poll(top, { timeout: POLL_MS }).toBe('# start');
    await page.locator('[data-testid="saved"]').waitFor({ timeout: POLL_MS });
    // The save reaches the service (which writes the file and reloads), its answer held on the way back.
    const save = await holdFirstAnswer(/\/api\/tools\.save$/);
    try {
      await editor.click();
      await page.keyboard.press('Control+Home');
      await page.keyboard.insertText('# saved here\n');
      await page.keyboard.press('Control+S');
      await save.answered;
      expect(readFileSync(toolsFile, 'utf8')).toBe(`# saved here\n# start\n${before}`);
      // The page reads the newer file (the watcher's push; the editor shows it, or, when the save's own
      // change and this one came as one, keeps the text it is saving with the change told).
      const readNewer = page.waitForResponse(
        async (r) =>
          r.url().endsWith('/api/tools.list') && (await r.text()).includes('# newer, from another editor'),
        { timeout: POLL_MS },
      );
      writeFileSync(toolsFile, `# newer, from another editor\n${before}`);
      await readNewer;
      const saveButton = page.locator('button.primary', { hasText: /^Sav/ });
      expect(await saveButton.innerText()).toBe('Saving…');
      await save.release();
      // The save is over for the page (its button back), and a change on disk it hears of after the
      // answer (config.toml's): by then it has dealt with that answer.
      await expect.poll(() => saveButton.innerText(), { timeout: POLL_MS }).toBe('Save');
      await touchConfig();
      await expect.poll(top, { timeout: POLL_MS }).toBe('# newer, from another editor');
      await page.locator('[data-testid="saved"]').waitFor();
      expect(await page.locator('[data-testid="disk-changed"]').count()).toBe(0);
      expect(readFileSync(toolsFile, 'utf8')).toBe(`# newer, from another editor\n${before}`);
    } finally {
      await save.unhold();
      writeFileSync(toolsFile, before);
    }
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });

  it('a Ctrl+S queued behind that save does not write over the newer file unseen: the edits stay, the change told', async () => {
    const { page } = w;
    const { toolsFile, before, editor, top } = await openClean();
    writeFileSync(toolsFile, `# start\n${before}`);
    await expect.poll(top, { timeout: POLL_MS }).toBe('# start');
    await page.locator('[data-testid="saved"]').waitFor({ timeout: POLL_MS });
    const save = await holdFirstAnswer(/\/api\/tools\.save$/);
    try {
      await editor.click();
      await page.keyboard.press('Control+Home');
      await page.keyboard.insertText('# saved here\n');
      await page.keyboard.press('Control+S');
      // More typed and saved while the first save is on its way: queued behind it.
      await page.keyboard.insertText('# typed while saving\n');
      await page.keyboard.press('Control+S');
      await save.answered;
      const readNewer = page.waitForResponse(
        async (r) =>
          r.url().endsWith('/api/tools.list') && (await r.text()).includes('# newer, from another editor'),
        { timeout: POLL_MS },
      );
      writeFileSync(toolsFile, `# newer, from another editor\n${before}`);
      await readNewer;
      await save.release();
      const saveButton = page.locator('button.primary', { hasText: /^Sav/ });
      await expect.poll(() => saveButton.innerText(), { timeout: POLL_MS }).toBe('Save');
      await touchConfig();
      // The newer file stays; the edits typed since stay in the editor, unsaved, the change told.
      expect(readFileSync(toolsFile, 'utf8')).toBe(`# newer, from another editor\n${before}`);
      await page.locator('[data-testid="disk-changed"]').waitFor({ timeout: POLL_MS });
      await page.locator('[data-testid="dirty"]').waitFor();
      await expect.poll(top, { timeout: POLL_MS }).toBe('# saved here');
      // Taking the file's text: the newer file in the editor.
      await page.getByRole('button', { name: "Take the file's text" }).click();
      await expect.poll(top).toBe('# newer, from another editor');
    } finally {
      await save.unhold();
      writeFileSync(toolsFile, before);
    }
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });

  it('two changes on disk whose listings answer out of order: the editor shows the newer file', async () => {
    // Each change on disk makes the page read the listing again; two reads on their way at once can
    // answer out of order (a loaded machine, two connections). The older answer describes the file
    // before the second change: the editor went back to it, and a later save wrote it back.
    const { page } = w;
    const { toolsFile, before, editor, top } = await openClean();
    const configFile = join(w.workspace, '.toolsmith', 'config.toml');
    const config = readFileSync(configFile, 'utf8');
    // The first read is answered by the service at once, and handed to the page only later.
    const list = await holdFirstAnswer(/\/api\/tools\.list$/);
    try {
      writeFileSync(toolsFile, `# one\n${before}`);
      await list.answered;
      writeFileSync(toolsFile, `# two\n${before}`);
      await expect.poll(top, { timeout: POLL_MS }).toBe('# two');
      // The editor element as it is now: text taken from outside makes a new one.
      await editor.evaluate((e) => e.closest('.code-editor')?.setAttribute('data-probe', 'before'));
      await list.release();
      // A change the page hears of after it had the older answer (config.toml's notice): by then it has
      // dealt with that answer.
      appendFileSync(configFile, '\n# touched by tools.e2e\n');
      await page
        .locator('.notices [role="status"]', { hasText: 'config.toml changed on disk: applied' })
        .waitFor({ timeout: POLL_MS });
      expect(await page.locator('.code-editor[data-probe="before"]').count()).toBe(1);
      await expect.poll(top, { timeout: POLL_MS }).toBe('# two');
      await page.locator('[data-testid="saved"]').waitFor();
    } finally {
      await list.unhold();
      writeFileSync(configFile, config);
      writeFileSync(toolsFile, before);
    }
    expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});

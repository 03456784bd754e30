/**
 * The Skills view in the workbench (Chromium, browser front end, real container): write a skill in the
 * view, see the live check refuse what the script rules refuse, save it (its cases run in the sandbox),
 * see it fail, fix it as a new version, run its tests again, try it with other arguments, and delete it;
 * make one from a run's lines; and the same in JavaScript: a JS skill written and tested in the view, a JS
 * run of the scripted LLM calling it (its tool call traced under its name), a JS skill made from that run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { recordDialogs } from './support/dialogs.ts';
import { POLL_MS } from '../support/budgets.ts';

let w: E2eWorld;

beforeAll(async () => {
  w = await startWorld();
  await w.page.setViewportSize({ width: 1280, height: 800 });
  await w.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: w.web.url });
});
afterAll(async () => {
  await w?.close();
});

const dismissNotices = async () => {
  const buttons = w.page.locator('.notices button[aria-label="dismiss"]');
  for (let i = 0; i < 10 && (await buttons.count()) > 0; i++)
    await buttons
      .first()
      .click({ timeout: 2000 })
      .catch(() => {});
};
type Clip = { navigator: { clipboard: { writeText(t: string): Promise<void> } } };
const hash = () => '#' + (w.page.url().split('#')[1] ?? '');
/** Monaco's text as a person reads it (its spaces are non-breaking). */
const editorText = async (testid: string) =>
  (await w.page.locator(`[data-testid="${testid}"] .view-lines`).innerText()).replace(/\u00a0/g, ' ');
/** The sandbox a new skill is made in (the view's head; an open new skill has a sandbox field too). */
const newSkillSandbox = () => w.page.locator('.view-head').getByLabel('sandbox', { exact: true });
const noPageErrors = () => expect(w.pageErrors.filter((e) => !/favicon/.test(e))).toEqual([]);
/** Whether a reload or a closed tab would ask first (the page cancels `beforeunload`: unsaved edits). */
const asks = () =>
  w.page.evaluate(`(() => {
    const e = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(e);
    return e.defaultPrevented;
  })()`);

const source = (key: string) => `def user_city(user_id: str) -> str:
    """A customer's city.

    Args:
        user_id: The customer's id.
    """
    return get_user(user_id=user_id).data["${key}"]
`;

/** Replaces the skill editor's text (pasted, as a person would). */
async function setSource(text: string) {
  const { page } = w;
  await page.locator('[data-testid="editor-skill-source"] .monaco-editor').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  // Pasted: typing would be auto-indented line after line.
  await page.evaluate((t) => (globalThis as unknown as Clip).navigator.clipboard.writeText(t), text);
  await page.keyboard.press('Control+V');
}

describe('skills in the workbench', () => {
  it('writes, checks, saves, fails, fixes, tests, tries and deletes a skill', async () => {
    const { page } = w;
    // The Skills view from the main navigation (its `g l` shortcut is keyboard.e2e's: under load a test
    // process can be slower than the shortcut's one-second window between the two keys).
    await page.locator('[data-testid="runs-total"]').waitFor();
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Skills' }).click();
    await expect.poll(() => hash()).toBe('#/skills');
    await page.getByTestId('skills-empty').waitFor();

    await newSkillSandbox().selectOption('ecommerce');
    await page.getByRole('button', { name: 'New skill' }).click();
    const editor = page.getByTestId('skill-editor');
    await editor
      .locator('[data-testid="editor-skill-source"][data-ready="true"]')
      .waitFor({ timeout: 60_000 });
    // A new skill as it starts has nothing to lose; named, a reload would lose it: the page asks first.
    expect(await asks()).toBe(false);
    await editor.getByLabel('name', { exact: true }).fill('user_city');
    await expect.poll(asks).toBe(true);

    // The live check refuses what a script may not do.
    await setSource('def user_city(user_id: str) -> str:\n    """City."""\n    return open("/etc/passwd")\n');
    const check = page.getByTestId('skill-check');
    await expect.poll(() => check.getAttribute('data-valid'), { timeout: POLL_MS }).toBe('false');
    expect(await check.innerText()).toMatch(/open/);

    // A skill whose case fails: saved, but failing (not offered).
    await setSource(source('town'));
    await expect.poll(() => check.getAttribute('data-valid'), { timeout: POLL_MS }).toBe('true');
    expect(await check.innerText()).toContain('user_city(user_id: str)');
    await editor
      .getByLabel('test cases')
      .fill('[{"args": {"user_id": "u1"}, "assert": [{"type": "equals", "value": "London"}]}]');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    const results = page.getByTestId('skill-test-results');
    await expect.poll(() => results.getAttribute('data-passed'), { timeout: 120_000 }).toBe('false');
    expect(await results.innerText()).toMatch(/KeyError/);
    const row = page.locator('tr[data-skill="user_city"]');
    await expect.poll(() => row.getByTestId('skill-status').getAttribute('data-status')).toBe('failed');
    await expect.poll(() => hash()).toBe('#/skills/ecommerce%2Fuser_city');
    // Saved: nothing unsaved any more.
    await expect.poll(asks).toBe(false);

    // Fixed as a new version: its case passes and it is tested.
    await setSource(source('city'));
    await expect.poll(() => check.getAttribute('data-valid'), { timeout: POLL_MS }).toBe('true');
    await expect.poll(asks).toBe(true);
    await editor.getByRole('button', { name: 'Save new version' }).click();
    await expect.poll(() => results.getAttribute('data-passed'), { timeout: 120_000 }).toBe('true');
    await expect.poll(asks).toBe(false);
    await expect.poll(() => row.getByTestId('skill-status').getAttribute('data-status')).toBe('passed');
    expect(await row.getByTestId('skill-version').innerText()).toBe('v2');
    expect(await editor.innerText()).toContain('earlier: v1');

    // Run the tests again, against the real sandbox.
    await editor.getByRole('button', { name: 'Run tests' }).click();
    await expect.poll(() => editor.getByRole('button', { name: 'Run tests' }).isEnabled()).toBe(true);
    await expect.poll(() => results.innerText(), { timeout: 120_000 }).toContain('All 1 case passed');
    expect(await results.innerText()).toContain('London');

    // Try it with other arguments.
    await editor.getByLabel('arguments (JSON object)', { exact: true }).fill('{"user_id": "u2"}');
    await editor.getByRole('button', { name: 'Try it' }).click();
    const tried = page.getByTestId('skill-try-result');
    await expect.poll(() => tried.getAttribute('data-passed'), { timeout: 120_000 }).toBe('true');
    const tryText = await tried.innerText();
    expect(tryText.length).toBeGreaterThan(0);
    expect(tryText).not.toContain('London');

    await dismissNotices();
    // Both themes, the top of the view (list, editor) and its end (test results, try).
    for (let i = 0; i < 2; i++) {
      const theme = (await page.locator('.app').getAttribute('class'))?.includes('theme-dark')
        ? 'dark'
        : 'light';
      await page.locator('main').evaluate((m) => m.scrollTo(0, 0));
      await w.screenshot(`skills-${theme}`);
      await page.locator('main').evaluate((m) => m.scrollTo(0, m.scrollHeight));
      await w.screenshot(`skills-${theme}-results`);
      await page.getByRole('button', { name: 'toggle theme' }).click();
    }

    // Delete, behind a confirmation: the file goes, the list is empty again.
    await editor.getByRole('button', { name: 'Delete' }).click();
    await editor
      .getByRole('group', { name: 'confirm delete' })
      .getByRole('button', { name: 'Yes, delete' })
      .click();
    await page.getByTestId('skills-empty').waitFor({ timeout: POLL_MS });
    expect(w.svc.skills().list('ecommerce')).toEqual([]);
    noPageErrors();
  });

  it('an unsaved skill edit outlives opening another view, and opening another skill asks first', async () => {
    const { page } = w;
    const nav = (label: string) =>
      page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: label }).click();
    const dialogs = recordDialogs(page);
    try {
      // Two saved skills (the service's own save), then the first opened and edited in the view.
      for (const name of ['first_city', 'second_city'])
        await w.svc.skills().save({
          sandbox: 'ecommerce',
          name,
          source: source('city').replace('user_city', name),
          tests: [],
        });
      // (from another view: the Skills view lists the skills as it opens)
      await nav('Kits');
      await page.goto(`${w.web.url.split('#')[0]}#/skills/ecommerce%2Ffirst_city`);
      const editor = page.getByTestId('skill-editor');
      await editor.locator('[data-testid="editor-skill-source"][data-ready="true"]').waitFor();
      await setSource(source('town').replace('user_city', 'first_city'));
      await expect.poll(() => editorText('editor-skill-source')).toContain('["town"]');
      await expect.poll(asks).toBe(true);

      // Another view and back: the edit is still there (it was dropped without asking), still unsaved.
      await nav('Kits');
      await expect.poll(() => hash()).toBe('#/kits');
      expect(await asks()).toBe(true);
      await nav('Skills');
      await editor.locator('[data-testid="editor-skill-source"][data-ready="true"]').waitFor();
      await expect.poll(() => editorText('editor-skill-source')).toContain('["town"]');

      // Another skill: asked first; "cancel" keeps the edit.
      await page.locator('tr[data-skill="second_city"]').getByRole('button').first().click();
      await expect.poll(() => dialogs.messages).toEqual(['Drop the unsaved edits to skill first_city?']);
      expect(await editorText('editor-skill-source')).toContain('["town"]');
      // "OK" opens the other skill; nothing is unsaved any more.
      dialogs.answer(true);
      await page.locator('tr[data-skill="second_city"]').getByRole('button').first().click();
      await expect.poll(() => hash()).toBe('#/skills/ecommerce%2Fsecond_city');
      await expect.poll(() => editorText('editor-skill-source')).toContain('def second_city');
      expect(await asks()).toBe(false);
    } finally {
      dialogs.stop();
      for (const name of ['first_city', 'second_city']) w.svc.skills().delete('ecommerce', name);
    }
  });

  it('makes a skill from lines of a recorded successful run and lands on it, tested', async () => {
    const { page } = w;
    const run = await (
      await w.svc.runs()
    ).runScript({
      sandbox: 'ecommerce',
      task: 'How much did user u2 spend?',
      body: 'orders = get_orders().data\nmine = [o for o in orders if o["user_id"] == "u2"]\nspent = sum(o["total"] for o in mine)\nemit_result(spent)\n',
    });
    expect(run.status).toBe('succeeded');
    await page.goto(`${w.web.url.split('#')[0]}#/run/${run.runId}`);
    const make = page.getByRole('group', { name: 'make a skill' });
    await make.waitFor({ timeout: POLL_MS });
    // Lines 2-3 selected with the keyboard fill the range; then lines 1-3 dragged with the mouse.
    const script = page.locator('[data-testid="editor-script"]');
    await expect.poll(() => script.getAttribute('data-ready'), { timeout: 60_000 }).toBe('true');
    // Where line n is on screen (Monaco's DOM order is not the line order; the script does not scroll).
    const lines = script.locator('.view-lines');
    await lines.locator('.view-line').first().waitFor();
    const lineHeight = await lines
      .locator('.view-line')
      .first()
      .evaluate((e) => e.getBoundingClientRect().height);
    const at = async (n: number, x: number) => {
      const box = await lines.boundingBox();
      if (!box) throw new Error('the script editor shows no lines');
      return { x: box.x + x, y: box.y + (n - 0.5) * lineHeight };
    };
    const two = await at(2, 30);
    await page.mouse.click(two.x, two.y);
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await expect.poll(() => make.getByLabel('skill from line').inputValue()).toBe('2');
    await expect.poll(() => make.getByLabel('skill to line').inputValue()).toBe('3');
    const from = await at(1, 2);
    const to = await at(3, 60);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => make.getByLabel('skill from line').inputValue()).toBe('1');
    await expect.poll(() => make.getByLabel('skill to line').inputValue()).toBe('3');
    await make.getByRole('button', { name: 'Make a skill' }).click();

    const proposal = page.getByTestId('skill-proposal');
    await expect.poll(() => proposal.innerText(), { timeout: POLL_MS }).toContain('Proposed from lines 1–3');
    expect(await proposal.locator('tr[data-param="value1"]').innerText()).toContain('"u2"');
    expect(await proposal.innerText()).toContain('returns: spent');
    const editor = page.getByTestId('skill-editor');
    await expect
      .poll(() => editorText('editor-skill-source'), { timeout: 60_000 })
      .toContain('o["user_id"] == value1');
    expect(await editor.getByLabel('test cases').inputValue()).toContain('"value1":"u2"');
    const name = await editor.getByLabel('name', { exact: true }).inputValue();
    await expect
      .poll(() => page.getByTestId('skill-check').getAttribute('data-valid'), { timeout: POLL_MS })
      .toBe('true');
    await dismissNotices();
    await w.screenshot('skills-make-from-run');

    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => hash(), { timeout: 120_000 }).toBe(`#/skills/ecommerce%2F${name}`);
    const row = page.locator(`tr[data-skill="${name}"]`);
    await expect
      .poll(() => row.getByTestId('skill-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('passed');
    expect(w.svc.skills().get('ecommerce', name)).toMatchObject({ origin: run.runId, status: 'passed' });
    noPageErrors();
  });
  it('a JS skill: written and tested in the view, called by a JS run (its calls under its name), made from that run', async () => {
    const { page, llm } = w;
    llm.reset();
    await page.goto(`${w.web.url.split('#')[0]}#/skills`);
    await newSkillSandbox().selectOption('ecommerce');
    await page.getByRole('button', { name: 'New skill' }).click();
    const editor = page.getByTestId('skill-editor');
    await editor
      .locator('[data-testid="editor-skill-source"][data-ready="true"]')
      .waitFor({ timeout: 60_000 });
    await editor.getByLabel('language', { exact: true }).selectOption('js');
    await expect.poll(() => editorText('editor-skill-source')).toContain('async function new_skill(user_id)');
    await editor.getByLabel('name', { exact: true }).fill('js_user_city');
    // The live check holds a JS skill to the JS rules.
    await setSource(
      "/**\n * A customer's city.\n * @param {string} user_id The customer's id.\n */\nasync function js_user_city(user_id) {\n  return globalThis.process;\n}\n",
    );
    const check = page.getByTestId('skill-check');
    await expect.poll(() => check.getAttribute('data-valid'), { timeout: 20_000 }).toBe('false');
    expect(await check.innerText()).toMatch(/globalThis/);
    await setSource(
      "/**\n * A customer's city.\n * @param {string} user_id The customer's id.\n * @returns The city.\n */\nasync function js_user_city(user_id) {\n  return (await get_user({ user_id })).data.city;\n}\n",
    );
    await expect.poll(() => check.getAttribute('data-valid'), { timeout: 20_000 }).toBe('true');
    expect(await check.innerText()).toContain('js_user_city(user_id: string)');
    await editor
      .getByLabel('test cases')
      .fill('[{"args": {"user_id": "u1"}, "assert": [{"type": "equals", "value": "London"}]}]');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    const results = page.getByTestId('skill-test-results');
    await expect.poll(() => results.getAttribute('data-passed'), { timeout: 120_000 }).toBe('true');
    await expect.poll(() => hash()).toBe('#/skills/ecommerce%2Fjs_user_city');
    const row = page.locator('tr[data-skill="js_user_city"]');
    await expect.poll(() => row.getByTestId('skill-status').getAttribute('data-status')).toBe('passed');
    // Tested there again, in the node sandbox.
    await editor.getByRole('button', { name: 'Run tests' }).click();
    await expect.poll(() => results.innerText(), { timeout: 120_000 }).toContain('All 1 case passed');
    expect(w.svc.skills().get('ecommerce', 'js_user_city')).toMatchObject({
      language: 'js',
      status: 'passed',
    });

    // A JS run whose script (the scripted LLM's) calls it: the skill's tool call is traced under its name.
    llm.push(
      '```javascript\nconst city = await js_user_city("u2");\nconst u = await get_user({ user_id: "u2" });\nemitResult({ city, name: u.data.name });\n```',
    );
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'New run' }).click();
    await page.getByLabel('task').fill('City and name of user u2');
    await page.getByLabel('language', { exact: true }).selectOption('js');
    await page.getByText('skip templates and rules').click();
    await page.getByRole('button', { name: 'Start run' }).click();
    const status = () => page.locator('.run-detail').getAttribute('data-run-status');
    await expect.poll(status, { timeout: 120_000 }).toBe('succeeded');
    const runId = decodeURIComponent(page.url().split('#/run/')[1]?.split('?')[0] ?? '');
    expect(JSON.stringify(llm.requests.at(-1)?.body)).toContain(
      'declare function js_user_city(user_id: string)',
    );
    await expect
      .poll(() => page.locator('[data-testid="run-result"]').innerText(), { timeout: 30_000 })
      .toContain('Manchester');
    await page.getByRole('tab', { name: /^Tool calls/ }).click();
    const calls = page.getByRole('table', { name: 'tool calls' });
    await expect
      .poll(() => calls.locator('tbody tr[data-skill="js_user_city"]').innerText(), { timeout: 30_000 })
      .toContain('get_user in skill js_user_city');
    expect(await calls.locator('tbody tr:not([data-skill])').first().innerText()).toMatch(/^get_user\s/);
    await w.screenshot('skills-js-run-trace');

    // Make a skill from line 2 of that JS run: a JS skill, "u2" (from the task) its parameter.
    const make = page.getByRole('group', { name: 'make a skill' });
    await make.waitFor({ timeout: 30_000 });
    await make.getByLabel('skill from line').fill('2');
    await make.getByLabel('skill to line').fill('2');
    await make.getByRole('button', { name: 'Make a skill' }).click();
    const proposal = page.getByTestId('skill-proposal');
    await expect.poll(() => proposal.innerText(), { timeout: 30_000 }).toContain('Proposed from lines 2–2');
    expect(await proposal.innerText()).toContain('a JavaScript skill');
    expect(await proposal.locator('tr[data-param="user_id"]').innerText()).toContain('"u2"');
    const made = page.getByTestId('skill-editor');
    await expect
      .poll(() => editorText('editor-skill-source'), { timeout: 60_000 })
      .toContain('async function new_skill(user_id)');
    expect(await made.getByLabel('language', { exact: true }).inputValue()).toBe('js');
    // Named: the name field and the function's name (the service's proposal under that name, pasted).
    await made.getByLabel('name', { exact: true }).fill('js_user_of');
    const named = await w.svc.skills().propose({ runId, start: 2, end: 2, name: 'js_user_of' });
    expect(named.source).toContain('async function js_user_of(user_id) {');
    await setSource(named.source);
    await expect
      .poll(() => page.getByTestId('skill-check').getAttribute('data-valid'), { timeout: 20_000 })
      .toBe('true');
    await dismissNotices();
    await w.screenshot('skills-make-from-js-run');
    await made.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => hash(), { timeout: 120_000 }).toBe('#/skills/ecommerce%2Fjs_user_of');
    await expect
      .poll(
        () =>
          page.locator('tr[data-skill="js_user_of"]').getByTestId('skill-status').getAttribute('data-status'),
        { timeout: 60_000 },
      )
      .toBe('passed');
    expect(w.svc.skills().get('ecommerce', 'js_user_of')).toMatchObject({
      language: 'js',
      origin: runId,
      status: 'passed',
      tests: [{ args: { user_id: 'u2' } }],
    });
    noPageErrors();
  });

  it('"Make a skill" of lines that emit: the proposal says it returns what was emitted, follows a rename, and goes once saved', async () => {
    const { page } = w;
    const run = await (
      await w.svc.runs()
    ).runScript({
      sandbox: 'ecommerce',
      task: 'How much did user u3 spend?',
      body: 'orders = get_orders().data\nmine = [o for o in orders if o["user_id"] == "u3"]\nspent = sum(o["total"] for o in mine)\nemit_result(spent)\n',
    });
    expect(run.status).toBe('succeeded');
    await page.goto(`${w.web.url.split('#')[0]}#/skills/from-run:${run.runId}:1:1-4`);
    const proposal = page.getByTestId('skill-proposal');
    await expect.poll(() => proposal.innerText(), { timeout: POLL_MS }).toContain('Proposed from lines 1–4');
    // The function returns what the script passed to emit_result (it said "nothing the script used later").
    expect(await proposal.getByTestId('proposal-returns').innerText()).toBe(
      'what the script passed to emit_result: spent',
    );
    expect(await proposal.innerText()).not.toContain('nothing the script used later');
    const editor = page.getByTestId('skill-editor');
    await expect
      .poll(() => editorText('editor-skill-source'), { timeout: 60_000 })
      .toMatch(/^\s*return spent$/m);
    expect(await proposal.innerText()).toContain('call new_skill(…)');
    // Renamed: the call in the banner follows (it kept new_skill).
    await editor.getByLabel('name', { exact: true }).fill('spent_of_user');
    await expect.poll(() => proposal.innerText()).toContain('call spent_of_user(…)');
    expect(await proposal.innerText()).not.toContain('new_skill');
    await expect
      .poll(() => page.getByTestId('skill-check').getAttribute('data-valid'), { timeout: POLL_MS })
      .toBe('true');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => hash(), { timeout: 120_000 }).toBe('#/skills/ecommerce%2Fspent_of_user');
    await expect
      .poll(() => page.getByTestId('skill-editor').getAttribute('data-mode'), { timeout: 60_000 })
      .toBe('edit');
    // Saved: the proposal is done, its banner gone ("will be able to call … once its test case passes").
    expect(await page.getByTestId('skill-proposal').count()).toBe(0);
    expect(w.svc.skills().get('ecommerce', 'spent_of_user')).toMatchObject({ origin: run.runId });
    w.svc.skills().delete('ecommerce', 'spent_of_user');
    noPageErrors();
  });

  it('a skill saved elsewhere while open: Save new version is refused naming the version now saved, which stays', async () => {
    const { page } = w;
    const skills = w.svc.skills();
    const tests = [{ args: { user_id: 'u1' }, assert: [{ type: 'equals' as const, value: 'London' }] }];
    await skills.save({
      sandbox: 'ecommerce',
      name: 'user_town',
      source: source('city').replace('def user_city', 'def user_town'),
      tests,
    });
    await dismissNotices();
    // Opened from another view (the Skills view reads its list when it opens).
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Runs' }).click();
    await expect.poll(() => hash()).not.toMatch(/^#\/skills/);
    await page.evaluate(`location.hash = '#/skills/ecommerce%2Fuser_town'`);
    const editor = page.getByTestId('skill-editor');
    await expect.poll(() => editor.getAttribute('data-mode'), { timeout: 60_000 }).toBe('edit');
    await editor
      .locator('[data-testid="editor-skill-source"][data-ready="true"]')
      .waitFor({ timeout: 60_000 });
    await expect
      .poll(() => editorText('editor-skill-source'), { timeout: POLL_MS })
      .toContain('def user_town');

    // Another window (or the CLI, or MCP) saves v2 while this one has v1 open.
    const other = source('city')
      .replace('def user_city', 'def user_town')
      .replace('["city"]', '["city"].upper()');
    await skills.save({
      sandbox: 'ecommerce',
      name: 'user_town',
      source: other,
      tests: [{ args: { user_id: 'u1' }, assert: [] }],
      force: true,
    });

    await setSource(
      source('city').replace('def user_city', 'def user_town').replace('["city"]', '["city"].lower()'),
    );
    await expect
      .poll(() => page.getByTestId('skill-check').getAttribute('data-valid'), { timeout: POLL_MS })
      .toBe('true');
    await editor.getByRole('button', { name: 'Save new version' }).click();
    const refused = editor.locator('[role="alert"]', { hasText: 'your edit was not saved' });
    await refused.waitFor({ timeout: POLL_MS });
    expect(await refused.innerText()).toBe(
      'skill user_town of sandbox ecommerce is at v2 now: it was saved again since you opened v1; your edit was not saved, so as not to replace that version: open the skill again and make your edit there (copy your text first)',
    );
    expect(skills.get('ecommerce', 'user_town')).toMatchObject({ version: 2, source: other });
    skills.delete('ecommerce', 'user_town');
  });

  it('a new skill named like a saved one: Save waits until "save this as its new version" is ticked, then saves v2', async () => {
    const { page } = w;
    const skills = w.svc.skills();
    const tests = [{ args: { user_id: 'u1' }, assert: [{ type: 'equals' as const, value: 'London' }] }];
    await skills.save({
      sandbox: 'ecommerce',
      name: 'user_place',
      source: source('city').replace('def user_city', 'def user_place'),
      tests,
    });
    await dismissNotices();
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Runs' }).click();
    await expect.poll(() => hash()).not.toMatch(/^#\/skills/);
    await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'Skills' }).click();
    await page.locator('tr[data-skill="user_place"]').waitFor({ timeout: POLL_MS });
    await newSkillSandbox().selectOption('ecommerce');
    // The file's last case leaves an edit it could not save open: dropped (the page asks first).
    const dialogs = recordDialogs(page);
    dialogs.answer(true);
    try {
      await page.getByRole('button', { name: 'New skill' }).click();
    } finally {
      dialogs.stop();
    }
    const editor = page.getByTestId('skill-editor');
    await expect.poll(() => editor.getAttribute('data-mode'), { timeout: POLL_MS }).toBe('new');
    await editor
      .locator('[data-testid="editor-skill-source"][data-ready="true"]')
      .waitFor({ timeout: 60_000 });
    await editor.getByLabel('name', { exact: true }).fill('user_place');
    const save = editor.getByRole('button', { name: 'Save', exact: true });
    // Said before any Save, and Save waits: it used to answer "use --force", the CLI's flag.
    const why = editor.getByTestId('save-problem');
    await why.waitFor({ timeout: POLL_MS });
    expect(await why.innerText()).toBe(
      'A skill named user_place exists in sandbox ecommerce: tick "save this as its new version" above, or choose another name.',
    );
    expect(await save.isDisabled()).toBe(true);
    const replaces = editor.getByTestId('skill-replaces');
    expect(await replaces.isChecked()).toBe(false);

    await setSource(
      source('city').replace('def user_city', 'def user_place').replace('["city"]', '["city"].upper()'),
    );
    await expect
      .poll(() => page.getByTestId('skill-check').getAttribute('data-valid'), { timeout: POLL_MS })
      .toBe('true');
    await replaces.check();
    await expect.poll(() => save.isEnabled()).toBe(true);
    expect(await why.count()).toBe(0);
    await save.click();
    await expect.poll(() => hash(), { timeout: 120_000 }).toBe('#/skills/ecommerce%2Fuser_place');
    await expect.poll(() => editor.getAttribute('data-mode')).toBe('edit');
    expect(skills.get('ecommerce', 'user_place')).toMatchObject({ version: 2 });
    expect(skills.get('ecommerce', 'user_place').source).toContain('.upper()');
    skills.delete('ecommerce', 'user_place');
    noPageErrors();
  });
});

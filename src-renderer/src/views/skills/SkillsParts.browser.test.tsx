import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import type { SkillView } from '../../../../src-main/contract/api.ts';
import {
  DraftHead,
  MakeSkill,
  ProposalInfo,
  SkillActions,
  SkillCheckPanel,
  SkillsHead,
  SkillsTable,
  SkillTestResults,
  TryPanel,
  SkillsEmpty,
} from './SkillsParts.tsx';
import { draftOf } from './skills.ts';

const skill = (name: string, over: Partial<SkillView> = {}): SkillView => ({
  name,
  sandbox: 'ecommerce',
  language: 'python',
  version: 2,
  file: `/w/skills/ecommerce/${name}.py`,
  source: `def ${name}(user_id: str) -> str:\n    return user_id\n`,
  description: `What ${name} does.`,
  signature: `${name}(user_id: str) -> str`,
  parameters: [],
  tools: ['get_user'],
  grade: { w: 1, d: 0 },
  tests: [{ args: { user_id: 'u1' }, assert: [] }],
  status: 'passed',
  failures: [],
  testedAt: null,
  versions: [1],
  ...over,
});

describe('SkillsTable', () => {
  it('lists skills per sandbox with version, grade and state, and opens one', async () => {
    const onOpen = vi.fn();
    const failing = skill('b', { status: 'failed', failures: ['case 1: wrong'] });
    const screen = await render(
      <SkillsTable
        skills={[failing, skill('a'), skill('c', { sandbox: 'users', status: 'untested', version: 1 })]}
        selected={{ sandbox: 'ecommerce', name: 'a' }}
        onOpen={onOpen}
      />,
    );
    const groups = screen.container.querySelectorAll('tbody');
    expect([...groups].map((g) => g.dataset.sandbox)).toEqual(['ecommerce', 'users']);
    const b = screen.getByRole('row').filter({ hasText: 'What b does.' });
    await expect.element(b.getByTestId('skill-status')).toMatchTextContent('failing');
    await expect.element(b.getByTestId('skill-status')).toHaveAttribute('title', 'case 1: wrong');
    await expect.element(b.getByTestId('skill-version')).toMatchTextContent('v2');
    await expect
      .element(screen.getByRole('row').filter({ hasText: 'What c does.' }).getByTestId('skill-status'))
      .toMatchTextContent('untested');
    await expect
      .element(screen.getByRole('button', { name: 'a', exact: true }))
      .toHaveAttribute('aria-current', 'true');
    expect(b.element().querySelector('[data-grade]')?.getAttribute('data-grade')).toBe('1,0');
    await b.getByRole('button', { name: 'b', exact: true }).click();
    expect(onOpen).toHaveBeenCalledWith(failing);
  });
});

describe('SkillsHead', () => {
  it('makes a new skill in the chosen sandbox', async () => {
    const onNew = vi.fn();
    const screen = await render(
      <SkillsHead loading={false} sandboxes={['ecommerce', 'users']} onReload={vi.fn()} onNew={onNew} />,
    );
    await screen.getByRole('button', { name: 'New skill' }).click();
    // (named by its visible label, as a screen reader reads it)
    await screen.getByLabelText('sandbox', { exact: true }).selectOptions('users');
    await screen.getByRole('button', { name: 'New skill' }).click();
    expect(onNew.mock.calls).toEqual([['ecommerce'], ['users']]);
  });
});

describe('DraftHead', () => {
  it('a new skill has a name input; a saved one shows its version and history', async () => {
    const onEdit = vi.fn();
    const screen = await render(
      <DraftHead
        draft={{ mode: 'new', sandbox: 'ecommerce', name: 'x', language: 'python', source: '', tests: '[]' }}
        saved={undefined}
        sandboxes={['ecommerce']}
        onEdit={onEdit}
        onLanguage={vi.fn()}
      />,
    );
    await screen.getByLabelText('name', { exact: true }).fill('city_of');
    expect(onEdit).toHaveBeenLastCalledWith('name', 'city_of');
    await screen.getByLabelText('sandbox', { exact: true }).selectOptions('ecommerce');
    expect(onEdit).toHaveBeenLastCalledWith('sandbox', 'ecommerce');
    const s = skill('who', { versions: [1] });
    const saved = await render(
      <DraftHead draft={draftOf(s)} saved={s} sandboxes={[]} onEdit={onEdit} onLanguage={vi.fn()} />,
    );
    await expect.element(saved.getByText('v2', { exact: true })).toBeInTheDocument();
    await expect.element(saved.getByText('earlier: v1')).toBeInTheDocument();
  });
});

describe('DraftHead language select', () => {
  it('shows the draft language and reports the chosen one', async () => {
    const onLanguage = vi.fn();
    const screen = await render(
      <DraftHead
        draft={{ mode: 'new', sandbox: 'ecommerce', name: 'x', language: 'python', source: '', tests: '[]' }}
        saved={undefined}
        sandboxes={['ecommerce']}
        onEdit={vi.fn()}
        onLanguage={onLanguage}
      />,
    );
    const select = screen.getByLabelText('language', { exact: true });
    await expect.element(select).toHaveValue('python');
    await select.selectOptions('JavaScript');
    await select.selectOptions('TypeScript');
    expect(onLanguage.mock.calls).toEqual([['js'], ['ts']]);
  });

  it('a saved skill shows its own language', async () => {
    const s = skill('who', { language: 'ts' });
    const saved = await render(
      <DraftHead draft={draftOf(s)} saved={s} sandboxes={[]} onEdit={vi.fn()} onLanguage={vi.fn()} />,
    );
    await expect.element(saved.getByLabelText('language', { exact: true })).toHaveValue('ts');
  });
});

describe('SkillCheckPanel', () => {
  it('shows the signature when valid, and problems and violations (that jump) when not', async () => {
    const ok = await render(
      <SkillCheckPanel
        check={{
          valid: true,
          problems: [],
          violations: [],
          tools: ['get_user'],
          signature: 'f(x: str) -> str',
          grade: { w: 1, d: 0 },
        }}
        onJump={vi.fn()}
      />,
    );
    await expect.element(ok.getByTestId('skill-valid')).toMatchTextContent('f(x: str) -> str');
    await expect.element(ok.getByTestId('skill-valid')).toMatchTextContent('calls get_user');
    const onJump = vi.fn();
    const v = { rule: 'forbidden-import', message: 'imports are not allowed', line: 3, column: 5 };
    const bad = await render(
      <SkillCheckPanel
        check={{ valid: false, problems: ['no docstring'], violations: [v as never], tools: [] }}
        onJump={onJump}
      />,
    );
    const list = bad.getByRole('list', { name: 'skill problems' });
    await expect.element(list).toMatchTextContent('no docstring');
    await expect.element(list).toMatchTextContent('forbidden-import');
    await list.getByRole('button', { name: 'line 3:5' }).click();
    expect(onJump).toHaveBeenCalledWith(v);
  });
});

describe('SkillTestResults', () => {
  it('shows each case with its verdicts and the result', async () => {
    const screen = await render(
      <SkillTestResults
        result={{
          name: 'who',
          sandbox: 'ecommerce',
          passed: false,
          failures: ['case 2: expected 2, got 3'],
          cases: [
            {
              args: { a: 1 },
              passed: true,
              result: 1,
              verdicts: [{ type: 'equals', passed: true, message: 'equals 1' }],
            },
            {
              args: { a: 2 },
              passed: false,
              result: 3,
              verdicts: [{ type: 'equals', passed: false, message: 'expected 2, got 3' }],
            },
          ],
        }}
      />,
    );
    await expect.element(screen.getByTestId('skill-test-results')).toMatchTextContent('1 of 2 cases failed');
    const second = screen.getByRole('list', { name: 'verdicts of case 2' });
    await expect.element(second).toMatchTextContent('✗ expected 2, got 3');
    await expect.element(screen.getByRole('list', { name: 'verdicts of case 1' })).toMatchTextContent('✓');
    expect(screen.container.querySelector('[data-case="1"]')?.getAttribute('data-passed')).toBe('false');
  });
});

describe('TryPanel and SkillActions', () => {
  it('tries with arguments and shows the result or the error', async () => {
    const onTry = vi.fn();
    const onArgs = vi.fn();
    const screen = await render(
      <TryPanel
        args="{}"
        result={{ args: {}, passed: false, error: 'ValueError: no user', verdicts: [] }}
        busy={false}
        onArgs={onArgs}
        onTry={onTry}
      />,
    );
    await screen.getByLabelText('arguments (JSON object)', { exact: true }).fill('{"a": 1}');
    expect(onArgs).toHaveBeenLastCalledWith('{"a": 1}');
    await screen.getByRole('button', { name: 'Try it' }).click();
    expect(onTry).toHaveBeenCalled();
    await expect.element(screen.getByRole('alert')).toMatchTextContent('ValueError: no user');
  });

  it('runs tests only on a saved, unchanged skill; delete asks first', async () => {
    const a = {
      onSave: vi.fn(),
      onTest: vi.fn(),
      onConfirmDelete: vi.fn(),
      onDelete: vi.fn(),
      onClose: vi.fn(),
    };
    const d = draftOf(skill('who'));
    const dirty = await render(
      <SkillActions draft={d} dirty busy={undefined} confirmDelete={false} {...a} />,
    );
    await expect.element(dirty.getByRole('button', { name: 'Run tests' })).toBeDisabled();
    // Why, in words beside it (a tooltip only before), and read with the button.
    await expect.element(dirty.getByTestId('test-problem')).toBeVisible();
    expect(dirty.getByTestId('test-problem').element().textContent).toBe(
      'Save first: the tests run on the saved skill.',
    );
    await expect
      .element(dirty.getByRole('button', { name: 'Run tests' }))
      .toHaveAccessibleDescription('Save first: the tests run on the saved skill.');
    await dirty.getByRole('button', { name: 'Save new version' }).click();
    expect(a.onSave).toHaveBeenCalled();
    await dirty.getByRole('button', { name: 'Delete' }).click();
    expect(a.onConfirmDelete).toHaveBeenCalledWith(true);
    await dirty.unmount();
    const clean = await render(
      <SkillActions draft={d} dirty={false} busy={undefined} confirmDelete {...a} />,
    );
    await expect.element(clean.getByRole('button', { name: 'Save new version' })).toBeDisabled();
    expect(clean.getByTestId('test-problem').query()).toBeNull();
    await clean.getByRole('button', { name: 'Run tests' }).click();
    expect(a.onTest).toHaveBeenCalled();
    await clean.getByRole('button', { name: 'Yes, delete' }).click();
    expect(a.onDelete).toHaveBeenCalled();
  });
});

it('a new skill, not saved yet: Run tests says why it waits (it said nothing, not even a tooltip)', async () => {
  const noop = () => {};
  const d = { ...draftOf(skill('who')), mode: 'new' as const };
  const screen = await render(
    <SkillActions
      draft={d}
      dirty={false}
      busy={undefined}
      confirmDelete={false}
      onSave={noop}
      onTest={noop}
      onConfirmDelete={noop}
      onDelete={noop}
      onClose={noop}
    />,
  );
  await expect.element(screen.getByRole('button', { name: 'Run tests' })).toBeDisabled();
  await expect
    .element(screen.getByRole('button', { name: 'Run tests' }))
    .toHaveAccessibleDescription('Save first: the tests run on the saved skill.');
});

describe('MakeSkill and ProposalInfo', () => {
  it('sends a valid line range only', async () => {
    const onMake = vi.fn();
    const screen = await render(<MakeSkill lines={4} onMake={onMake} />);
    await screen.getByLabelText('skill from line').fill('3');
    await screen.getByLabelText('skill to line').fill('2');
    await expect.element(screen.getByRole('button', { name: 'Make a skill' })).toBeDisabled();
    await screen.getByLabelText('skill to line').fill('4');
    await screen.getByRole('button', { name: 'Make a skill' }).click();
    expect(onMake).toHaveBeenCalledWith(3, 4);
  });

  it('takes the lines selected in the editor as its range', async () => {
    const onMake = vi.fn();
    const screen = await render(<MakeSkill lines={5} onMake={onMake} />);
    await expect.element(screen.getByLabelText('skill to line')).toHaveValue(5);
    await screen.rerender(<MakeSkill lines={5} onMake={onMake} selection={{ start: 2, end: 3 }} />);
    await expect.element(screen.getByLabelText('skill from line')).toHaveValue(2);
    await expect.element(screen.getByLabelText('skill to line')).toHaveValue(3);
    await screen.getByRole('button', { name: 'Make a skill' }).click();
    expect(onMake).toHaveBeenCalledWith(2, 3);
  });

  it('shows the proposal, or why there is none', async () => {
    const from = { runId: '0123456789ab', attempt: 1, start: 1, end: 3 };
    const screen = await render(
      <ProposalInfo
        fromRun={{
          from,
          proposal: {
            name: 'spent_by',
            language: 'js',
            source: '',
            parameters: [{ name: 'value1', type: 'str', value: 'u2', from: 'task' }],
            returns: ['spent'],
            tests: [{ args: { value1: 'u2' }, assert: [] }],
            sandbox: 'ecommerce',
            origin: from.runId,
          },
        }}
        onBackToRun={vi.fn()}
      />,
    );
    await expect
      .element(screen.getByTestId('skill-proposal'))
      .toMatchTextContent('lines 1–3 of run 01234567');
    await expect
      .element(screen.getByTestId('skill-proposal'))
      .toMatchTextContent(/a JavaScript skill\. JS and TS scripts of ecommerce/);
    await expect.element(screen.getByRole('row').filter({ hasText: 'value1' })).toMatchTextContent('"u2"');
    await expect.element(screen.getByTestId('skill-proposal')).toMatchTextContent('returns: spent');
    await screen.unmount();
    const onBack = vi.fn();
    const failed = await render(
      <ProposalInfo fromRun={{ from, error: 'line 9 is past the end' }} onBackToRun={onBack} />,
    );
    await expect.element(failed.getByRole('alert')).toMatchTextContent('line 9 is past the end');
    await failed.getByRole('button', { name: 'Back to the run' }).click();
    expect(onBack).toHaveBeenCalled();
  });

  it('says what the function returns when the lines emit, and calls it by the name as renamed', async () => {
    const from = { runId: '0123456789ab', attempt: 1, start: 1, end: 4 };
    const proposal = {
      name: 'new_skill',
      language: 'python' as const,
      source: '',
      parameters: [{ name: 'value1', type: 'str', value: 'u2', from: 'task' as const }],
      returns: [],
      emitted: ['spent'],
      tests: [{ args: { value1: 'u2' }, assert: [] }],
      sandbox: 'ecommerce',
      origin: from.runId,
    };
    const screen = await render(<ProposalInfo fromRun={{ from, proposal }} onBackToRun={vi.fn()} />);
    const banner = screen.getByTestId('skill-proposal');
    // It said "returns: nothing the script used later" of a function that returns what was emitted.
    await expect
      .element(screen.getByTestId('proposal-returns'))
      .toHaveTextContent('what the script passed to emit_result: spent');
    expect(banner.element().textContent).not.toContain('nothing the script used later');
    await expect.element(banner).toMatchTextContent('call new_skill(…)');
    // Renamed in the draft: the call follows (it still said new_skill).
    await screen.rerender(
      <ProposalInfo fromRun={{ from, proposal }} name="spent_by" onBackToRun={vi.fn()} />,
    );
    await expect.element(banner).toMatchTextContent('call spent_by(…)');
    expect(banner.element().textContent).not.toContain('new_skill');
    // A JS proposal names emitResult; one with no emitted value (kept by an older page) the used names.
    await screen.rerender(
      <ProposalInfo
        fromRun={{ from, proposal: { ...proposal, language: 'js', emitted: ['{ spent }', 'n'] } }}
        onBackToRun={vi.fn()}
      />,
    );
    await expect
      .element(screen.getByTestId('proposal-returns'))
      .toHaveTextContent('what the script passed to emitResult: { spent } or n');
    const { emitted: _e, ...older } = proposal;
    await screen.rerender(
      <ProposalInfo fromRun={{ from, proposal: { ...older, returns: ['spent'] } }} onBackToRun={vi.fn()} />,
    );
    await expect.element(screen.getByTestId('proposal-returns')).toHaveTextContent('spent');
  });
});

describe('SkillsEmpty', () => {
  it('says how to make a skill', async () => {
    const screen = await render(<SkillsEmpty />);
    expect(screen.getByTestId('skills-empty').element().textContent).toContain('Write one with “New skill”');
  });

  it('with no sandbox (New skill off): where to start instead', async () => {
    const screen = await render(<SkillsEmpty noSandbox />);
    const text = screen.getByTestId('skills-empty').element().textContent ?? '';
    expect(text).toContain('this workspace has no sandboxes');
    expect(text).not.toContain('New skill');
    expect(screen.getByRole('link', { name: 'Workspace' }).element().getAttribute('href')).toBe(
      '#/workspace',
    );
  });
});

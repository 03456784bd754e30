import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import type { AttemptView } from '../../../../src-main/contract/api.ts';
import { ApprovalsPanel, LlmPanel, Traceback } from './AttemptPanels.tsx';

const attempt = (llmErrors: { provider: string; message: string }[]) =>
  ({
    n: 1,
    llm: undefined,
    corrections: [],
    retries: [],
    llmErrors: llmErrors.map((e) => ({ ...e, retries: [] })),
  }) as unknown as AttemptView;

describe('LlmPanel', () => {
  it('names the provider of an LLM error once', async () => {
    const screen = await render(
      <LlmPanel
        a={attempt([
          { provider: 'local', message: 'local: connection failed: ECONNREFUSED http://127.0.0.1:9/v1' },
          { provider: 'cloud', message: 'rate limited' },
        ])}
        live={undefined}
      />,
    );
    const errors = screen
      .getByTestId('llm-error')
      .elements()
      .map((e) => e.textContent);
    expect(errors).toEqual([
      'local: connection failed: ECONNREFUSED http://127.0.0.1:9/v1',
      'cloud: rate limited',
    ]);
  });
});

describe('LlmPanel: an answer whose text did not run', () => {
  const answer = (extra: Record<string, unknown>, text = '') => ({
    provider: 'cloud',
    model: 'm',
    text,
    promptTokens: 10,
    completionTokens: 2,
    latencyMs: 300,
    retries: [],
    ...extra,
  });
  const notes = async (llm: unknown, corrections: unknown[] = []) => {
    const a = { ...attempt([]), llm, corrections } as unknown as AttemptView;
    const screen = await render(<LlmPanel a={a} live={undefined} />);
    const found = [...screen.container.querySelectorAll('[data-testid="llm-answer-note"]')].map(
      (e) => e.textContent,
    );
    await screen.unmount();
    return found;
  };

  it("says why: the model's refusal, a content filter, a function call, a cut at max_tokens", async () => {
    // Before: an empty box under the token counts, nothing said.
    expect(await notes(answer({ withheld: 'the model refused ("No.")' }))).toEqual([
      'Not the model\'s text: the model refused ("No."). Its script was not run.',
    ]);
    expect(
      await notes(
        answer({ truncated: { reason: 'finish_reason: length', maxTokens: 2048 } }, '```python\nx = '),
      ),
    ).toEqual(['Cut at the token limit (finish_reason: length, max_tokens 2048): its script was not run.']);
    expect(await notes(answer({}))).toEqual(['The answer held no text.']);
    expect(await notes(answer({}, '```python\nemit_result(1)\n```'))).toEqual([]);
  });

  it('a correction says it too', async () => {
    const filtered = "the provider's content filter stopped the answer (finish_reason: content_filter)";
    expect(await notes(answer({}, 'x'), [answer({ withheld: filtered }, 'emit_result(')])).toEqual([
      `Not the model's text: ${filtered}. Its script was not run.`,
    ]);
  });
});

describe('ApprovalsPanel', () => {
  it('lists each answer with its tool, line, who answered and why a call was refused', async () => {
    const a = {
      approvals: [
        { n: 1, tool: 'add_note', args: {}, line: 2, approved: true, via: 'workbench', waitedMs: 1200 },
        {
          n: 1,
          tool: 'add_note',
          args: {},
          approved: false,
          via: 'cli',
          reason: 'refused on the terminal',
          waitedMs: 5,
        },
      ],
    } as unknown as AttemptView;
    const screen = await render(<ApprovalsPanel a={a} />);
    const rows = screen
      .getByTestId('approval-row')
      .elements()
      .map((e) => [...e.querySelectorAll('td')].map((td) => td.textContent));
    expect(rows[0]?.slice(0, 4)).toEqual(['add_note', '2', 'allowed', 'workbench']);
    expect(rows[1]?.slice(0, 4)).toEqual(['add_note', '', 'refused (refused on the terminal)', 'cli']);
  });

  it('shows nothing for an attempt without approvals', async () => {
    const screen = await render(<ApprovalsPanel a={{} as unknown as AttemptView} />);
    expect(screen.container.querySelector('table')).toBeNull();
  });
});

describe('Traceback', () => {
  it('a frame inside a skill names the skill and its line there, and opens the skill (not a script line)', async () => {
    const a = {
      execution: {
        error: {
          type: 'ValueError',
          message: "no user with id 'u9'",
          frames: [
            { line: 2, name: '<script>', text: 'emit_result(city_of(user_id="u9"))' },
            { line: 12, name: 'city_of', skill: 'city_of', text: 'raise ValueError(r.message)' },
          ],
        },
      },
    } as unknown as AttemptView;
    const jumps: number[] = [];
    const opened: string[] = [];
    const screen = await render(
      <Traceback
        a={a}
        onJump={(l) => jumps.push(l)}
        onJumpTools={() => {}}
        onOpenSkill={(s) => opened.push(s)}
      />,
    );
    const skillFrame = screen.getByRole('button', { name: 'skill city_of line 12, in city_of' });
    await expect.element(skillFrame).toBeVisible();
    await skillFrame.click();
    expect(opened).toEqual(['city_of']);
    expect(jumps).toEqual([]);
    await screen.getByRole('button', { name: 'line 2, in <script>' }).click();
    expect(jumps).toEqual([2]);
  });
});

describe('a timeout or running out of memory', () => {
  it('names the way out under the error; another error gets none', async () => {
    const ended = (exitReason: string, type: string, message: string) =>
      ({ execution: { exitReason, error: { type, message, frames: [] } } }) as unknown as AttemptView;
    const props = { onJump: () => {}, onJumpTools: () => {} };
    let screen = await render(
      <Traceback a={ended('timeout', 'Timeout', 'the script ran past its 3 s time limit')} {...props} />,
    );
    const tb = screen.getByRole('region', { name: 'traceback' });
    await expect.element(tb).toBeVisible();
    expect(tb.element().textContent).toContain('Timeout: the script ran past its 3 s time limit');
    expect(screen.getByTestId('error-fix').element().textContent).toContain('raise "Timeout (s)" in New run');
    await screen.unmount();
    screen = await render(
      <Traceback
        a={ended('oom', 'OutOfMemory', 'the sandbox ran out of memory and was killed')}
        {...props}
      />,
    );
    await expect.element(screen.getByRole('region', { name: 'traceback' })).toBeVisible();
    expect(screen.getByTestId('error-fix').element().textContent).toContain('[limits] memory_mb');
    await screen.unmount();
    screen = await render(<Traceback a={ended('error', 'KeyError', '0')} {...props} />);
    await expect.element(screen.getByRole('region', { name: 'traceback' })).toBeVisible();
    expect(screen.container.querySelector('[data-testid="error-fix"]')).toBeNull();
  });
});

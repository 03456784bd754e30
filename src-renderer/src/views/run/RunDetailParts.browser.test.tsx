import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { attemptState, originLabel, runActions, runOutcome } from './run-detail.ts';
import { derive, events } from './run-fixture.ts';
import { AttemptToolbar, RunMeta, RunOpenError, RunOutcomePanel } from './RunDetailParts.tsx';
import { Timeline } from './Timeline.tsx';
import '../../styles.css';

const noop = () => {};
const handlers = () => ({
  onTemplate: vi.fn(),
  onOrigin: vi.fn(),
  onCancel: vi.fn(),
  onReplay: vi.fn(),
  onExport: vi.fn(),
  onSendTrace: vi.fn(),
  onDelete: vi.fn(),
});

describe('the run head', () => {
  it('a running run can be cancelled, not replayed or deleted, and its duration counts to now', async () => {
    const run = derive(events(2));
    const h = handlers();
    const screen = await render(
      <RunMeta run={run} now={run.startedAt + 2500} origin={undefined} actions={runActions(run)} {...h} />,
    );
    await expect.element(screen.getByTestId('run-duration')).toHaveTextContent('2.5 s');
    await expect.element(screen.getByRole('button', { name: 'Replay' })).toBeDisabled();
    await expect.element(screen.getByRole('button', { name: 'Delete' })).toBeDisabled();
    await screen.getByRole('button', { name: 'Cancel' }).click();
    expect(h.onCancel).toHaveBeenCalledOnce();
  });

  it('an ended run replays, links its origin and template, and asks before deleting', async () => {
    const base = derive(events(1, true));
    const run = {
      ...base,
      template: 'orders',
      started: { ...base.started, origin: { kind: 'replay' as const, runId: 'abcdef0123456789' } },
    };
    const h = handlers();
    const screen = await render(
      <RunMeta run={run} now={0} origin={originLabel(run.started.origin)} actions={runActions(run)} {...h} />,
    );
    expect(screen.container.querySelector('button.danger')?.textContent).toBe('Delete');
    await screen.getByRole('button', { name: 'Replay' }).click();
    expect(h.onReplay).toHaveBeenCalledOnce();
    await screen.getByTestId('run-origin').click();
    expect(h.onOrigin).toHaveBeenCalledWith('abcdef0123456789');
    await expect.element(screen.getByTestId('run-origin')).toHaveTextContent('replay of abcdef01');
    await screen.getByRole('button', { name: 'orders' }).click();
    expect(h.onTemplate).toHaveBeenCalledWith('orders');

    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    await screen.getByRole('button', { name: 'Delete' }).click();
    expect(h.onDelete).not.toHaveBeenCalled();
    await screen.getByRole('button', { name: 'Delete' }).click();
    expect(h.onDelete).toHaveBeenCalledOnce();
    confirm.mockRestore();
  });

  it('a run a template served says beside its disabled Replay why, and Replay is described by it', async () => {
    const base = derive(events(1, true));
    const run = {
      ...base,
      template: 'user-name',
      tier: 'template' as const,
      attempts: base.attempts.map((a) => ({ ...a, llm: undefined })),
    };
    const screen = await render(
      <RunMeta run={run} now={0} origin={undefined} actions={runActions(run)} {...handlers()} />,
    );
    const replay = screen.getByRole('button', { name: 'Replay' });
    await expect.element(replay).toBeDisabled();
    const why = 'Nothing to replay: the template user-name served this run, no LLM output was recorded.';
    await expect.element(screen.getByTestId('replay-why')).toBeVisible();
    await expect.element(screen.getByTestId('replay-why')).toHaveTextContent(why);
    await expect.element(replay).toHaveAccessibleDescription(why);
  });

  it('an open error offers the way back', async () => {
    const onBack = vi.fn();
    const screen = await render(<RunOpenError runId="r-9" error="no such run" onBack={onBack} />);
    await expect.element(screen.getByRole('alert')).toHaveTextContent('Could not open run r-9: no such run');
    await screen.getByRole('button', { name: 'Back to runs' }).click();
    expect(onBack).toHaveBeenCalledOnce();
  });
});

describe('the run outcome', () => {
  it('shows the result as a tree, an error as an alert, or the interruption note', async () => {
    const ok = await render(<RunOutcomePanel outcome={runOutcome(derive(events(1, true)))} />);
    await expect.element(ok.getByTestId('run-result')).toMatchTextContent('total');
    await ok.unmount();
    const failed = await render(
      <RunOutcomePanel
        outcome={runOutcome({ status: 'failed', error: 'KeyError: qty', result: undefined })}
        templateMiss={{ reason: 'no template matches' }}
      />,
    );
    await expect.element(failed.getByRole('alert')).toHaveTextContent('Error: KeyError: qty');
    await expect.element(failed.getByTestId('template-miss')).toMatchTextContent('no template matches');
    await failed.unmount();
    const cut = await render(
      <RunOutcomePanel outcome={runOutcome({ status: 'interrupted', result: undefined })} />,
    );
    await expect.element(cut.getByTestId('run-error')).toMatchTextContent('This run was interrupted');
    expect(cut.container.querySelector('[role="alert"]')).toBeNull();
  });
});

describe('the attempt toolbar', () => {
  const running = derive(events(2));
  const done = derive(events(2, true));
  const a = done.attempts[1]!;

  it('an edited script of an ended PLAN run runs, continues and resets', async () => {
    const onRun = vi.fn();
    const onContinue = vi.fn();
    const onReset = vi.fn();
    const screen = await render(
      <AttemptToolbar
        state={attemptState(done, a, 'emit_result(22)', undefined)}
        onRun={onRun}
        onContinue={onContinue}
        onReset={onReset}
        onPromote={noop}
      />,
    );
    await expect.element(screen.getByTestId('script-caption')).toMatchTextContent('· edited');
    await screen.getByRole('button', { name: 'Run script' }).click();
    await screen.getByRole('button', { name: 'Continue from here' }).click();
    await screen.getByRole('button', { name: 'Reset' }).click();
    expect([onRun, onContinue, onReset].map((f) => f.mock.calls.length)).toEqual([1, 1, 1]);
    await expect.element(screen.getByRole('button', { name: 'Promote to template' })).toBeDisabled();
  });

  it('while the LLM streams, nothing runs; a running run does not continue', async () => {
    const streaming = await render(
      <AttemptToolbar
        state={attemptState(running, { script: undefined, execution: undefined }, '', 'emit_')}
        onRun={noop}
        onContinue={noop}
        onReset={noop}
        onPromote={noop}
      />,
    );
    await expect
      .element(streaming.getByTestId('script-caption'))
      .toHaveTextContent('Streaming from the LLM…');
    await expect.element(streaming.getByRole('button', { name: 'Run script' })).toBeDisabled();
    await expect.element(streaming.getByRole('button', { name: 'Continue from here' })).toBeDisabled();
    expect(streaming.container.textContent).not.toContain('Reset');
  });

  it('a script that succeeded can be promoted and offers making a skill', async () => {
    const onPromote = vi.fn();
    const ok = { script: a.script, execution: { success: true } as never };
    const screen = await render(
      <AttemptToolbar
        state={attemptState(done, ok, a.script!.body, undefined)}
        makeSkill={<button>Make a skill</button>}
        onRun={noop}
        onContinue={noop}
        onReset={noop}
        onPromote={onPromote}
      />,
    );
    await screen.getByRole('button', { name: 'Promote to template' }).click();
    expect(onPromote).toHaveBeenCalledOnce();
    await expect.element(screen.getByRole('button', { name: 'Make a skill' })).toBeVisible();
    const interactive = { ...done, started: { ...done.started, mode: 'interactive' as const } };
    await screen.rerender(
      <AttemptToolbar
        state={attemptState(interactive, a, a.script!.body, undefined)}
        makeSkill={<button>Make a skill</button>}
        onRun={noop}
        onContinue={noop}
        onReset={noop}
        onPromote={noop}
      />,
    );
    expect(screen.container.textContent).not.toContain('Continue from here');
    expect(screen.container.textContent).not.toContain('Make a skill');
  });

  it('an edited script: Make a skill waits for a Reset and says why (its lines were taken from the recorded script)', async () => {
    const ok = { script: a.script, execution: { success: true } as never };
    const screen = await render(
      <AttemptToolbar
        state={attemptState(done, ok, `# a line added on top\n${a.script!.body}`, undefined)}
        makeSkill={<button>Make a skill</button>}
        onRun={noop}
        onContinue={noop}
        onReset={noop}
        onPromote={noop}
      />,
    );
    await expect
      .element(screen.getByTestId('make-skill-why'))
      .toHaveTextContent('A skill is made of lines of the recorded script: Reset the edits to choose them.');
    expect(screen.container.textContent).not.toContain('Make a skill');
    await expect.element(screen.getByRole('button', { name: 'Reset' })).toBeVisible();
  });
});

/** An ended INTERACTIVE run of three failed steps, the third a repeat of the first (its `repeats`). */
function repeatingRun() {
  const base = derive(events(3, true));
  return {
    ...base,
    status: 'failed' as const,
    started: { ...base.started, mode: 'interactive' as const },
    attempts: base.attempts.map((a) => ({
      ...a,
      execution: { success: false, exitReason: 'error', durationMs: 5, logs: [], intermediates: [] } as never,
      step: {
        n: a.n,
        summary: 'KeyError: name',
        stagnant: false,
        final: false,
        ...(a.n === 3 ? { repeats: 1 } : {}),
      },
    })),
  };
}

describe('an INTERACTIVE step that repeats an earlier one', () => {
  it('the timeline says which step it repeats, in the name a screen reader reads', async () => {
    const screen = await render(<Timeline run={repeatingRun()} selected={3} onSelect={noop} />);
    await expect
      .element(screen.getByRole('button', { name: /Step 3.*repeats step 1/ }))
      .toHaveAttribute('aria-current', 'step');
    await expect.element(screen.getByTestId('step-repeats')).toHaveTextContent('repeats step 1');
    // Only the step that repeated one carries it.
    expect(document.querySelectorAll('[data-testid="step-repeats"]').length).toBe(1);
  });
});

describe('Promote on a failed step', () => {
  it('says beside the disabled button why, and the button is described by it', async () => {
    const run = repeatingRun();
    const step = run.attempts[1]!;
    const screen = await render(
      <AttemptToolbar
        state={attemptState(run, step, step.script!.body, undefined)}
        onRun={noop}
        onContinue={noop}
        onReset={noop}
        onPromote={noop}
      />,
    );
    const promote = screen.getByRole('button', { name: 'Promote to template' });
    await expect.element(promote).toBeDisabled();
    const why = screen.getByTestId('promote-why');
    await expect.element(why).toBeVisible();
    await expect
      .element(why)
      .toHaveTextContent(
        "Not a template: this step's script failed; only a script that succeeded can be promoted.",
      );
    await expect
      .element(promote)
      .toHaveAccessibleDescription(
        "Not a template: this step's script failed; only a script that succeeded can be promoted.",
      );
  });
});

describe('the attempt toolbar in a narrow window', () => {
  it("at 1000 px (the script's column is ~580 px) every button keeps its label on one line", async () => {
    const run = repeatingRun();
    const step = run.attempts[1]!;
    const screen = await render(
      <div style={{ width: 580 }}>
        <AttemptToolbar
          state={attemptState(run, step, step.script!.body + '\n# edited', undefined)}
          onRun={noop}
          onContinue={noop}
          onReset={noop}
          onPromote={noop}
        />
      </div>,
    );
    await expect.element(screen.getByTestId('promote-why')).toBeVisible();
    const lines = [...document.querySelectorAll('.editor-toolbar > button')].map((b) => {
      const r = document.createRange();
      r.selectNodeContents(b);
      // One box per line the label takes.
      return [b.textContent, new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size];
    });
    expect(lines).toEqual(lines.map(([t]) => [t, 1]));
    expect(lines.map(([t]) => t)).toEqual(['Run script', 'Reset', 'Promote to template']);
  });
});

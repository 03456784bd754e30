import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import type { AttemptView } from '../../../../src-main/contract/api.ts';
import { ExecutionPanel } from './AttemptPanels.tsx';

const attempt = (error: { type: string; message: string }): AttemptView =>
  ({
    n: 1,
    corrections: [],
    llmErrors: [],
    retries: [],
    rejected: [],
    toolCalls: [],
    emits: [],
    execution: {
      success: false,
      exitReason: 'error',
      error: { ...error, frames: [] },
      durationMs: 12,
      isolation: 'docker',
      runtime: 'python',
      toolCalls: [],
      logs: [],
      intermediates: [],
    },
  }) as unknown as AttemptView;

describe('ExecutionPanel', () => {
  it('says how many tool calls past the bound are not recorded, and nothing when every one is', async () => {
    const base = attempt({ type: 'x', message: 'x' });
    const calls = Array.from({ length: 3 }, (_, i) => ({
      name: 'ping',
      args: { i },
      ms: 1,
      location: 'sandbox',
    }));
    const past = {
      ...base,
      toolCalls: calls,
      execution: { ...base.execution!, toolCalls: calls, toolCallsNotRecorded: 2950 },
    } as AttemptView;
    const shown = await render(<ExecutionPanel a={past} />);
    await expect
      .element(shown.getByTestId('tool-calls-not-recorded'))
      .toHaveTextContent('2950 more tool calls not recorded (past the first 3; limits.tool_calls)');
    await shown.unmount();
    const all = await render(<ExecutionPanel a={base} />);
    await expect.element(all.getByText('exit: error')).toBeVisible();
    expect(all.container.querySelector('[data-testid="tool-calls-not-recorded"]')).toBeNull();
  });

  it('says "cancelled" for a job the person cancelled, "error" for a script that raised', async () => {
    const cancelled = await render(
      <ExecutionPanel a={attempt({ type: 'Cancelled', message: 'the run was cancelled' })} />,
    );
    await expect.element(cancelled.getByText('exit: cancelled')).toBeVisible();
    await cancelled.unmount();
    const raised = await render(<ExecutionPanel a={attempt({ type: 'KeyError', message: "'b'" })} />);
    await expect.element(raised.getByText('exit: error')).toBeVisible();
  });

  it('says why an attempt that never ran has no execution, and "yet" only while it may still run', async () => {
    const none = { ...attempt({ type: 'x', message: 'x' }), execution: undefined } as AttemptView;
    const llm = await render(<ExecutionPanel a={none} outcome="llm_error" />);
    await expect.element(llm.getByText('Not executed: the LLM produced no script.')).toBeVisible();
    await llm.unmount();
    const cancelled = await render(<ExecutionPanel a={none} outcome="cancelled" />);
    await expect.element(cancelled.getByText('Not executed: the run was cancelled.')).toBeVisible();
    await cancelled.unmount();
    const pending = await render(<ExecutionPanel a={none} outcome="pending" />);
    await expect.element(pending.getByText('Not executed yet.')).toBeVisible();
  });

  it('says how many calls needing approval were refused without asking (limits.approvals)', async () => {
    const base = attempt({ type: 'ToolRefused', message: 'x' });
    const past = { ...base, execution: { ...base.execution!, approvalsNotAsked: 2975 } } as AttemptView;
    const shown = await render(<ExecutionPanel a={past} />);
    await expect
      .element(shown.getByTestId('approvals-not-asked'))
      .toHaveTextContent(
        "2975 calls needing approval refused without asking (past the job's bound of approval requests; limits.approvals)",
      );
    await shown.unmount();
    const all = await render(<ExecutionPanel a={base} />);
    await expect.element(all.getByText('exit: error')).toBeVisible();
    expect(all.container.querySelector('[data-testid="approvals-not-asked"]')).toBeNull();
  });

  it('says how many intermediates past the bound are not recorded (limits.intermediates)', async () => {
    const base = attempt({ type: 'x', message: 'x' });
    const past = {
      ...base,
      execution: { ...base.execution!, intermediates: [1, 2], intermediatesNotRecorded: 19_998 },
    } as AttemptView;
    const shown = await render(<ExecutionPanel a={past} />);
    await expect
      .element(shown.getByTestId('intermediates-not-recorded'))
      .toHaveTextContent('19998 more intermediates not recorded (past the first 2; limits.intermediates)');
    await shown.unmount();
    const all = await render(<ExecutionPanel a={base} />);
    await expect.element(all.getByText('exit: error')).toBeVisible();
    expect(all.container.querySelector('[data-testid="intermediates-not-recorded"]')).toBeNull();
  });

  it('shows a live event of several log lines as its text, line by line', async () => {
    const running = {
      ...attempt({ type: 'x', message: 'x' }),
      execution: undefined,
      emits: [
        { n: 1, kind: 'log', data: 'line 0\nline 1\nline 2', lines: 3 },
        { n: 1, kind: 'intermediate', data: { step: 1 } },
        { n: 1, kind: 'log', data: 'line 3' },
      ],
    } as unknown as AttemptView;
    const shown = await render(<ExecutionPanel a={running} />);
    const logs = shown.container.querySelectorAll('[data-testid="live-log"] pre');
    expect([...logs].map((p) => p.textContent)).toEqual(['line 0\nline 1\nline 2', 'line 3']);
    await expect.element(shown.getByText('log (3 lines)')).toBeVisible();
  });
});

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
  it('says "cancelled" for a job the person cancelled, "error" for a script that raised', async () => {
    const cancelled = await render(
      <ExecutionPanel a={attempt({ type: 'Cancelled', message: 'the run was cancelled' })} />,
    );
    await expect.element(cancelled.getByText('exit: cancelled')).toBeVisible();
    await cancelled.unmount();
    const raised = await render(<ExecutionPanel a={attempt({ type: 'KeyError', message: "'b'" })} />);
    await expect.element(raised.getByText('exit: error')).toBeVisible();
  });
});

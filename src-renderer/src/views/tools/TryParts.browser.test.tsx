import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import type { Response } from '../../../../src-main/contract/api.ts';
import { CallOutcome } from './TryParts.tsx';

/** A call whose tool raised in tools.py, called from the generated script's line 1. */
const raised = {
  result: {
    success: false,
    exitReason: 'error',
    error: {
      type: 'ValueError',
      message: 'bad size',
      frames: [
        { line: 1, name: '<script>', text: 'r = measure(size=-1)' },
        { line: 130, name: 'measure', text: 'raise ValueError("bad size")', file: 'tools.py' },
      ],
    },
    durationMs: 9,
    isolation: 'docker',
    runtime: 'python',
    toolCalls: [],
    logs: [],
    intermediates: [],
  },
} as unknown as Response<'tools.call'>;

describe('CallOutcome', () => {
  it("a traceback frame in tools.py opens that line of the editor; the call's own line does not", async () => {
    const jumps: number[] = [];
    const screen = await render(
      <CallOutcome call={raised} args={{ size: -1 }} onJump={(l) => jumps.push(l)} />,
    );
    const link = screen.getByRole('button', { name: 'line 130' });
    await link.click();
    expect(jumps).toEqual([130]);
    // The generated call's frame (line 1 of a script the person never sees) is text, not a link.
    expect(document.querySelectorAll('.frames button')).toHaveLength(1);
  });

  it("says when it was called; kept from an earlier call (a reload), it says so, with that call's time", async () => {
    const at = new Date(2026, 0, 2, 3, 4, 5).getTime();
    const screen = await render(<CallOutcome call={raised} args={{ size: -1 }} at={at} />);
    await expect.element(screen.getByTestId('try-called-at')).toMatchTextContent(/called at .*3:04:05/);
    expect(screen.container.querySelector('[data-testid="try-earlier"]')).toBeNull();
    await screen.rerender(<CallOutcome call={raised} args={{ size: -1 }} at={at} earlier />);
    const note = screen.getByRole('note');
    await expect
      .element(note)
      .toMatchTextContent(/The result of an earlier call, at .*3:04:05.*: call again/);
    expect(screen.container.querySelector('[data-testid="try-called-at"]')).toBeNull();
    expect(screen.getByTestId('try-result').element().getAttribute('data-earlier')).toBe('true');
  });
});

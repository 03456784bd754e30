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
});

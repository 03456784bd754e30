import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import type { AttemptView } from '../../../../src-main/contract/api.ts';
import { ToolCallTable } from '../../components/ToolCallTable.tsx';
import '../../styles.css';
import { Traceback } from './AttemptPanels.tsx';
import { RunOutcomePanel } from './RunDetailParts.tsx';

const long = 'y'.repeat(400);

/** How far the panel's content reaches past its 400 px (0: it fits). */
const overflow = (el: HTMLElement) => el.scrollWidth - el.clientWidth;

describe('a long word in a run', () => {
  it('wraps inside the result, the error, the traceback and the tool calls (the view scrolled sideways)', async () => {
    const a = {
      execution: {
        error: {
          type: 'ValueError',
          message: `too many times: ${'x'.repeat(300)}`,
          frames: [{ line: 1, name: '<script>', text: `greet(name="${long}")` }],
        },
      },
    } as unknown as AttemptView;
    const screen = await render(
      <div style={{ width: '400px' }} data-testid="panel">
        <RunOutcomePanel outcome={{ kind: 'result', value: { k: long } }} />
        <RunOutcomePanel outcome={{ kind: 'error', label: 'Error', message: `KeyError: ${long}` }} />
        <Traceback a={a} onJump={() => {}} onJumpTools={() => {}} />
        <ToolCallTable
          label="tool calls"
          calls={[{ name: 'greet', args: { name: long }, error: long, ms: 1, location: 'sandbox' } as never]}
        />
      </div>,
    );
    await expect.element(screen.getByText('ValueError')).toBeVisible();
    const panel = screen.getByTestId('panel').element() as HTMLElement;
    expect(overflow(panel)).toBeLessThanOrEqual(0);
    for (const part of panel.querySelectorAll<HTMLElement>('.outcome, .traceback, table'))
      expect(overflow(part)).toBeLessThanOrEqual(0);
  });
});

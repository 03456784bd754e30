import { describe, expect, it, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { GOTO } from '../lib/routing.ts';
import { KeyboardHelp, SHORTCUTS } from './KeyboardHelp.tsx';

describe('KeyboardHelp', () => {
  it('lists every shortcut, the way out of an editor included', async () => {
    const screen = await render(<KeyboardHelp onClose={() => {}} />);
    const dialog = screen.getByRole('dialog', { name: 'keyboard shortcuts' });
    await expect.element(dialog).toBeVisible();
    const text = dialog.element().textContent ?? '';
    for (const want of [
      '/focus the search box',
      'g then ngo to New run',
      'g then ugo to Suites',
      'g then wgo to Workspace',
      'jnext attempt or step',
      'Alt+↓next attempt or step',
      'Ctrl+Enterstart the run',
      'Tabnext field or button; leaves a read-only editor',
      'Tabindentsin an editable editor',
      'Ctrl+Mswitch Tab between indenting and leaving the editor',
      '?this list',
    ])
      expect(text).toContain(want);
    expect(dialog.element().querySelectorAll('tbody tr')).toHaveLength(SHORTCUTS.length);
  });

  it('lists every `g` key the router knows', () => {
    const listed = SHORTCUTS.filter((s) => s.keys[0] === 'g').map((s) => s.keys[1]);
    expect(listed.sort()).toEqual(Object.keys(GOTO).sort());
  });

  it('Esc and Close close it', async () => {
    const onClose = vi.fn();
    const screen = await render(<KeyboardHelp onClose={onClose} />);
    await expect.element(screen.getByRole('dialog')).toBeVisible();
    await userEvent.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
    await screen.getByRole('button', { name: 'Close' }).click();
    expect(onClose).toHaveBeenCalledTimes(2);
  });
});

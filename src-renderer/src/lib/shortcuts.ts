/**
 * Keyboard shortcuts for the frequent actions. Outside text fields: `/` focuses search, `j`/`k` (or
 * Alt+Down/Alt+Up anywhere) select the next/previous attempt, `g r|n|t|m|l|k|s|u|c|w` go to a view, `?`
 * opens the list of them all (components/KeyboardHelp.tsx, which must list every shortcut added here).
 * Ctrl/Cmd+Enter runs (start a run, run the edited script): views register it with `data-run-action`.
 */
import { useEffect } from 'react';
import { useStore } from '../store/index.ts';
import { gotoView } from './routing.ts';

const inField = (t: EventTarget | null): boolean => {
  const el = t as HTMLElement | null;
  if (!el) return false;
  return (
    el.tagName === 'INPUT' ||
    el.tagName === 'TEXTAREA' ||
    el.tagName === 'SELECT' ||
    el.isContentEditable ||
    !!el.closest('.monaco-editor')
  );
};

export function useShortcuts(): void {
  useEffect(() => {
    let pendingG = 0;
    const onKey = (e: KeyboardEvent) => {
      const s = useStore.getState();
      if (e.altKey && (e.key === 'ArrowDown' || e.key === 'ArrowUp') && s.route.view === 'run') {
        e.preventDefault();
        s.stepAttempt(e.key === 'ArrowDown' ? 1 : -1);
        return;
      }
      if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !e.defaultPrevented) {
        // Editors handle it themselves; elsewhere the view's primary run action is clicked.
        if (document.activeElement?.closest('.monaco-editor')) return;
        const btn = document.querySelector<HTMLButtonElement>('[data-run-action]:not([disabled])');
        if (btn) {
          e.preventDefault();
          btn.click();
        }
        return;
      }
      if (inField(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '/') {
        const search = document.querySelector<HTMLInputElement>('[data-search]');
        if (search) {
          e.preventDefault();
          search.focus();
          search.select();
        }
        return;
      }
      if (e.key === '?') {
        const help = document.querySelector<HTMLButtonElement>('[data-keyboard-help]');
        if (help) {
          e.preventDefault();
          help.click();
        }
        return;
      }
      // Timed by the events' own times (when the keys were pressed), not when a busy renderer got to them.
      if (e.key === 'g') {
        pendingG = e.timeStamp || 1;
        return;
      }
      const view = gotoView(pendingG, e.key, e.timeStamp);
      if (view) {
        pendingG = 0;
        // The key must not reach the field the new view focuses (New run's task would read "n").
        e.preventDefault();
        s.navigate({ view });
        return;
      }
      if (s.route.view === 'run' && (e.key === 'j' || e.key === 'k')) s.stepAttempt(e.key === 'j' ? 1 : -1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

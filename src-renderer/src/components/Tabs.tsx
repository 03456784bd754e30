import type { KeyboardEvent } from 'react';

/**
 * The WAI-ARIA tabs keyboard pattern, the same for every tab list in the app: Left/Right move to the
 * previous/next tab (wrapping), Home/End to the first/last, and selection follows focus (the tab moved
 * to is selected at once, as a click would). With `tabIndexOf`, a roving tabindex: only the selected
 * tab (the first when none is) is in the Tab order, so Tab enters the list once and leaves it.
 */
export function tabListKeys<T>(ids: readonly T[], onSelect: (id: T) => void) {
  return (e: KeyboardEvent<HTMLElement>): void => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const tabs = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]')];
    const at = tabs.indexOf(e.target as HTMLElement);
    if (at < 0 || tabs.length !== ids.length) return;
    const n = tabs.length;
    const next =
      e.key === 'ArrowRight'
        ? (at + 1) % n
        : e.key === 'ArrowLeft'
          ? (at - 1 + n) % n
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? n - 1
              : undefined;
    if (next === undefined) return;
    e.preventDefault();
    tabs[next]!.focus();
    onSelect(ids[next]!);
  };
}

/** A tab's tabindex in a roving list: 0 for the selected one (the first when none is), else -1. */
export const rovingTabIndex = <T,>(ids: readonly T[], selected: T | undefined, id: T): 0 | -1 =>
  id === (selected !== undefined && ids.includes(selected) ? selected : ids[0]) ? 0 : -1;

/** A row of tabs (role=tablist); the caller renders the selected panel. */
export function Tabs<T extends string>({
  tabs,
  selected,
  onSelect,
  label,
}: {
  tabs: readonly (readonly [T, string])[];
  selected: T;
  onSelect: (id: T) => void;
  label?: string;
}) {
  const ids = tabs.map(([id]) => id);
  return (
    <div className="tabs" role="tablist" aria-label={label} onKeyDown={tabListKeys(ids, onSelect)}>
      {tabs.map(([id, text]) => (
        <button
          key={id}
          role="tab"
          aria-selected={selected === id}
          tabIndex={rovingTabIndex(ids, selected, id)}
          className={selected === id ? 'active' : ''}
          onClick={() => onSelect(id)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}

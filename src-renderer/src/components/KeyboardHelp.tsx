/**
 * Every keyboard shortcut of the workbench in one list: the nav's "Keyboard shortcuts" button and `?`
 * open it. lib/shortcuts.ts and the editors implement what it lists.
 */
import { useEffect, useRef } from 'react';

/** Keys (each a chord: `Ctrl+Enter`), what they do, where. */
export const SHORTCUTS: { keys: string[]; what: string; where: string }[] = [
  { keys: ['?'], what: 'this list', where: 'outside text fields' },
  { keys: ['/'], what: 'focus the search box', where: 'outside text fields' },
  { keys: ['g', 'r'], what: 'go to Runs', where: 'outside text fields' },
  { keys: ['g', 'n'], what: 'go to New run', where: 'outside text fields' },
  { keys: ['g', 't'], what: 'go to Tools', where: 'outside text fields' },
  { keys: ['g', 'm'], what: 'go to Templates', where: 'outside text fields' },
  { keys: ['g', 'l'], what: 'go to Skills', where: 'outside text fields' },
  { keys: ['g', 'k'], what: 'go to Kits', where: 'outside text fields' },
  { keys: ['g', 'u'], what: 'go to Suites', where: 'outside text fields' },
  { keys: ['g', 's'], what: 'go to Settings', where: 'outside text fields' },
  { keys: ['g', 'c'], what: 'go to Connections', where: 'outside text fields' },
  { keys: ['g', 'w'], what: 'go to Workspace', where: 'outside text fields' },
  { keys: ['j'], what: 'next attempt or step', where: 'run view, outside text fields' },
  { keys: ['k'], what: 'previous attempt or step', where: 'run view, outside text fields' },
  { keys: ['Alt+↓'], what: 'next attempt or step', where: 'run view, anywhere' },
  { keys: ['Alt+↑'], what: 'previous attempt or step', where: 'run view, anywhere' },
  { keys: ['Enter'], what: 'open the focused run', where: 'runs list' },
  {
    keys: ['Ctrl+Enter'],
    what: 'start the run; run the edited script',
    where: 'New run; run view (also in the editor)',
  },
  { keys: ['Tab'], what: 'next field or button; leaves a read-only editor', where: 'anywhere' },
  { keys: ['Tab'], what: 'indents', where: 'in an editable editor' },
  {
    keys: ['Ctrl+M'],
    what: 'switch Tab between indenting and leaving the editor',
    where: 'in an editor',
  },
  { keys: ['Esc'], what: 'close this list', where: 'here' },
];

function Chord({ keys }: { keys: string[] }) {
  return (
    <>
      {keys.map((k, i) => (
        <span key={i}>
          {i > 0 && ' then '}
          {k.split('+').map((part, j) => (
            <span key={j}>
              {j > 0 && '+'}
              <kbd>{part}</kbd>
            </span>
          ))}
        </span>
      ))}
    </>
  );
}

export function KeyboardHelp({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="keyboard-help"
      aria-label="keyboard shortcuts"
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2>Keyboard shortcuts</h2>
      <table className="kv-table small">
        <tbody>
          {SHORTCUTS.map((s, i) => (
            <tr key={i} data-keys={s.keys.join(' ')}>
              <th>
                <Chord keys={s.keys} />
              </th>
              <td>{s.what}</td>
              <td className="muted">{s.where}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button onClick={onClose} autoFocus>
        Close
      </button>
    </dialog>
  );
}

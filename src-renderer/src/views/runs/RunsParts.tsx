/**
 * The parts of the run list around its rows: the head (count, the exact-count button, New run,
 * Import…), the load error, and what the list says when it has no rows. Props only (no store):
 * RunsView.tsx wires them through useRuns.ts.
 */
import { useRef } from 'react';
import type { ListNote } from './runs-list.ts';

export function RunsHead({
  label,
  totalExact,
  counting,
  onCount,
  onNew,
  onImport,
}: {
  label: string;
  totalExact: boolean;
  counting: boolean;
  onCount: () => void;
  onNew: () => void;
  onImport: (f: File) => void;
}) {
  const fileRef = useRef<HTMLInputElement>(null);
  return (
    <div className="view-head">
      <h1>Runs</h1>
      <span className="muted" data-testid="runs-total">
        {label}
      </span>
      {!totalExact && (
        <button
          className="link"
          data-testid="runs-count"
          disabled={counting}
          title="Count every matching run (the list counts as far as it has fetched)"
          onClick={onCount}
        >
          {counting ? 'counting…' : 'count'}
        </button>
      )}
      <span className="spacer" />
      <button onClick={onNew}>New run</button>
      <button onClick={() => fileRef.current?.click()}>Import…</button>
      <input
        ref={fileRef}
        type="file"
        accept="application/json,.json"
        hidden
        aria-label="import run file"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) onImport(f);
          e.target.value = '';
        }}
      />
    </div>
  );
}

export function RunsError({ error, onRetry }: { error: string | undefined; onRetry: () => void }) {
  if (!error) return null;
  return (
    <div role="alert" className="error">
      Could not list runs: {error} <button onClick={onRetry}>Retry</button>
    </div>
  );
}

export function RunsNote({ note, onNew }: { note: ListNote; onNew: () => void }) {
  if (note === 'loading') return <p className="muted pad">Loading runs…</p>;
  if (note === 'no-match')
    return (
      <div className="empty">
        <p>No run matches these filters.</p>
      </div>
    );
  if (note === 'empty')
    return (
      <div className="empty">
        <p>
          No runs yet. <button onClick={onNew}>Start one</button>
        </p>
      </div>
    );
  return null;
}

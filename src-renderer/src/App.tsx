import { useEffect } from 'react';
import { useStore } from './store/store.ts';
import { ToolsView } from './views/ToolsView.tsx';
import { ValidateView } from './views/ValidateView.tsx';

export function App() {
  const load = useStore((s) => s.load);
  const info = useStore((s) => s.info);
  const sandboxes = useStore((s) => s.sandboxes);
  const selected = useStore((s) => s.selected);
  const select = useStore((s) => s.select);
  const error = useStore((s) => s.error);
  const loading = useStore((s) => s.loading);
  const theme = useStore((s) => s.theme);
  const toggleTheme = useStore((s) => s.toggleTheme);
  useEffect(() => void load(), [load]);
  return (
    <div className={`app theme-${theme}`}>
      <header>
        <strong>Toolsmith</strong>
        <span className="muted">{info ? `${info.name} · ${info.workspace}` : ''}</span>
        <button onClick={toggleTheme} aria-label="toggle theme">
          {theme === 'dark' ? 'Light' : 'Dark'}
        </button>
      </header>
      <div className="body">
        <nav aria-label="sandboxes">
          <h2>Sandboxes</h2>
          {loading && <p className="muted">Loading…</p>}
          {!loading && sandboxes.length === 0 && <p className="muted">No sandboxes in this workspace.</p>}
          <ul>
            {sandboxes.map((s) => (
              <li key={s.name}>
                <button className={s.name === selected ? 'active' : ''} onClick={() => void select(s.name)}>
                  {s.name} <span className="muted">({s.tools})</span>
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <main>
          {error && (
            <div role="alert" className="error">
              {error}
            </div>
          )}
          <ToolsView />
          <ValidateView />
        </main>
      </div>
    </div>
  );
}

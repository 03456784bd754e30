import { useEffect, useState } from 'react';
import { api } from './api/client.ts';
import { activeNav, parseHash, routeHash } from './lib/routing.ts';
import type { View } from './store/app.ts';
import { useStore } from './store/index.ts';
import { installPush } from './store/push.ts';
import { ConnectionsView } from './views/connections/ConnectionsView.tsx';
import { KitsView } from './views/kits/KitsView.tsx';
import { NewRunView } from './views/new/NewRunView.tsx';
import { RunDetailView } from './views/run/RunDetailView.tsx';
import { RunsView } from './views/runs/RunsView.tsx';
import { SettingsView } from './views/settings/SettingsView.tsx';
import { SuitesView } from './views/suites/SuitesView.tsx';
import { SkillsView } from './views/skills/SkillsView.tsx';
import { TemplatesView } from './views/templates/TemplatesView.tsx';
import { ToolsView } from './views/tools/ToolsView.tsx';
import { WorkspaceView } from './views/workspace/WorkspaceView.tsx';
import { useShortcuts } from './lib/shortcuts.ts';
import { preloadEditors } from './components/Editors.tsx';
import { KeyboardHelp } from './components/KeyboardHelp.tsx';
import { Approvals } from './components/ApprovalDialog.tsx';
import { ViewBoundary } from './components/ViewBoundary.tsx';
import { guardUnsaved } from './lib/unsaved.ts';

const NAV: { view: View; label: string; key: string }[] = [
  { view: 'runs', label: 'Runs', key: 'g r' },
  { view: 'new', label: 'New run', key: 'g n' },
  { view: 'tools', label: 'Tools', key: 'g t' },
  { view: 'templates', label: 'Templates', key: 'g m' },
  { view: 'skills', label: 'Skills', key: 'g l' },
  { view: 'kits', label: 'Kits', key: 'g k' },
  { view: 'suites', label: 'Suites', key: 'g u' },
  { view: 'settings', label: 'Settings', key: 'g s' },
  { view: 'connections', label: 'Connections', key: 'g c' },
  { view: 'workspace', label: 'Workspace', key: 'g w' },
];

function Notices() {
  const notices = useStore((s) => s.notices);
  const dismiss = useStore((s) => s.dismiss);
  if (notices.length === 0) return null;
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} role={n.kind === 'error' ? 'alert' : 'status'} className={`notice notice-${n.kind}`}>
          <span>{n.text}</span>
          <button aria-label="dismiss" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

function DockerState() {
  const status = useStore((s) => s.status);
  const statusError = useStore((s) => s.statusError);
  const navigate = useStore((s) => s.navigate);
  if (statusError)
    return (
      <span className="badge status-failed" title={statusError}>
        service unreachable
      </span>
    );
  if (!status) return <span className="muted">checking sandbox…</span>;
  return (
    <button
      className={`badge ${status.docker.available ? 'status-succeeded' : 'status-failed'}`}
      title={
        status.docker.available
          ? `Docker ${status.docker.version ?? ''}`
          : [status.isolationReason, status.docker.hint ?? status.docker.error].filter(Boolean).join('\n')
      }
      onClick={() => navigate({ view: 'settings' })}
      data-testid="isolation-state"
    >
      {status.docker.available ? `docker ${status.docker.version ?? ''}` : 'no docker'} · isolation{' '}
      {status.isolation}
    </button>
  );
}

export function App() {
  const loadApp = useStore((s) => s.loadApp);
  const info = useStore((s) => s.info);
  const route = useStore((s) => s.route);
  const navigate = useStore((s) => s.navigate);
  const theme = useStore((s) => s.theme);
  const toggleTheme = useStore((s) => s.toggleTheme);
  const [keyboardHelp, setKeyboardHelp] = useState(false);

  useEffect(() => {
    void loadApp();
    preloadEditors();
    const off = installPush(api.onEvent, useStore.getState);
    const onPop = () => useStore.setState({ route: parseHash(location.hash) });
    window.addEventListener('popstate', onPop);
    window.addEventListener('hashchange', onPop);
    // The route was read from the address when the store was made; an address changed before these
    // listeners were there (a link or a typed URL while the page loaded) sent its event to nobody.
    if (location.hash !== routeHash(useStore.getState().route)) onPop();
    // (a browser page only: in Electron a cancelled beforeunload keeps the window open without a word)
    const offUnsaved = window.toolsmith ? () => {} : guardUnsaved(window);
    return () => {
      off();
      offUnsaved();
      window.removeEventListener('popstate', onPop);
      window.removeEventListener('hashchange', onPop);
    };
  }, [loadApp]);
  useShortcuts();

  const active = activeNav(route);
  return (
    <div className={`app theme-${theme}`}>
      <header>
        <strong>Toolsmith</strong>
        <button
          className="link muted ellipsis"
          title={`${info?.workspace ?? ''} (switch or create workspaces)`}
          onClick={() => navigate({ view: 'workspace' })}
          data-testid="workspace-name"
        >
          {info ? `${info.name} · ${info.workspace}` : 'opening workspace…'}
        </button>
        <span className="spacer" />
        <DockerState />
        <button onClick={toggleTheme} aria-label="toggle theme" title="Toggle light/dark theme">
          {theme === 'dark' ? 'Light' : 'Dark'}
        </button>
      </header>
      <div className="body">
        <nav aria-label="main">
          <ul>
            {NAV.map((n) => (
              <li key={n.view}>
                <button
                  className={n.view === active ? 'active' : ''}
                  aria-current={n.view === active ? 'page' : undefined}
                  onClick={() => navigate({ view: n.view })}
                  title={`${n.label} (${n.key})`}
                >
                  {n.label}
                </button>
              </li>
            ))}
          </ul>
          <ul className="muted small shortcuts-hint" aria-label="shortcuts">
            <li>
              <kbd>/</kbd> search
            </li>
            <li>
              <kbd>Ctrl</kbd>+<kbd>Enter</kbd> run
            </li>
            <li>
              <kbd>j</kbd>/<kbd>k</kbd> next/previous attempt
            </li>
            <li>
              <button className="link" data-keyboard-help onClick={() => setKeyboardHelp(true)}>
                all shortcuts (<kbd>?</kbd>)
              </button>
            </li>
          </ul>
        </nav>
        <main>
          <ViewBoundary resetKey={JSON.stringify(route)} name={route.view}>
            {route.view === 'runs' && <RunsView />}
            {route.view === 'run' && route.id && <RunDetailView runId={route.id} />}
            {route.view === 'new' && <NewRunView />}
            {route.view === 'tools' && <ToolsView />}
            {route.view === 'templates' && <TemplatesView />}
            {route.view === 'skills' && <SkillsView />}
            {route.view === 'kits' && <KitsView />}
            {route.view === 'settings' && <SettingsView />}
            {route.view === 'suites' && <SuitesView name={route.id} />}
            {route.view === 'connections' && <ConnectionsView />}
            {route.view === 'workspace' && <WorkspaceView />}
          </ViewBoundary>
        </main>
      </div>
      <Notices />
      {keyboardHelp && <KeyboardHelp onClose={() => setKeyboardHelp(false)} />}
      <Approvals />
    </div>
  );
}

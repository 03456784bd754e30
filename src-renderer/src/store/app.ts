/** Workspace info, routing (hash based), theme, notices and the service's system status. */
import type { StateCreator } from 'zustand';
import type { PushEvent, Response, WorkspaceChange } from '../../../src-main/contract/api.ts';
import { api, errorMessage } from '../api/client.ts';
import { parseHash, routeHash } from '../lib/routing.ts';
import type { Route } from '../lib/routing.ts';
import type { Store } from './index.ts';

export type { Route, View } from '../lib/routing.ts';

export interface Notice {
  id: number;
  /** A warning: something is ignored or does nothing (a config key no setting has), nothing failed. */
  kind: 'error' | 'warning' | 'info';
  text: string;
  /** What the notice is about: a newer notice about the same thing replaces it (a fixed file's error goes). */
  about?: string;
}

/**
 * A slice's action that tells the user when it fails: `act('Could not save', async () => ...)` shows
 * an error notice naming what failed and why, and never rejects.
 */
export function notifyingAct(get: () => Pick<AppSlice, 'notify'>) {
  return async (what: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (e) {
      get().notify('error', `${what}: ${errorMessage(e)}`);
    }
  };
}

export interface AppSlice {
  info?: Response<'workspace.info'>;
  sandboxes: Response<'sandboxes.list'>;
  status?: Response<'system.status'>;
  statusError?: string;
  route: Route;
  theme: 'light' | 'dark';
  notices: Notice[];
  loadApp(): Promise<void>;
  loadStatus(): Promise<void>;
  navigate(route: Route): void;
  toggleTheme(): void;
  notify(kind: Notice['kind'], text: string, about?: string): void;
  dismiss(id: number): void;
  /** Dismisses the notice about `about`, if one is shown. */
  dismissAbout(about: string): void;
  /** A workspace file changed on disk: says so (or why it was refused) and reloads what it feeds. */
  onWorkspaceChanged(c: WorkspaceChange): void;
  /** The sandbox backend changed level (a Docker engine appeared): says so and refreshes the status. */
  onEngineChanged(message: string): void;
  /** A run's trace was not sent, or a telemetry setting was ignored: an error notice that stays. */
  onTelemetry(e: Extract<PushEvent, { type: 'telemetry' }>): void;
}

let noticeId = 0;

const initialTheme = (): 'light' | 'dark' => {
  const saved = localStorage.getItem('toolsmith.theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
};

export const createAppSlice: StateCreator<Store, [], [], AppSlice> = (set, get) => ({
  sandboxes: [],
  route: parseHash(location.hash),
  theme: initialTheme(),
  notices: [],
  async loadApp() {
    try {
      const [info, sandboxes] = await Promise.all([api['workspace.info']({}), api['sandboxes.list']({})]);
      set({ info, sandboxes });
    } catch (e) {
      get().notify('error', `Could not open the workspace: ${errorMessage(e)}`);
    }
    void get().loadStatus();
  },
  async loadStatus() {
    try {
      const status = await api['system.status']({});
      const before = get().status?.configProblem;
      const warned = new Set(get().status?.configWarnings);
      set({ status, statusError: undefined });
      // A setting that does nothing (an [approval] name matching no sandbox): said when new, at load or
      // after config.toml changed (its reload reloads the status).
      for (const w of status.configWarnings ?? [])
        // (each names its file and line already: `/…/config.toml:37: …`)
        if (!warned.has(w)) get().notify('warning', w, `config-warning:${w}`);
      for (const w of warned)
        if (!status.configWarnings?.includes(w)) get().dismissAbout(`config-warning:${w}`);
      // config.toml refused on disk before this page loaded (or while it was away): said once, as the
      // push would have said it (the same notice, replaced by the fix's).
      if (status.configProblem && status.configProblem !== before)
        get().notify(
          'error',
          `config.toml changed on disk but was not applied: ${status.configProblem}`,
          'changed:config:',
        );
    } catch (e) {
      set({ statusError: errorMessage(e) });
    }
  },
  navigate(route) {
    const hash = routeHash(route);
    if (location.hash !== hash) history.pushState(null, '', hash);
    set({ route });
  },
  toggleTheme() {
    const theme = get().theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem('toolsmith.theme', theme);
    set({ theme });
  },
  notify(kind, text, about) {
    const id = ++noticeId;
    const kept = about === undefined ? get().notices : get().notices.filter((n) => n.about !== about);
    set({ notices: [...kept, { id, kind, text, ...(about !== undefined ? { about } : {}) }].slice(-5) });
    if (kind === 'info') setTimeout(() => get().dismiss(id), 5000);
  },
  dismiss(id) {
    set({ notices: get().notices.filter((n) => n.id !== id) });
  },
  dismissAbout(about) {
    set({ notices: get().notices.filter((n) => n.about !== about) });
  },
  onEngineChanged(message) {
    get().notify('info', message);
    void get().loadStatus();
  },
  onTelemetry(e) {
    const run = e.runId.slice(0, 8);
    // One notice of each kind (the latest run's): a collector that is down fails every run alike.
    if (e.level === 'failed')
      get().notify(
        'error',
        `The trace of run ${run} was not sent: ${e.message}. The run is kept: its Send trace (or \`toolsmith runs export ${run} --otlp\`) sends it again.`,
        'telemetry:failed',
      );
    else get().notify('error', `Telemetry: ${e.message}`, `telemetry:warning:${e.message}`);
  },
  onWorkspaceChanged(c) {
    const what =
      c.what === 'config'
        ? 'config.toml'
        : c.what === 'tools'
          ? `the tools of sandbox ${c.sandbox ?? '?'}`
          : `the ${c.what}`;
    // One notice per file: the fix of a refused edit replaces its error.
    const about = `changed:${c.what}:${c.sandbox ?? ''}`;
    if (c.error) get().notify('error', `${what} changed on disk but was not applied: ${c.error}`, about);
    else get().notify('info', `${what} changed on disk: applied`, about);
    if (c.error) return;
    const s = get();
    const reloads: Promise<unknown>[] = [];
    if (c.what === 'config') reloads.push(s.loadApp(), s.loadMcpServers(), s.loadSettings(), s.loadKits());
    if (c.what === 'tools') {
      reloads.push(s.reloadSandboxes());
      if (c.sandbox && s.toolsSandbox === c.sandbox) reloads.push(s.loadTools(c.sandbox));
    }
    if (c.what === 'kits') reloads.push(s.loadKits());
    if (c.what === 'suites') reloads.push(s.loadSuites());
    if (c.what === 'templates') reloads.push(s.loadTemplates());
    void Promise.allSettled(reloads);
  },
});

/**
 * Routing as pure functions: a view and its id/line <-> the URL hash (`#/tools/web?line=12`), and the
 * `g <key>` shortcuts to the views. The store (store/app.ts) and lib/shortcuts.ts apply them.
 */

export type View =
  | 'runs'
  | 'run'
  | 'new'
  | 'tools'
  | 'templates'
  | 'skills'
  | 'kits'
  | 'settings'
  | 'suites'
  | 'connections'
  | 'workspace';

export interface Route {
  view: View;
  /** Run id for `run`, sandbox for `tools`, template name for `templates`, `<sandbox>/<name>` for `skills`. */
  id?: string;
  /** `tools`: the tools.py line to reveal (a traceback frame inside a tool). */
  line?: number;
  /** `run`: the attempt (PLAN) or step (INTERACTIVE) chosen in its history, shown again after a reload. */
  attempt?: number;
}

export const VIEWS: readonly View[] = [
  'runs',
  'run',
  'new',
  'tools',
  'templates',
  'skills',
  'kits',
  'settings',
  'suites',
  'connections',
  'workspace',
];

/** The route a URL hash names; anything unknown is the run list. */
export const parseHash = (hash: string): Route => {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [view, ...rest] = path.split('/');
  const id = rest.length ? decodeURIComponent(rest.join('/')) : undefined;
  const v = VIEWS.includes(view as View) ? (view as View) : 'runs';
  const params = new URLSearchParams(query);
  const whole = (k: string) => {
    const n = Number(params.get(k));
    return Number.isInteger(n) && n > 0 ? n : undefined;
  };
  const line = whole('line');
  const attempt = v === 'run' ? whole('attempt') : undefined;
  return {
    view: v,
    ...(id ? { id } : {}),
    ...(line ? { line } : {}),
    ...(attempt ? { attempt } : {}),
  };
};

/** The URL hash of a route (`parseHash(routeHash(r))` is `r`). */
export const routeHash = (r: Route): string => {
  const query = [r.line ? `line=${r.line}` : '', r.attempt ? `attempt=${r.attempt}` : '']
    .filter(Boolean)
    .join('&');
  return `#/${r.view}${r.id ? '/' + encodeURIComponent(r.id) : ''}${query ? `?${query}` : ''}`;
};

/** `g <key>` goes to a view. */
export const GOTO: Readonly<Record<string, View>> = {
  r: 'runs',
  n: 'new',
  t: 'tools',
  m: 'templates',
  l: 'skills',
  k: 'kits',
  s: 'settings',
  u: 'suites',
  c: 'connections',
  w: 'workspace',
};

/** How long after `g` its second key still counts. */
export const GOTO_WINDOW_MS = 1000;

/** The view `g` then `key` goes to, when `key` came within the window after `g` (at `pendingG`, 0: none). */
export const gotoView = (pendingG: number, key: string, now: number): View | undefined =>
  pendingG && now - pendingG < GOTO_WINDOW_MS && Object.hasOwn(GOTO, key) ? GOTO[key] : undefined;

/** The highlighted main-navigation entry of a route (a run's detail belongs to the run list). */
export const activeNav = (r: Route): View => (r.view === 'run' ? 'runs' : r.view);

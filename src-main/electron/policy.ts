/**
 * The Electron hardening as data and pure functions, so tests can try to break it without an Electron
 * binary: window preferences, which requests may load, which frames may call the API.
 */
export const WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: false,
  experimentalFeatures: false,
} as const;

/**
 * No remote content: only the app's own files (under the renderer folder: any other `file:` URL, such
 * as a user's document or /etc/passwd, is refused), in-page data/blob URLs (Monaco workers), and the
 * devtools' own pages when devtools are allowed (development only).
 */
export function isAllowedRequestUrl(url: string, rendererDir: string, devTools = false): boolean {
  if (/^(blob|data):/i.test(url)) return true;
  if (/^devtools:/i.test(url)) return devTools;
  if (!/^file:/i.test(url)) return false;
  let path: string;
  try {
    const u = new URL(url);
    if (u.host !== '' && u.host !== 'localhost') return false;
    path = decodeURIComponent(u.pathname);
  } catch {
    return false;
  }
  // Normalized: `..`, `.` and repeated slashes cannot walk out of the folder.
  const parts: string[] = [];
  for (const p of path.replace(/\\/g, '/').split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') parts.pop();
    else parts.push(p);
  }
  const root = rendererDir
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  if (path.includes('\0')) return false;
  return parts.length > root.length && root.every((p, i) => parts[i] === p);
}

/** Devtools are for development: never in a packaged app or with NODE_ENV=production. */
export function devToolsAllowed(isPackaged: boolean, nodeEnv: string | undefined): boolean {
  return !isPackaged && nodeEnv !== 'production';
}

/** Navigation away from the app page is never allowed (links open nothing; http(s) goes to the OS browser). */
export function externalUrlToOpen(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Only the app's own top-level page (exact file URL, ignoring hash and query) may call the API. */
export function isTrustedSender(
  frameUrl: string | undefined,
  isMainFrame: boolean,
  rendererUrl: string,
): boolean {
  if (!frameUrl || !isMainFrame) return false;
  try {
    const a = new URL(frameUrl);
    const b = new URL(rendererUrl);
    return (
      a.protocol === 'file:' &&
      a.protocol === b.protocol &&
      a.host === b.host &&
      decodeURIComponent(a.pathname) === decodeURIComponent(b.pathname)
    );
  } catch {
    return false;
  }
}

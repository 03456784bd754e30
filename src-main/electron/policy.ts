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

/** No remote content: only the app's own files and in-page data/blob URLs (Monaco workers). */
export function isAllowedRequestUrl(url: string): boolean {
  return /^(file|devtools|blob|data):/i.test(url);
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

/**
 * The Chromium the components project runs its files in (vitest.config.ts), here so a test can start
 * the same browser with the same switches.
 */

/** Debian's Chromium (Playwright cannot download a browser on these machines). */
export const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/**
 * Its switches beside Playwright's own. `--no-proxy-server`: the browser loads only the vitest server on
 * 127.0.0.1 and needs no proxy, yet it took the person's `HTTP_PROXY`/`HTTPS_PROXY` from the run's
 * environment and sent its own traffic there whatever Playwright's switches say (with a recording proxy:
 * 140 requests in one run of the project, to content-autofill.googleapis.com as the form tests filled
 * their fields, update.googleapis.com, accounts.google.com): a company proxy saw the test run browse.
 */
export const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--no-proxy-server'];

/** Debian's Chromium driven by playwright-core (no browser download is possible on these machines). */
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/**
 * `scrollbars`: classic scrollbars that take room, as on a person's Linux or Windows desktop (Playwright
 * hides them in headless Chromium by default: a list that scrolls loses no width there).
 */
export function launchChromium(opts: { scrollbars?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    ...(opts.scrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
}

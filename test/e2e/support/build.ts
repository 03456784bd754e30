/**
 * vitest globalSetup for the e2e project: builds the renderer (electron-vite) so the browser front end
 * serves exactly what Electron would load; skipped when nothing it is built from changed since the last
 * build (scripts/workbench-build.mjs, as `npm start` and `npm pack` do: the integration project's packed
 * package builds the same out/ before any file starts). Fails loudly when Chromium is missing: e2e tests
 * are never skipped.
 */
import { existsSync } from 'node:fs';
import { CHROMIUM } from './browser.ts';
import { buildWorkbench } from '../../../scripts/workbench-build.mjs';
import { repoRoot } from '../../support/workspace.ts';

export default async function setup(): Promise<void> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: run \`bash scripts/ensure-env.sh\` (apt-get install chromium)`,
    );
  if (process.env['TOOLSMITH_E2E_SKIP_BUILD'] === '1' && existsSync(`${repoRoot}out/renderer/index.html`))
    return;
  try {
    await buildWorkbench(repoRoot);
  } catch (e) {
    throw new Error(
      `electron-vite build failed:\n${(e as Error & { log?: string }).log ?? ''}\n${String(e)}`,
    );
  }
}

/**
 * vitest globalSetup for the e2e project: builds the renderer once (electron-vite) so the browser front
 * end serves exactly what Electron would load. Fails loudly when Chromium is missing: e2e tests are
 * never skipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM } from './browser.ts';
import { repoRoot } from '../../support/workspace.ts';

export default function setup(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: run \`bash scripts/ensure-env.sh\` (apt-get install chromium)`,
    );
  if (process.env['TOOLSMITH_E2E_SKIP_BUILD'] === '1' && existsSync(`${repoRoot}out/renderer/index.html`))
    return;
  const r = spawnSync('npx', ['electron-vite', 'build'], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
}

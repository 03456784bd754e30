import react from '@vitejs/plugin-react';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import { POLL_MS } from './test/support/budgets.ts';

/** Tests wait on outcomes: a poll ends as soon as its outcome holds, and fails only after POLL_MS. */
const expect = { poll: { timeout: POLL_MS } };

/** No test sees the person's Toolsmith home, workspace, installation or caches (see the file). */
const isolatedHome = 'test/support/isolated-home.ts';

/** Debian's Chromium (Playwright cannot download a browser on these machines). */
const chromium = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    // Attachments (a failing component test's screenshot) land with the other test output, ignored by git.
    attachmentsDir: 'test-results/attachments',
    projects: [
      {
        test: {
          name: 'unit',
          expect,
          globalSetup: [isolatedHome],
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'renderer',
          expect,
          globalSetup: [isolatedHome],
          include: ['src-renderer/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        // Presentational components rendered in a real Chromium (vitest browser mode).
        plugins: [react()],
        test: {
          name: 'components',
          expect,
          include: ['src-renderer/**/*.browser.test.tsx'],
          browser: {
            enabled: true,
            provider: playwright({
              launchOptions: {
                executablePath: chromium,
                args: ['--no-sandbox', '--disable-gpu'],
              },
            }),
            instances: [{ browser: 'chromium' }],
            headless: true,
          },
        },
      },
      {
        test: {
          name: 'integration',
          expect,
          globalSetup: [isolatedHome],
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          expect,
          include: ['test/e2e/**/*.e2e.ts'],
          environment: 'node',
          globalSetup: [isolatedHome, 'test/e2e/support/build.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

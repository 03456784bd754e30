import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import { BROWSER_CONNECT_MS, POLL_MS, TEST_MS } from './test/support/budgets.ts';
import { chromiumArgs, chromiumPath } from './test/support/chromium.ts';
import { onNode24 } from './test/support/node-24.ts';

/** Started on a Node older than 24 (another `node` first on PATH): the same run on the clone's Node 24. */
await onNode24();

/** Tests wait on outcomes: a poll ends as soon as its outcome holds, and fails only after POLL_MS. */
const expect = { poll: { timeout: POLL_MS } };

/** No test sees the person's Toolsmith home, workspace, installation or caches (see the file). */
const isolatedHome = 'test/support/isolated-home.ts';
/** Nor another test file's: each file takes a home of its own inside the run's (see the file). */
const fileHome = 'test/support/isolated-file-home.ts';

/**
 * Integration files that start no container and no build (loopback servers, the service without a
 * sandbox backend, the CLI as a process): they run beside the unit projects, several at once, instead of
 * one at a time in the serial integration queue. A file added here must pass with DOCKER_HOST pointing
 * nowhere.
 */
const integrationLocal = [
  'test/integration/llm/providers.test.ts',
  'test/integration/faults/llm-http.test.ts',
  'test/integration/faults/llm-stream.test.ts',
  'test/integration/faults/ops-watch.test.ts',
  'test/integration/cli/verb-cache.test.ts',
  'test/integration/mcp/mcp-http-sessions.test.ts',
  'test/integration/cli/proxy-loopback.test.ts',
  'test/integration/cli/vitest-older-node.test.ts',
  'test/integration/skills/skill-files-race.test.ts',
];

/**
 * Integration files that run alone, after every other file: `containment.test.ts` ends by counting the
 * sandbox user's processes left outside containers on the whole host, and beside the other files that
 * run process-level workers (process-level, python-red-team...) it counted theirs (14 live bwrap workers
 * in one run at load 25), which an ancestor walk to their vitest process did not tell apart.
 */
const integrationSerial = ['test/integration/sandbox/containment.test.ts'];

/**
 * The second and last group of files (vitest runs groups one after the other): `integration-serial`,
 * and beside it the projects that start no process as a sandbox user and no container (unit, renderer,
 * components), so the run's last minute uses both cores instead of one. Every other project is in
 * group 0 and has ended when this group starts.
 */
const lastGroup = { groupOrder: 1 };

/**
 * Unit and renderer files run one after another in the same worker process: no new process and module
 * graph per file (98 -> 40 CPU-s and 52 -> 22 s for the two projects here). Each file still gets its own
 * home (setupFiles run before every file) and must leave no module state behind that another file sees:
 * the files pass in any order (`--sequence.shuffle.files`). Not the component files: in one browser
 * page they break each other's DOM.
 */
const sharedWorker = { isolate: false };

/**
 * The home the components project's Chromium runs in: it writes its crash reports' database under
 * $XDG_CONFIG_HOME (~/.config/chromium/Crash Reports) and dconf's under ~/.cache whatever its flags say,
 * and vitest starts it before any global setup moves the run out of the person's home. Removed when the
 * run's process exits.
 */
const chromiumHome = mkdtempSync(join(tmpdir(), 'toolsmith-chromium-home-'));
process.on('exit', () => rmSync(chromiumHome, { recursive: true, force: true }));
const chromiumEnv = {
  ...process.env,
  HOME: chromiumHome,
  XDG_CONFIG_HOME: join(chromiumHome, 'config'),
  XDG_CACHE_HOME: join(chromiumHome, 'cache'),
};

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine, so every file of the
    // parallel projects ran one after the other. Two at least (much of a test's time is waiting on a
    // process, a server or a container). Every project shares these workers (one vitest group), the
    // integration and e2e files too: each file has its own home, installation, ports and containers.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './test/summary-reporter.ts'],
    // Attachments (a failing component test's screenshot) land with the other test output, ignored by git.
    attachmentsDir: 'test-results/attachments',
    projects: [
      {
        test: {
          name: 'unit',
          sequence: lastGroup,
          ...sharedWorker,
          testTimeout: TEST_MS,
          hookTimeout: TEST_MS,
          setupFiles: [fileHome],
          expect,
          globalSetup: [isolatedHome],
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'renderer',
          sequence: lastGroup,
          ...sharedWorker,
          testTimeout: TEST_MS,
          hookTimeout: TEST_MS,
          setupFiles: [fileHome],
          expect,
          globalSetup: [isolatedHome],
          include: ['src-renderer/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        // Presentational components rendered in a real Chromium (vitest browser mode).
        plugins: [react()],
        // Every package a component file loads, pre-bundled when the run starts: a package Vite's scan
        // did not find (a new import) would otherwise be optimised mid-run, reloading the page and every
        // session's iframe with it. Today's scan finds these same ones (DEBUG=vite:deps: "the scanner
        // found every used dependency"); listing them keeps it so.
        optimizeDeps: {
          include: [
            'react',
            'react-dom',
            'react-dom/client',
            'react/jsx-dev-runtime',
            'react/jsx-runtime',
            'vitest-browser-react',
            'zustand',
          ],
        },
        test: {
          name: 'components',
          sequence: lastGroup,
          testTimeout: TEST_MS,
          hookTimeout: TEST_MS,
          expect,
          include: ['src-renderer/**/*.browser.test.tsx'],
          browser: {
            enabled: true,
            provider: playwright({
              launchOptions: {
                executablePath: chromiumPath,
                args: chromiumArgs,
                env: chromiumEnv,
              },
            }),
            instances: [{ browser: 'chromium' }],
            headless: true,
            // A session (a file's iframe) may take longer than vitest's 60 s to connect under load alone.
            connectTimeout: BROWSER_CONNECT_MS,
          },
        },
      },
      {
        test: {
          name: 'integration-local',
          setupFiles: [fileHome],
          expect,
          globalSetup: [isolatedHome],
          include: integrationLocal,
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'integration',
          setupFiles: [fileHome],
          expect,
          // The sandbox images and the packed package, built once before the files start.
          globalSetup: [isolatedHome, 'test/support/built-once.ts'],
          include: ['test/integration/**/*.test.ts'],
          exclude: [...integrationLocal, ...integrationSerial],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'integration-serial',
          // After the integration files, beside the unit and component files only. Its one file runs
          // alone among the sandbox tests (a second file here would run beside it).
          sequence: lastGroup,
          setupFiles: [fileHome],
          expect,
          globalSetup: [isolatedHome, 'test/support/built-once.ts'],
          include: integrationSerial,
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'e2e',
          setupFiles: [fileHome],
          expect,
          include: ['test/e2e/**/*.e2e.ts'],
          environment: 'node',
          globalSetup: [isolatedHome, 'test/e2e/support/build.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});

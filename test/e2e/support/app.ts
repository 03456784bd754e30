/**
 * One e2e world: a temp copy of the sample workspace whose LLM provider points at the scripted LLM
 * server, the real service with the real sandbox (Docker), the browser front end serving the built
 * renderer, and a Chromium page on it. Screenshots go to test-results/screenshots/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { startWebServer } from '../../../src-main/web/server.ts';
import type { WebServer } from '../../../src-main/web/server.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { launchChromium } from './browser.ts';

export interface E2eWorld {
  llm: LlmServer;
  svc: ToolsmithService;
  web: WebServer;
  browser: Browser;
  page: Page;
  workspace: string;
  /** Console errors and failed requests seen by the page (a test can assert there are none). */
  pageErrors: string[];
  /** Every pushed event the page received over its WebSocket, in order (parsed). */
  pushed: {
    type: string;
    runId?: string;
    n?: number;
    text?: string;
    event?: { type: string; runId: string };
  }[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export const SCREENSHOTS = join(repoRoot, 'test-results', 'screenshots');

export const fence = (code: string) => '```python\n' + code + '\n```';

/**
 * `prepare` changes the temp workspace (sandboxes, config) before the service opens it; `watch` makes
 * the service follow hand edits of the workspace's files, as `serve` and the desktop app do.
 */
export async function startWorld(
  prepare?: (workspace: string) => void,
  options: { watch?: boolean; askApproval?: 'workbench' } = {},
): Promise<E2eWorld> {
  const llm = await startLlmServer();
  const workspace = tempWorkspace('toolsmith-e2e-');
  const configFile = join(workspace, '.toolsmith', 'config.toml');
  const config = readFileSync(configFile, 'utf8')
    .replace(/base_url = "[^"]*"/, `base_url = "${llm.openaiUrl}"`)
    .replace(/model = "qwen2.5-coder:7b"/, 'model = "scripted-coder"');
  writeFileSync(configFile, config);
  prepare?.(workspace);
  const svc = ToolsmithService.open(workspace, {
    sandboxFactory: createSandboxManager,
    ...(options.watch ? { watch: true } : {}),
    // Tool calls that need a person's approval are asked in the page, as `serve` does.
    ...(options.askApproval ? { askApproval: options.askApproval } : {}),
  });
  // The e2e world starts its own MCP servers (as `serve --allow-host-commands` would).
  const web = await startWebServer(svc, {
    staticDir: join(repoRoot, 'out', 'renderer'),
    allowHostCommands: true,
  });
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'en-US' });
  // A click, a fill or a wait for an element waits on its outcome as long as a poll does (Playwright's
  // own 30 s ran out on a loaded machine, where the outcome came later, not never).
  page.setDefaultTimeout(POLL_MS);
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`);
  });
  const pushed: E2eWorld['pushed'] = [];
  page.on('websocket', (ws) =>
    ws.on('framereceived', (f) => {
      try {
        pushed.push(JSON.parse(String(f.payload)) as E2eWorld['pushed'][number]);
      } catch {
        /* not JSON */
      }
    }),
  );
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.goto(web.url);
  return {
    llm,
    svc,
    web,
    browser,
    page,
    workspace,
    pageErrors,
    pushed,
    screenshot: async (name) => {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
    },
    close: async () => {
      await browser.close().catch(() => {});
      await web.close();
      await svc.close();
      await llm.close();
      removeWorkspace(workspace);
    },
  };
}

/**
 * The set-up of tests that drive the service's runs against the scripted LLM server in this process:
 * the server, a fresh copy of the sample workspace, the service opened on it with real sandboxes, and
 * its run service. Call at the top of a test file; it registers the hooks and fills the returned object
 * before the tests (closed and removed after them). Each test's scripted answers are its own: the
 * server's recorded requests and answers are cleared before every test.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createSandboxManager } from '../../src-main/app/sandbox-factory.ts';
import type { RunService } from '../../src-main/app/runs.ts';
import { ToolsmithService } from '../../src-main/app/service.ts';
import { startLlmServer } from './llm-server.ts';
import type { LlmServer } from './llm-server.ts';
import { removeWorkspace, tempWorkspace } from './workspace.ts';

export interface LlmService {
  llm: LlmServer;
  /** The workspace folder. */
  ws: string;
  svc: ToolsmithService;
  runs: RunService;
}

export function useLlmService(): LlmService {
  const s = {} as LlmService;
  beforeAll(async () => {
    s.llm = await startLlmServer();
    s.ws = tempWorkspace();
    s.svc = ToolsmithService.open(s.ws, { sandboxFactory: createSandboxManager });
    s.runs = await s.svc.runs();
  });
  afterAll(async () => {
    await s.svc?.close();
    await s.llm?.close();
    if (s.ws) removeWorkspace(s.ws);
  });
  beforeEach(() => s.llm.reset());
  return s;
}

/**
 * The set-up of the fault tests that run the service in this process against the scripted LLM server:
 * for each test, a real LLM server (test/support/llm-server.ts), a fresh copy of the sample workspace
 * whose providers point at it (suite-oracle.ts scriptedConfig), and what this process says on stderr.
 * Call at the top of a test file; the returned object is filled before each test, and the server closed
 * and the workspace removed after it.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, vi } from 'vitest';
import { startLlmServer } from '../../../support/llm-server.ts';
import type { LlmServer } from '../../../support/llm-server.ts';
import { scriptedConfig } from '../../../support/suite-oracle.ts';
import { tempWorkspace } from '../../../support/workspace.ts';
import { stderrSaid } from './stderr-said.ts';

export interface ScriptedWorkspace {
  llm: LlmServer;
  /** The workspace folder. */
  ws: string;
  /** What this process said on stderr during the test (stderr-said.ts). */
  said: string[];
}

export function useScriptedWorkspace(prefix: string): ScriptedWorkspace {
  const s = {} as ScriptedWorkspace;
  beforeEach(async () => {
    s.llm = await startLlmServer();
    s.ws = tempWorkspace(prefix);
    scriptedConfig(s.ws, s.llm.openaiUrl);
    s.said = stderrSaid();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await s.llm?.close();
    if (s.ws) rmSync(s.ws, { recursive: true, force: true });
  });
  return s;
}

/**
 * The set-up of tests that drive Toolsmith (often the CLI as a process) against the scripted LLM server:
 * the server, a fresh copy of the sample workspace configured to use it, and an installation of its own
 * (TOOLSMITH_DATA_DIR in a temp folder, so only its own containers are ever listed or removed). Call
 * at the top of a test file; it registers the hooks and fills the returned object before the tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startLlmServer } from './llm-server.ts';
import type { LlmServer } from './llm-server.ts';
import { requireDocker } from './sandbox.ts';
import { scriptedConfig } from './suite-oracle.ts';
import { removeWorkspace, tempWorkspace } from './workspace.ts';

export interface ScriptedWorkspace {
  llm: LlmServer;
  /** The workspace folder. */
  ws: string;
  /** The installation's data folder (TOOLSMITH_DATA_DIR). */
  data: string;
}

const tempData = () => mkdtempSync(join(tmpdir(), 'toolsmith-data-'));

export function useScriptedWorkspace(
  opts: {
    /** Fail at once, naming the fix, when no Docker engine answers. */
    docker?: boolean;
    /** A new installation (data folder) for every test, not one for the file. */
    dataPerTest?: boolean;
    /** Before every test: the server's recorded requests and answers cleared, then this. */
    eachTest?: (llm: LlmServer) => void;
  } = {},
): ScriptedWorkspace {
  const s = {} as ScriptedWorkspace;
  beforeAll(async () => {
    if (opts.docker) await requireDocker();
    s.llm = await startLlmServer();
    s.ws = tempWorkspace();
    if (!opts.dataPerTest) s.data = tempData();
    scriptedConfig(s.ws, s.llm.openaiUrl);
  });
  afterAll(async () => {
    await s.llm?.close();
    if (s.ws) removeWorkspace(s.ws);
    if (s.data) rmSync(s.data, { recursive: true, force: true });
  });
  if (opts.dataPerTest || opts.eachTest)
    beforeEach(() => {
      if (opts.eachTest) {
        s.llm.reset();
        opts.eachTest(s.llm);
      }
      if (opts.dataPerTest) {
        if (s.data) rmSync(s.data, { recursive: true, force: true });
        s.data = tempData();
      }
    });
  return s;
}

/**
 * A JS sandbox on gVisor with one worker and the walls a test leaves out (TOOLSMITH_TEST_WALLS), made
 * before the describe block it is called in and disposed after it; `run` executes a JS script there
 * (bun unless another runtime is named).
 */
import { afterAll, beforeAll } from 'vitest';
import type { SandboxBackend } from '../../../../src-main/infra/sandbox/backend.ts';
import type { ExecutionResult } from '../../../../src-main/core/sandbox/execution.ts';
import { dockerFactory, testBackend } from '../../../support/sandbox.ts';
import type { TestFactory } from '../../../support/sandbox.ts';

export interface GvisorBun {
  factory: TestFactory;
  backend: SandboxBackend;
  run(code: string, runtime?: 'node' | 'bun' | 'deno'): Promise<ExecutionResult>;
}

export function gvisorBun(
  sandbox: string,
  wallsOff: string[],
  { minSize = 1, timeoutMs = 60_000 }: { minSize?: number; timeoutMs?: number } = {},
): GvisorBun {
  const g = {
    run: (code: string, runtime: 'node' | 'bun' | 'deno' = 'bun') =>
      g.backend.execute({
        sandbox,
        runtime,
        language: 'js',
        code,
        bodyStartLine: 1,
        tools: {},
        timeoutMs,
      }),
  } as GvisorBun;
  beforeAll(async () => {
    g.factory = await dockerFactory({ runtime: 'runsc', wallsOff });
    g.backend = testBackend(g.factory, { toolsSource: '', pool: { minSize, maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await g.backend?.dispose();
    await g.factory?.dispose();
  });
  return g;
}

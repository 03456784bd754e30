/**
 * A JS job with a preamble (`sys`: the escaped system calls a second-walls test makes) on one sandbox of
 * a test's backend, and the data of its result, the job's error failing the test with what it said.
 */
import { expect } from 'vitest';
import type { ExecutionResult } from '../../../../src-main/core/sandbox/execution.ts';
import type { SandboxBackend } from '../../../../src-main/infra/sandbox/backend.ts';

export function jsJobs(backend: () => SandboxBackend, sandbox: string, sys: string) {
  const run = (body: string) =>
    backend().execute({
      sandbox,
      runtime: 'node',
      language: 'js',
      code: sys + body,
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 30_000,
    });
  const data = (r: ExecutionResult) => {
    expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    return r.data as Record<string, unknown>;
  };
  return { run, data };
}

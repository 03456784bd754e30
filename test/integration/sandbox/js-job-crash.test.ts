/**
 * A JS job's process that dies while it holds a tool call (docs/sandboxes.md, "JS jobs", deno): the job is
 * `crashed`, its cause named, at once, not after its time limit. deno 2.9.6 gives no `close` for a child
 * that ends with a message of the worker unread in its IPC channel (the tool's result written to it while
 * it was stopped), nor after a write to its channel failed (the result written after it died): the worker
 * saw the process's `exit` only, and the job waited for its time limit (`timeout`). Driven from the host:
 * the job's process (the launcher's child) is signalled from inside the worker's container while the job
 * holds in a host tool call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { ToolResponse } from '../../../src-main/core/tools/model.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { dockerFactory, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { signalLaunched, until } from './support/container-exec.ts';

for (const [level, runtime, make] of [
  ['docker', 'deno', () => dockerFactory()],
  // (rooted: its job's process started on the job's arrival, not made ahead)
  ['gvisor', 'deno', () => dockerFactory({ runtime: 'runsc' })],
  // (node reads a child's channel to its end at its exit: the same answer, for comparison)
  ['docker', 'node', () => dockerFactory()],
] as const) {
  describe(`a JS job's process that dies holding a tool call: ${level}, ${runtime}`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    let held: ((r: ToolResponse) => void) | undefined;
    const hold = (): Promise<ToolResponse> =>
      new Promise((resolve) => {
        held = resolve;
      });
    /** Answers the held `hold` call. */
    const answer = (r: ToolResponse) => held?.(r);
    const workerId = () => backend.workerIds('crash', runtime)?.workers[0] as string;
    const run = (): Promise<ExecutionResult> =>
      backend.execute({
        sandbox: 'crash',
        runtime,
        language: 'js',
        code: `const r = await hold({});\nemitResult(r);\n`,
        bodyStartLine: 1,
        tools: { hold: 'hold' },
        timeoutMs: 20_000,
      });

    beforeAll(async () => {
      factory = await make();
      backend = testBackend(factory, {
        toolsSource: '',
        pool: { minSize: 1, maxSize: 1, standby: 0 },
        hostTools: { hold },
      });
      await backend.warm('crash', runtime);
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    it('stopped, its tool result written to it, then killed: crashed, the signal named', async () => {
      held = undefined;
      const job = run();
      await until('the job to hold', () => (held ? true : undefined));
      expect(await signalLaunched(workerId(), runtime, 'SIGSTOP')).toHaveLength(1);
      answer({ success: true, data: 'late' });
      await new Promise((r) => setTimeout(r, 500));
      expect(await signalLaunched(workerId(), runtime, 'SIGKILL')).toHaveLength(1);
      const r = await job;
      expect({ exit: r.exitReason, message: r.error?.message }).toEqual({
        exit: 'crashed',
        message: 'the script process died (SIGKILL)',
      });
    }, 120_000);

    it('killed, then its tool result written to it: crashed, the signal named', async () => {
      held = undefined;
      const job = run();
      await until('the job to hold', () => (held ? true : undefined));
      expect(await signalLaunched(workerId(), runtime, 'SIGKILL')).toHaveLength(1);
      answer({ success: true, data: 'late' });
      const r = await job;
      expect({ exit: r.exitReason, message: r.error?.message }).toEqual({
        exit: 'crashed',
        message: 'the script process died (SIGKILL)',
      });
    }, 120_000);
  });
}

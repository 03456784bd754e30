/**
 * The worker ignores SIGINT. Python's default handler raises KeyboardInterrupt, so with the job's
 * namespaces off (`nojobns`: the plain forks of a kernel that refuses namespaces) a job of the worker's
 * pid namespace that sent `kill(1, SIGINT)` ended the worker (pid 1 of the sandbox): the job itself read
 * as crashed and a new worker took over. Nothing else sends it SIGINT (the host stops it with SIGTERM or
 * SIGKILL), so it takes none.
 */
import { describe, expect, it } from 'vitest';
import { bubblewrapFactory, dockerFactory, oneWorker } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';

const TOOLS = `import os
import signal
import time


@tool(grade=(2, 2))
def interrupt_worker() -> ToolResponse:
    """Sends SIGINT to pid 1 (the worker, with the job namespaces off) and waits for it to act."""
    os.kill(1, signal.SIGINT)
    time.sleep(0.5)
    return ToolResponse(success=True, data=os.getpid())
`;

const LEVELS: [string, () => Promise<TestFactory>][] = [
  ['docker', () => dockerFactory({ wallsOff: ['nojobns'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['nojobns'] })],
];

for (const [level, make] of LEVELS) {
  describe(`a job's SIGINT to the worker, the job namespaces off: ${level}`, () => {
    const run = oneWorker(make, TOOLS, ['interrupt_worker']);

    it('is ignored: the job ends with its result, and the next runs on the same worker', async () => {
      const a = await run('r = interrupt_worker()\nemit_result(r.data)\n');
      expect(a.success, JSON.stringify(a.error)).toBe(true);
      const b = await run('emit_result(1)\n');
      expect(b.success, JSON.stringify(b.error)).toBe(true);
      expect(b.data).toBe(1);
    }, 120_000);
  });
}

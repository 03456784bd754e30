/**
 * Reads of the run store that wait through a copy going on over it: while `runs.db` is being
 * overwritten in place (the store refuses statements with a StoreOverwrittenError until the file has
 * stayed the same, and then opens the content copied in: see StoreConnection), a read is made again
 * every 100 ms, for at most `waitMs`, and then reads the content copied in. Before, every read but the
 * suite runner's was refused during a copy: the workbench's run list and run view answered an
 * `internal` error (with a stack on stderr) whose words said that "nothing was written".
 *
 * A read made for a request stops when that request is cancelled (`signal`: the HTTP client went away,
 * an MCP client cancelled): the last refusal is thrown at once, and the store is asked no more. Before,
 * it went on asking every 100 ms for up to 30 s for an answer nobody would read.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreOverwrittenError } from './connection.ts';

/** How long a front end's read (the workbench's, the MCP server's) waits for a copy to end, at most. */
export const READ_THROUGH_COPY_MS = 30_000;

/** How often a read refused during a copy is made again. */
const RETRY_MS = 100;

export async function readThroughOverwrite<T>(
  read: () => T | Promise<T>,
  waitMs: number = READ_THROUGH_COPY_MS,
  signal?: AbortSignal,
): Promise<T> {
  const until = performance.now() + waitMs;
  for (;;) {
    try {
      return await read();
    } catch (e) {
      if (!(e instanceof StoreOverwrittenError) || performance.now() > until || signal?.aborted) throw e;
      // (node:timers/promises: the wait ends when the signal aborts, its timer cleared)
      const stopped = await sleep(RETRY_MS, false, signal ? { signal } : {}).catch(() => true);
      if (stopped) throw e;
    }
  }
}

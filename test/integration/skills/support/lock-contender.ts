/**
 * A process taking a workspace's skills lock (infra/workspace/file-lock.ts), for the test of a dead
 * holder's lock taken over by several processes at once (run with the Node 24 the package ships, which
 * strips types):
 * - `die LOCK`: takes the lock and ends inside its section, as a killed process does (the lock file,
 *   naming its pid, is left behind);
 * - `take LOCK INSIDE AT [HOLD]`: waits until the wall clock reaches AT (ms), so that every contender
 *   tries in the same millisecond, then takes the lock; inside its section it makes the file INSIDE with
 *   O_EXCL (another process inside at the same time has it: "OVERLAP" is printed), holds it HOLD ms (40
 *   by default), removes it.
 */
import { openSync, closeSync, rmSync } from 'node:fs';
import { withFileLock } from '../../../../src-main/infra/workspace/file-lock.ts';

const [mode, lock, inside, at, hold] = process.argv.slice(2) as [string, string, string, string, string?];
const nap = new Int32Array(new SharedArrayBuffer(4));
if (mode === 'die') withFileLock(lock, 'dying inside', () => process.exit(0));
else {
  while (Date.now() < Number(at)) Atomics.wait(nap, 0, 0, 1);
  withFileLock(lock, 'a contender', () => {
    let fd: number;
    try {
      fd = openSync(inside, 'wx');
    } catch {
      process.stdout.write('OVERLAP\n');
      return;
    }
    closeSync(fd);
    Atomics.wait(nap, 0, 0, Number(hold ?? 40));
    rmSync(inside, { force: true });
  });
}

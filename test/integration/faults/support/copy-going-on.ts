/**
 * A copy of a run store still going on over another, as `cp other.db runs.db` is while it writes: `from`
 * copied over `to` in a real process, then the file's time changed every 50 ms (the store waits for the
 * file to stay the same before it acts on an overwrite) until `done()`. `copied` resolves once the
 * content is over the file; `kill()` ends the process (for a test's `finally`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../../support/workspace.ts';

export function copyGoingOn(from: string, to: string) {
  const child = spawn(
    join(repoRoot, 'node_modules/.bin/node'),
    [
      '-e',
      `const fs = require('node:fs');
       fs.copyFileSync(process.argv[1], process.argv[2]);
       process.stdout.write('copied\\n');
       const t = setInterval(() => { const now = new Date(); fs.utimesSync(process.argv[2], now, now); }, 50);
       process.stdin.on('end', () => clearInterval(t)).resume();`,
      from,
      to,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const copied = new Promise<void>((r) => child.stdout?.once('data', () => r()));
  return { copied, done: () => child.stdin?.end(), kill: () => child.kill() };
}

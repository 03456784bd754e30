#!/usr/bin/env node
// `npm start [-- --port N] [-- --open] [-- --allow-host-commands] [-- --rebuild]`: builds the app
// quietly (its log is printed only when the build fails; nothing is built when no source changed since
// the last build), then opens Electron when its binary is installed, otherwise serves the same renderer
// to a browser and prints the URL as the last line.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { terminalForeground } from '../bin/terminal.mjs';
import { electronBinary } from './electron-path.mjs';
import { buildWorkbench } from './workbench-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(`usage: npm start [-- --port N] [-- --open] [-- --allow-host-commands] [-- --rebuild]
  builds the workbench (only when a source changed since the last build), then opens Electron where it
  is installed, else serves it to a browser:
  --port N                the port of the browser front end (default: a free one)
  --open                  open the URL in the default browser
  --allow-host-commands   let the page start stdio MCP servers (commands on this computer); without it
                          the browser front end refuses them, as a web page cannot ask you first
                          (the desktop app asks you before it starts one)
  --rebuild               build even when nothing changed`);
  process.exit(0);
}
const force = args.includes('--rebuild');
const serveArgs = args.filter((a) => a !== '--rebuild');

async function build() {
  process.stdout.write('Building the workbench… ');
  try {
    const r = await buildWorkbench(root, { force });
    console.log(
      r.built
        ? `done in ${(r.ms / 1000).toFixed(1)} s`
        : 'up to date (no source changed since the last build)',
    );
  } catch (e) {
    console.log('failed');
    if (e.log) process.stderr.write(e.log);
    console.error(`npm start: ${e.message}${e.log ? '; its log is above' : ''}`);
    process.exit(1);
  }
}

await build();
const binary = electronBinary();
if (binary) {
  spawn(binary, ['.'], { stdio: 'inherit' }).on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(
    'No Electron binary on this machine: serving the workbench to a browser instead (Ctrl+C stops it).',
  );
  // The toolsmith command itself (not npx: no npm in the way), on the Node that runs this script.
  const serve = spawn(process.execPath, [join(root, 'bin', 'toolsmith.mjs'), 'serve', ...serveArgs], {
    stdio: 'inherit',
  });
  // Ctrl-C at a terminal reaches `serve` itself (the terminal's foreground process group): passed on
  // as well, it came twice, and the second SIGINT, arriving while serve closed (its runs recorded, its
  // containers removed), was taken as a stop no command handles: its close was bounded by 3 s, or cut
  // short. Passed on only when this process is not in its terminal's foreground (`kill -INT`, a
  // process manager), as bin/toolsmith.mjs does.
  process.on('SIGINT', () => {
    if (!terminalForeground()) serve.kill('SIGINT');
  });
  process.on('SIGTERM', () => serve.kill('SIGTERM'));
  serve.on('exit', (code, signal) => {
    // Ended by a signal: this process ends by the same one (it exited 0, as if serve had ended well).
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

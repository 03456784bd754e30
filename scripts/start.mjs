#!/usr/bin/env node
// `npm start [-- --port N] [-- --open]`: builds the app quietly (its log is printed only when the build
// fails), then opens Electron when its binary is installed, otherwise serves the same renderer to a
// browser and prints the URL as the last line.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electron-path.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(`usage: npm start [-- --port N] [-- --open]
  builds the workbench, then opens Electron where it is installed, else serves it to a browser:
  --port N   the port of the browser front end (default: a free one)
  --open     open the URL in the default browser`);
  process.exit(0);
}

function build() {
  const bin = join(root, 'node_modules', '.bin', 'electron-vite');
  if (!existsSync(bin)) {
    console.error(`npm start: ${bin} is missing: run \`npm ci\` first`);
    process.exit(1);
  }
  const started = Date.now();
  process.stdout.write('Building the workbench… ');
  return new Promise((resolve) => {
    const p = spawn(bin, ['build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    const log = [];
    p.stdout.on('data', (d) => log.push(d));
    p.stderr.on('data', (d) => log.push(d));
    p.on('error', (e) => {
      console.log('failed');
      console.error(`npm start: could not run electron-vite: ${e.message}`);
      process.exit(1);
    });
    p.on('close', (code) => {
      if (code !== 0) {
        console.log('failed');
        process.stderr.write(Buffer.concat(log));
        console.error(`npm start: the build failed (electron-vite exited ${code}); its log is above`);
        process.exit(1);
      }
      console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      resolve();
    });
  });
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
  const serve = spawn(process.execPath, [join(root, 'bin', 'toolsmith.mjs'), 'serve', ...args], {
    stdio: 'inherit',
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => serve.kill(sig));
  serve.on('exit', (code) => process.exit(code ?? 0));
}

#!/usr/bin/env node
// `npm start`: builds the app, then opens Electron when its binary is installed, otherwise serves the
// same renderer to a browser (and says so).
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run('npx', ['electron-vite', 'build']);
let electronBinary;
try {
  electronBinary = require('electron');
} catch {
  electronBinary = undefined;
}
if (typeof electronBinary === 'string' && existsSync(electronBinary)) {
  spawn(electronBinary, ['.'], { stdio: 'inherit' }).on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log('Electron binary not installed here: starting the browser front end instead.');
  console.log('Open the URL below in a browser (Ctrl+C to stop).');
  spawn('npx', ['toolsmith', 'serve', ...process.argv.slice(2)], { stdio: 'inherit' }).on('exit', (code) =>
    process.exit(code ?? 0),
  );
}

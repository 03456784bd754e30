#!/usr/bin/env node
// `npm start`: builds the app, then opens Electron when its binary is installed, otherwise serves the
// same renderer to a browser (and says so).
import { spawnSync, spawn } from 'node:child_process';
import { electronBinary } from './electron-path.mjs';

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run('npx', ['electron-vite', 'build']);
const binary = electronBinary();
if (binary) {
  spawn(binary, ['.'], { stdio: 'inherit' }).on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log('Electron binary not installed here: starting the browser front end instead.');
  console.log('Open the URL below in a browser (Ctrl+C to stop).');
  spawn('npx', ['toolsmith', 'serve', ...process.argv.slice(2)], { stdio: 'inherit' }).on('exit', (code) =>
    process.exit(code ?? 0),
  );
}

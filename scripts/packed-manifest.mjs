#!/usr/bin/env node
// The package.json that goes into the tarball: `npm pack` packs the file as it is on disk after prepack, so
// prepack (`write`) saves the clone's package.json aside and writes the packed one, and postpack
// (`restore`) puts the clone's back. A backup left by a pack that died half-way is restored first.
//
// The packed one lists no `dependencies`: the installed command runs its bundle (out/cli, every package
// bundled: scripts/build-cli.mjs), so `npm install -g` of the tarball fetches only the shipped Node
// (`optionalDependencies`) and runs no dependency's install script (protobufjs, ssh2 and cpu-features
// asked for theirs), nor warns about engines that only the machine's older npm-running Node misses.
// devDependencies and allowScripts go too (the clone's tooling); `scripts` stays (no install-time script is
// among them, and tests of the clone read them while a pack may be under way).
import {
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, 'package.json');
const backup = join(root, '.package.json.unpacked');

export function restore() {
  if (existsSync(backup)) renameSync(backup, file);
}

/** The manifest an installed package needs (`bin`, `files`, `engines`, the shipped Node...). */
export function packedManifest(pkg) {
  const { dependencies: _d, devDependencies: _dd, allowScripts: _a, ...rest } = pkg;
  return rest;
}

export function write() {
  restore();
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  copyFileSync(file, backup);
  // The clone's file comes back with its own times: `npm start` (scripts/workbench-build.mjs) hashes
  // package.json's mtime among its build inputs, and a pack must not make the next start rebuild.
  const { atime, mtime } = statSync(file);
  utimesSync(backup, atime, mtime);
  writeFileSync(file, JSON.stringify(packedManifest(pkg), null, 2) + '\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const verb = process.argv[2];
  if (verb === 'write') write();
  else if (verb === 'restore') restore();
  else {
    process.stderr.write('usage: packed-manifest.mjs write|restore\n');
    process.exit(2);
  }
}

// The workbench's electron-vite build, quiet (its log is printed only when it fails) and skipped when
// nothing it is built from changed since the last build: `npm start` and `npm pack` (prepack) use it.
// "Changed" is the path, size and modification time of every source file (src-main, src-preload,
// src-renderer) and of the build's configuration (electron.vite.config.ts, package.json, the lockfiles,
// tsconfig*.json), hashed into `<out>/.build-inputs`, written after a build that succeeded.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SOURCE_DIRS = ['src-main', 'src-preload', 'src-renderer'];
const CONFIG_FILES = [
  'electron.vite.config.ts',
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.node.json',
  'tsconfig.web.json',
];
/** What a build leaves; a build missing any of them is not up to date, whatever the stamp says. */
const OUTPUTS = ['main/index.js', 'preload/index.cjs', 'renderer/index.html'];

/** Where the build goes: $TOOLSMITH_OUT_DIR (see electron.vite.config.ts), else `<root>/out`. */
export const buildOut = (root) => process.env.TOOLSMITH_OUT_DIR ?? join(root, 'out');

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name === '__pycache__') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

/** The hash of what the build reads (see the top of this file). */
export function inputsStamp(root) {
  const h = createHash('sha256');
  const paths = [
    ...SOURCE_DIRS.flatMap((d) => [...files(join(root, d))]),
    ...CONFIG_FILES.map((f) => join(root, f)),
  ];
  for (const p of paths.sort()) {
    let st;
    try {
      st = statSync(p);
    } catch {
      h.update(`${relative(root, p)}\0missing\n`);
      continue;
    }
    h.update(`${relative(root, p)}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return h.digest('hex');
}

const stampFile = (out) => join(out, '.build-inputs');

/** True when the last build's outputs are there and nothing it was built from changed since. */
export function upToDate(root, out = buildOut(root), stamp = inputsStamp(root)) {
  if (!OUTPUTS.every((o) => existsSync(join(out, o)))) return false;
  try {
    return readFileSync(stampFile(out), 'utf8').trim() === stamp;
  } catch {
    return false;
  }
}

/**
 * Builds unless up to date (`force` always builds). Resolves to `{ built, ms }`; rejects with the
 * build's whole log when it fails.
 */
export function buildWorkbench(root, { force = false } = {}) {
  const out = buildOut(root);
  // Taken before the build: a file edited while it runs makes the next start build again.
  const stamp = inputsStamp(root);
  if (!force && upToDate(root, out, stamp)) return Promise.resolve({ built: false, ms: 0 });
  const bin = join(root, 'node_modules', '.bin', 'electron-vite');
  if (!existsSync(bin)) return Promise.reject(new Error(`${bin} is missing: run \`npm ci\` first`));
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    const log = [];
    p.stdout.on('data', (d) => log.push(d));
    p.stderr.on('data', (d) => log.push(d));
    p.on('error', (e) => reject(new Error(`could not run electron-vite: ${e.message}`)));
    p.on('close', (code) => {
      if (code !== 0) {
        const err = new Error(`the build failed (electron-vite exited ${code})`);
        err.log = Buffer.concat(log).toString();
        return reject(err);
      }
      writeFileSync(stampFile(out), `${stamp}\n`);
      resolve({ built: true, ms: Date.now() - started });
    });
  });
}

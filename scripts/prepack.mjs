#!/usr/bin/env node
// `npm pack`'s prepack: the workbench (electron-vite, only when a source changed since the last build)
// and the CLI bundle, quietly: one line each on stderr (stdout stays the `npm pack --json` answer), the
// build's whole log only when it fails.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { write as writePackedManifest } from './packed-manifest.mjs';
import { buildWorkbench } from './workbench-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
try {
  const r = await buildWorkbench(root);
  process.stderr.write(
    r.built
      ? `prepack: workbench built in ${(r.ms / 1000).toFixed(1)} s\n`
      : 'prepack: workbench up to date\n',
  );
} catch (e) {
  if (e.log) process.stderr.write(e.log);
  process.stderr.write(`prepack: ${e.message}\n`);
  process.exit(1);
}
const cli = spawn(process.execPath, [join(root, 'scripts', 'build-cli.mjs')], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
});
const log = [];
cli.stdout.on('data', (d) => log.push(d));
cli.stderr.on('data', (d) => log.push(d));
cli.on('close', (code) => {
  const text = Buffer.concat(log).toString();
  if (code !== 0) {
    process.stderr.write(text);
    process.stderr.write(`prepack: the CLI bundle failed (exit ${code}); its log is above\n`);
    process.exit(1);
  }
  // Its one summary line ("build:cli: out/cli in N s").
  process.stderr.write(
    text
      .split('\n')
      .filter((l) => l.startsWith('build:cli:'))
      .join('\n') + '\n',
  );
  // Last, once both builds stand: the package.json the tarball holds (postpack puts the clone's back).
  writePackedManifest();
  process.stderr.write('prepack: packed package.json lists no dependencies (all bundled in out/cli)\n');
});

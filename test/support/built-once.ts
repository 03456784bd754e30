/**
 * Vitest global setup of the integration project: what several files need and would otherwise build
 * at the same time (their files run several at once), built once before any file starts.
 * - The Python and Node sandbox images (tags carry a hash of their inputs: an image already built is
 *   kept, so this costs a second when ensure-env built them).
 * - The packed package (`npm pack`, whose prepack builds the workbench into out/ and the CLI bundle into
 *   out/cli, and rewrites package.json until postpack restores it): packed here, never while other files
 *   read out/ or package.json. Only when the run includes the install test (`inject('packedTarball')`);
 *   a run of that file alone without this set-up packs in the file.
 * - The command as installed (`inject('installedBin')`, test/support/cli-bin.ts), in the integration
 *   project: the CLI bundle (the pack's, else built here) copied into a package folder under a
 *   node_modules folder of the run's own, beside links to the clone's other packed folders. A copy:
 *   start-imports.test.ts rebuilds out/cli while other files run.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import type { TestProject } from 'vitest/node';
import { imagePaths } from '../../src-main/app/sandbox-factory.ts';
import { buildImage } from '../../src-main/infra/sandbox/images.ts';
import { repoRoot } from './workspace.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tarball `npm pack` made of this checkout, when the run includes the install test. */
    packedTarball?: string;
    /** bin/toolsmith.mjs of the installed layout (see the top of this file), in the integration project. */
    installedBin?: string;
  }
}

export const INSTALL_TEST = 'test/integration/cli/install.test.ts';

/** `npm pack` of the checkout into a new folder; the tarball's path. */
export function packCheckout(dest: string): string {
  // prepack's build logs go to stderr: stdout is the JSON answer.
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return join(dest, (JSON.parse(packed) as { filename: string }[])[0]!.filename);
}

/**
 * True when `file` is one of the project's files (`integration-serial` shares this set-up and has no
 * install test: it packed the package a second time) and the run's file filters (none: every file)
 * select it.
 */
function selected(project: TestProject, file: string): boolean {
  if (!project.matchesTestGlob(resolve(repoRoot, file))) return false;
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern ?? [];
  return filters.length === 0 || filters.some((f) => file.includes(f) || f.endsWith(file));
}

/**
 * The clone laid out as an installed package, `<dir>/node_modules/toolsmith-workbench`: bin/'s launchers
 * and the CLI bundle (out/cli, built by the caller) copied, the other folders the package ships linked.
 * Its bin/toolsmith.mjs.
 */
export function installedLayout(dir: string): string {
  const pkg = join(dir, 'node_modules', 'toolsmith-workbench');
  mkdirSync(join(pkg, 'out'), { recursive: true });
  cpSync(join(repoRoot, 'bin'), join(pkg, 'bin'), { recursive: true });
  cpSync(join(repoRoot, 'out', 'cli'), join(pkg, 'out', 'cli'), { recursive: true });
  // Readable by every user, as npm installs a package, whatever the umask of the person running the
  // tests: under `umask 077` the folders made here and the bundle built this run (copied with its
  // modes) were the runner's only, and a test that runs the command as another user
  // (docker-socket-eacces.test.ts) got "Cannot find module .../bin/toolsmith.mjs".
  readableByAll(join(dir, 'node_modules'));
  for (const f of ['package.json', 'src-main', 'resources', 'sandbox-images', 'node_modules'])
    symlinkSync(join(repoRoot, f), join(pkg, f));
  symlinkSync(join(repoRoot, 'out', 'renderer'), join(pkg, 'out', 'renderer'));
  return join(pkg, 'bin', 'toolsmith.mjs');
}

/** Folders 0755, files 0644 (0755 when executable), under `path` and `path` itself. */
function readableByAll(path: string): void {
  chmodSync(path, 0o755);
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    if (e.isDirectory()) readableByAll(p);
    else if (e.isFile()) chmodSync(p, statSync(p).mode & 0o111 ? 0o755 : 0o644);
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dirs: string[] = [];
  try {
    await new Docker().ping();
    for (const rt of ['python', 'node'] as const) await buildImage(new Docker(), rt, imagePaths());
  } catch {
    // No engine here: the files that need one fail with the fix in words (test/support/sandbox.ts).
  }
  let packed = false;
  if (selected(project, INSTALL_TEST)) {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-packed-'));
    dirs.push(dir);
    project.provide('packedTarball', packCheckout(dir));
    packed = true;
  }
  if (project.name === 'integration') {
    // The pack built out/cli just now; else it is built here (a few seconds).
    if (!packed)
      execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build-cli.mjs')], {
        cwd: repoRoot,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-installed-'));
    dirs.push(dir);
    // Readable by every user, as an installed package is: a test runs the command as another user
    // (docker-socket-eacces.test.ts).
    chmodSync(dir, 0o755);
    project.provide('installedBin', installedLayout(dir));
  }
  return () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
}

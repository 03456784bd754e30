/**
 * Vitest global setup of the integration project: what several files need and would otherwise build
 * at the same time (their files run several at once), built once before any file starts.
 * - The Python and Node sandbox images (tags carry a hash of their inputs: an image already built is
 *   kept, so this costs a second when ensure-env built them).
 * - The packed package (`npm pack`, whose prepack builds the workbench into out/ and the CLI bundle into
 *   out/cli, and rewrites package.json until postpack restores it): packed here, never while other files
 *   read out/ or package.json. Only when the run includes the install test (`inject('packedTarball')`);
 *   a run of that file alone without this set-up packs in the file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

export default async function setup(project: TestProject): Promise<() => void> {
  let dir: string | undefined;
  try {
    await new Docker().ping();
    for (const rt of ['python', 'node'] as const) await buildImage(new Docker(), rt, imagePaths());
  } catch {
    // No engine here: the files that need one fail with the fix in words (test/support/sandbox.ts).
  }
  if (selected(project, INSTALL_TEST)) {
    dir = mkdtempSync(join(tmpdir(), 'toolsmith-packed-'));
    project.provide('packedTarball', packCheckout(dir));
  }
  return () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

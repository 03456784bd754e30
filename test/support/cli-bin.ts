/**
 * The `toolsmith` command the integration tests start as a process. In the integration project it is
 * the command as installed (`built-once.ts` lays the CLI bundle out as a package under a node_modules
 * folder, so bin/start.mjs runs out/cli/main.js): a start loads a few bundled files instead of
 * type-stripping hundreds of sources (about half the CPU time of a start). Elsewhere, and in the tests
 * about the clone's own launcher, it is the clone's bin/toolsmith.mjs running the sources.
 */
import { join } from 'node:path';
import { inject } from 'vitest';
import { repoRoot } from './workspace.ts';

/** The clone's launcher, running the TypeScript sources. */
export const sourceBin = join(repoRoot, 'bin/toolsmith.mjs');

/** The launcher of the installed layout when this run made one, else the clone's. */
export function cliBin(): string {
  return inject('installedBin') ?? sourceBin;
}

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start").
const { existsSync } = process.getBuiltinModule('node:fs');

let cached: string | undefined;

/**
 * The repository's (or packaged app's) resources/ folder: $TOOLSMITH_RESOURCES, else the first
 * `resources/prompts` found walking up from this module (works from src-main/ and from a bundle in out/).
 */
export function resourcesDir(): string {
  if (cached) return cached;
  const env = process.env['TOOLSMITH_RESOURCES'];
  if (env && existsSync(join(env, 'prompts'))) return (cached = resolve(env));
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'resources', 'prompts'))) return (cached = join(dir, 'resources'));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error('cannot find the resources/ folder; set TOOLSMITH_RESOURCES');
}

/** The repository root (the folder holding resources/). */
export const repoRoot = (): string => dirname(resourcesDir());

export const sampleWorkspaceDir = (): string => join(resourcesDir(), 'workspace');

/**
 * Image paths and the cached-image check, without the Docker client: `toolsmith image build` answers
 * from here when the image is already built (one request to the engine's socket).
 */
import { join } from 'node:path';
import { imagePresent } from '../infra/sandbox/image-check.ts';
import { imageTag } from '../infra/sandbox/images.ts';
import type { ImagePaths, RuntimeImage } from '../infra/sandbox/images.ts';
import { repoRoot } from '../infra/workspace/paths.ts';

// Not an ES import of node:fs (its namespace costs a cached `image build` ~3 ms; docs/scaling.md, "CLI start").
const { existsSync } = process.getBuiltinModule('node:fs');

export function imagePaths(): ImagePaths {
  const local = join(repoRoot(), 'node_modules', 'node', 'bin', 'node');
  return {
    imagesDir: join(repoRoot(), 'sandbox-images'),
    nodeBinary: existsSync(local) ? local : process.execPath,
  };
}

/** The runtime's image tag when the local engine already has it; undefined when it must be built or cannot tell. */
export async function cachedImageTag(runtime: RuntimeImage): Promise<string | undefined> {
  if (process.env['TOOLSMITH_BACKEND'] === 'process') return undefined;
  const tag = imageTag(runtime, imagePaths());
  return (await imagePresent(tag)) === true ? tag : undefined;
}

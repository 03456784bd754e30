/**
 * The sandbox containers a test run leaves when a test kills a Toolsmith process with SIGKILL: nothing in
 * that process can remove them, and its installation (a folder of the run's own) is never started again,
 * so Toolsmith's own start-time cleanup never sees them. Removed when the file's home (and the run's) is.
 */
import { readdirSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';

/**
 * The data dirs under `dir` that hold an installation (its `installation-id` file). Symbolic links are
 * not followed: `readdirSync(dir, { recursive: true })` follows them, and a home holds the debootstrap
 * root the image build caches, whose `var/run -> /run` took the walk through the host's /run, where
 * dockerd's folders come and go (ENOENT at teardown: "error during close", the run's exit status 1
 * after every test passed). A folder gone while walked is skipped.
 */
export function installationDirs(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const found = entries.some((e) => e.name === 'installation-id' && !e.isDirectory()) ? [dir] : [];
  for (const e of entries) if (e.isDirectory()) found.push(...installationDirs(join(dir, e.name)));
  return found;
}

/**
 * Toolsmith's own leftover cleanup (`pruneLeftovers`, what `pool prune` runs) for every installation
 * made under `dir` (a file's or the run's home): only containers of those installations whose process
 * is gone are removed, so no container of the person's own Toolsmith, or of a process still running,
 * is touched. Says how many it removed.
 */
export async function removeRunContainers(dir: string): Promise<void> {
  const dirs = installationDirs(dir);
  if (dirs.length === 0) return;
  const [{ default: Docker }, { Installation, pruneLeftovers }] = await Promise.all([
    import('dockerode'),
    import('../../src-main/infra/sandbox/installation.ts'),
  ]);
  const docker = new Docker();
  let removed = 0;
  for (const d of dirs) removed += (await pruneLeftovers(docker, new Installation(d)).catch(() => [])).length;
  if (removed > 0)
    process.stderr.write(
      `[test home] removed ${removed} container(s) that killed test processes left (${dir})\n`,
    );
}

/**
 * The sandbox containers a test run leaves when a test kills a Toolsmith process with SIGKILL: nothing in
 * that process can remove them, and its installation (a folder of the run's own) is never started again,
 * so Toolsmith's own start-time cleanup never sees them. Removed when the file's home (and the run's) is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The installation ids written under `dir` (each file's data dir holds one: `installation-id`). */
function installationIds(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f === 'installation-id' || f.endsWith('/installation-id'))
    .flatMap((f) => {
      try {
        return [readFileSync(join(dir, f), 'utf8').trim()];
      } catch {
        return [];
      }
    });
}

/**
 * Removes the sandbox containers, in any state, of the installations whose ids are written under `dir`
 * (a file's or the run's home): only those labels are matched, so no container of the person's own
 * Toolsmith, or of another file still running, is touched. Says how many it removed.
 */
export async function removeRunContainers(dir: string): Promise<void> {
  const ids = installationIds(dir);
  if (ids.length === 0) return;
  const { default: Docker } = await import('dockerode');
  const docker = new Docker();
  let removed = 0;
  for (const id of new Set(ids)) {
    const left = await docker
      .listContainers({ all: true, filters: { label: [`toolsmith.installation=${id}`] } })
      .catch(() => []);
    for (const c of left)
      if (c.Labels['toolsmith.installation'] === id)
        removed += await docker
          .getContainer(c.Id)
          .remove({ force: true })
          .then(
            () => 1,
            () => 0,
          );
  }
  if (removed > 0)
    process.stderr.write(
      `[test home] removed ${removed} container(s) that killed test processes left (${dir})\n`,
    );
}

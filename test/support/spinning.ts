/**
 * Waits until scripts spin in containers: the outcome a test needs before it kills an engine, pauses a
 * worker or cancels a job "while the script runs", instead of a fixed sleep.
 */
import type Docker from 'dockerode';
import { expect, vi } from 'vitest';

/** CPU time a container has used so far, in ns (one sample of `docker stats`); 0 once it is gone. */
async function cpuNs(docker: Docker, id: string): Promise<number> {
  try {
    const s = (await docker
      .getContainer(id)
      .stats({ stream: false, 'one-shot': true } as { stream: false })) as {
      cpu_stats?: { cpu_usage?: { total_usage?: number } };
    };
    return s.cpu_stats?.cpu_usage?.total_usage ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Waits until `count` of the containers `list` returns have each burnt a second of CPU since the wait
 * first saw them: a busy loop runs in each. An idle worker burns next to none and a starting one less, so
 * "the script is in the container and running" holds however slow the machine is.
 */
export async function waitSpinning(
  docker: Docker,
  list: () => Promise<Pick<Docker.ContainerInfo, 'Id'>[]>,
  count = 1,
): Promise<void> {
  const first = new Map<string, number>();
  await vi.waitFor(
    async () => {
      let spinning = 0;
      for (const c of await list()) {
        const used = await cpuNs(docker, c.Id);
        if (!first.has(c.Id)) first.set(c.Id, used);
        if (used - first.get(c.Id)! > 1_000_000_000) spinning++;
      }
      expect(spinning).toBeGreaterThanOrEqual(count);
    },
    { timeout: 120_000, interval: 200 },
  );
}

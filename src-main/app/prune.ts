/**
 * Removes (or with `dryRun` only lists) the containers this installation's dead processes left on the
 * local engine: run at every start of the service (CLI verbs, `serve`, `mcp`, the workbench) and by
 * `toolsmith pool prune`. Never touches another installation's containers. A light module (Docker's
 * client and the installation only): every CLI verb loads it.
 */
import Docker from 'dockerode';
import { cancelledByStop } from '../infra/sandbox/docker-cancel.ts';
import {
  Installation,
  installationContainers,
  pidAlive,
  pruneLeftovers,
} from '../infra/sandbox/installation.ts';
import type { InstallationContainer, Leftover } from '../infra/sandbox/installation.ts';
import { SweepStopped } from './prune-light.ts';

/**
 * `stop` (a stop signal's close, cli/sweep.ts) cancels what still waits on the engine (its listing, a
 * removal: infra/sandbox/docker-cancel.ts): the sweep rejects with `SweepStopped`, naming those requests;
 * what it did not remove is left for the next start's sweep.
 */
export async function pruneLeftoverContainers(
  opts: { dryRun?: boolean; stop?: AbortSignal } = {},
): Promise<Leftover[]> {
  const { stop, ...rest } = opts;
  if (!stop) return pruneLeftovers(new Docker(), new Installation(), rest);
  const cancel = cancelledByStop(new Docker(), stop);
  try {
    return await pruneLeftovers(cancel.docker, new Installation(), rest);
  } catch (e) {
    if (stop.aborted) throw new SweepStopped(cancel.cut);
    throw e;
  }
}

export { SweepStopped };

/**
 * Every sandbox container of this installation (any Toolsmith process), for `pool status`; rejects when
 * the engine has not answered within `timeoutMs` (one that takes the connection and never answers held
 * the verb open after its answer).
 */
export async function listInstallationContainers(timeoutMs = 5000): Promise<InstallationContainer[]> {
  return installationContainers(new Docker({ timeout: timeoutMs }), new Installation());
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits until process `pid` has ended, then removes what it (and any other dead process of this
 * installation) left, pass after pass until the engine shows nothing left for `quietPasses` passes in a
 * row (a create the engine was still doing when the process ended shows up late), within `maxMs`. A pass
 * that fails (the engine busy removing the same container: 409) is tried again. Started detached by
 * `toolsmith mcp` when its client stops it and the containers are not all removed within its budget.
 */
export async function pruneAfterExit(
  pid: number,
  opts: { quietPasses?: number; intervalMs?: number; maxMs?: number } = {},
): Promise<Leftover[]> {
  const { quietPasses = 3, intervalMs = 1_000, maxMs = 120_000 } = opts;
  const end = Date.now() + maxMs;
  while (pidAlive(pid) && Date.now() < end) await sleep(20);
  const docker = new Docker();
  const installation = new Installation();
  const removed = new Map<string, Leftover>();
  for (let quiet = 0; quiet < quietPasses && Date.now() < end;) {
    const gone = await pruneLeftovers(docker, installation).catch(() => undefined);
    if (gone?.length === 0) quiet++;
    else quiet = 0;
    for (const c of gone ?? []) removed.set(c.id, c);
    if (quiet < quietPasses) await sleep(intervalMs);
  }
  return [...removed.values()];
}

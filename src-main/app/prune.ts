/**
 * Removes (or with `dryRun` only lists) the containers this installation's dead processes left on the
 * local engine: run at every start of the service (CLI verbs, `serve`, `mcp`, the workbench) and by
 * `toolsmith pool prune`. Never touches another installation's containers. A light module (Docker's
 * client and the installation only): every CLI verb loads it.
 */
import Docker from 'dockerode';
import { Installation, installationContainers, pruneLeftovers } from '../infra/sandbox/installation.ts';
import type { InstallationContainer, Leftover } from '../infra/sandbox/installation.ts';

export async function pruneLeftoverContainers(opts: { dryRun?: boolean } = {}): Promise<Leftover[]> {
  return pruneLeftovers(new Docker(), new Installation(), opts);
}

/** Every sandbox container of this installation (any Toolsmith process), for `pool status`. */
export async function listInstallationContainers(): Promise<InstallationContainer[]> {
  return installationContainers(new Docker(), new Installation());
}

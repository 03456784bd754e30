/**
 * The sandbox system for every front end: its status (a status that says Docker is missing when no
 * backend starts), and building a runtime's image with its progress pushed to front ends.
 */
import { runtimeRegistry } from '../core/sandbox/runtimes.ts';
import type { RuntimeId, RuntimeSpec } from '../core/sandbox/runtimes.ts';
import type { Response } from '../contract/api.ts';
import type { ConfigDeps, PushDeps, SandboxDeps, WorkspaceDeps } from './deps.ts';
import { errorMessage } from '../core/errors.ts';

export const NO_DOCKER_HINT =
  'Install Docker (Debian: apt-get install docker.io) and start it (systemctl start docker, or dockerd &).';

/**
 * The hint for an engine that cannot be used: installing Docker when none answered, fixing the socket
 * when the error says what is wrong with it (this user may not open it, the engine refused with HTTP
 * 401/403, the path is not a socket).
 */
export function noDockerHint(error: string): string {
  return /cannot be opened by this user|answered HTTP 40[13]|, not a socket/.test(error)
    ? 'Docker need not be installed again: fix the socket as the error says.'
    : NO_DOCKER_HINT;
}

/** Engine, isolation, images and pools; without a sandbox backend, a status that says why. */
export async function systemStatus(
  svc: SandboxDeps & Partial<WorkspaceDeps>,
): Promise<Response<'system.status'>> {
  const problem = svc.files?.configProblem;
  const warnings = svc.files?.configWarnings ?? [];
  const config = {
    ...(problem ? { configProblem: problem } : {}),
    ...(warnings.length ? { configWarnings: warnings } : {}),
  };
  try {
    return { ...(await (await svc.sandbox()).status()), ...config };
  } catch (e) {
    return {
      docker: { available: false, error: errorMessage(e), hint: noDockerHint(errorMessage(e)) },
      isolation: 'none',
      images: [],
      pools: [],
      ...config,
    };
  }
}

/**
 * Builds a runtime's image and, with `sandbox`, that sandbox's derived image. Every output line is pushed
 * to front ends (`image_progress`, the last one `done`, with the error when the build failed) and given
 * to `onLine`.
 */
export async function buildImage(
  svc: SandboxDeps & PushDeps,
  runtime: RuntimeId,
  sandbox?: string,
  onLine?: (line: string) => void,
): Promise<Response<'system.buildImage'>> {
  const manager = await svc.sandbox();
  try {
    const r = await manager.buildImage(
      runtime,
      (line) => {
        svc.push({ type: 'image_progress', runtime, sandbox, line });
        onLine?.(line);
      },
      sandbox,
    );
    svc.push({ type: 'image_progress', runtime, sandbox, line: `built ${r.tag}`, done: true });
    return r;
  } catch (e) {
    svc.push({
      type: 'image_progress',
      runtime,
      sandbox,
      line: 'build failed',
      done: true,
      error: errorMessage(e),
    });
    throw e;
  }
}

/** The runtime registry with the workspace's settings. */
export function runtimes(svc: ConfigDeps): RuntimeSpec[] {
  return runtimeRegistry(svc.config.runtimes);
}

/** Runtimes enabled in the config, in registry order (python, the default, first). */
export function enabledRuntimes(svc: ConfigDeps): string[] {
  return runtimes(svc)
    .filter((r) => r.enabled)
    .map((r) => r.id);
}

/** The sandbox system feature every front end calls (built once by the composition root). */
export function systemFeature(deps: SandboxDeps & PushDeps & ConfigDeps & Partial<WorkspaceDeps>) {
  return {
    /** Docker, isolation, images and pools (a status saying why when no backend starts). */
    status: () => systemStatus(deps),
    /** Builds a runtime's image (and a sandbox's derived one), progress pushed and given to `onLine`. */
    buildImage: (runtime: RuntimeId, sandbox?: string, onLine?: (line: string) => void) =>
      buildImage(deps, runtime, sandbox, onLine),
    /** The runtime registry with this workspace's settings. */
    runtimes: () => runtimes(deps),
    /** Runtimes enabled in the config, in registry order (python, the default, first). */
    enabledRuntimes: () => enabledRuntimes(deps),
  };
}
export type SystemFeature = ReturnType<typeof systemFeature>;

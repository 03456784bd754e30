/**
 * A sandbox container of this installation as the pool labels its own, created only (never started):
 * the leftover sweep and `pool status` tell one from another by these labels alone (a running
 * instance's, a dead instance's: a leftover). Returns its id; the caller removes it.
 */
import { execFileSync } from 'node:child_process';
import { INSTALLATION_LABEL, INSTANCE_LABEL } from '../../../../src-main/infra/sandbox/installation.ts';

export function createPoolContainer(
  image: string,
  labels: { installation: string; instance: string; owner?: number; sandbox?: string },
): string {
  const label = (l: string) => ['--label', l];
  return execFileSync(
    'docker',
    [
      'create',
      '--network',
      'none',
      ...label('toolsmith.pool=1'),
      ...label(`${INSTALLATION_LABEL}=${labels.installation}`),
      ...label(`${INSTANCE_LABEL}=${labels.instance}`),
      ...(labels.owner !== undefined ? label(`toolsmith.owner=${labels.owner}`) : []),
      ...(labels.sandbox !== undefined ? label(`toolsmith.sandbox=${labels.sandbox}`) : []),
      image,
      'true',
    ],
    { encoding: 'utf8' },
  ).trim();
}

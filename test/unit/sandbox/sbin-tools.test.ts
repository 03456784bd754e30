/**
 * debootstrap and dockerd live in /usr/sbin on Debian, which a PATH of /usr/bin:/bin (cron's, many CI
 * runners') leaves out: the image build (images.ts `sbinTool`, for the Python base's debootstrap) and
 * scripts/ensure-env.sh look in the sbin folders too. Before, both asked PATH alone: the image build said
 * "debootstrap is not installed" and ensure-env.sh reinstalled docker.io and debootstrap (and ran dockerd
 * by a name its PATH did not hold).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sbinTool } from '../../../src-main/infra/sandbox/images.ts';
import { repoRoot } from '../../support/workspace.ts';

const CRON_PATH = '/usr/bin:/bin';

describe('system programs outside PATH', () => {
  it('finds debootstrap and dockerd in the sbin folders with PATH=/usr/bin:/bin, and runs them with those folders', () => {
    // (this machine's, as scripts/ensure-env.sh installs them: Debian puts both in /usr/sbin)
    expect(existsSync('/usr/sbin/debootstrap') && existsSync('/usr/sbin/dockerd')).toBe(true);
    for (const name of ['debootstrap', 'dockerd']) {
      const found = sbinTool(name, { PATH: CRON_PATH });
      expect(found.path, found.looked).toBe(`/usr/sbin/${name}`);
      // What it runs from there (debootstrap: chroot) is found on the PATH it gets.
      const chroot = spawnSync('sh', ['-c', 'command -v chroot'], {
        env: { PATH: found.childPath },
        encoding: 'utf8',
      });
      expect(chroot.stdout.trim()).toMatch(/^\/(usr\/)?sbin\/chroot$/);
    }
    // PATH first: a program on PATH is the one taken, and the sbin folders already on it are not repeated.
    const onPath = sbinTool('sh', { PATH: '/usr/sbin:/usr/bin:/bin' });
    expect(onPath.path).toBe('/usr/bin/sh');
    expect(onPath.childPath).toBe('/usr/sbin:/usr/bin:/bin:/usr/local/sbin:/sbin');
  });

  it('says where it looked when a program is nowhere', () => {
    const none = sbinTool('toolsmith-no-such-program', { PATH: CRON_PATH });
    expect(none.path).toBeUndefined();
    expect(none.looked).toBe('looked for on PATH /usr/bin:/bin and in /usr/local/sbin, /usr/sbin, /sbin');
  });

  it('scripts/ensure-env.sh --check with PATH=/usr/bin:/bin does not take dockerd or debootstrap for missing', () => {
    const r = spawnSync('bash', [join(repoRoot, 'scripts/ensure-env.sh'), '--check'], {
      env: { PATH: CRON_PATH, HOME: process.env['HOME'] ?? '/root' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const need = r.stdout.trim().split(/\s+/).filter(Boolean);
    expect(need).not.toContain('docker.io');
    expect(need).not.toContain('debootstrap');
  });
});

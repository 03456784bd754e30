/**
 * The node image's sandbox user has a name: the image build wrote its passwd line to `/etc-passwd` (a
 * slip for `etc/passwd`), so the image had no /etc/passwd at all and the worker's uid 65534 resolved to
 * nothing (`os.userInfo()` failed with ENOENT), unlike the bun and deno images. Builds (or reuses) the
 * node image only and reads it as the sandbox user, on the local Docker engine.
 */
import { spawnSync } from 'node:child_process';
import Docker from 'dockerode';
import { beforeAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { requireDocker } from '../../support/sandbox.ts';

let tag: string;
beforeAll(async () => {
  const docker = new Docker();
  await requireDocker(docker);
  tag = await buildImage(docker, 'node', imagePaths());
}, 600_000);

/** Runs `code` with the image's node, as the image's user (65534), with no network. */
function nodeIn(code: string) {
  return spawnSync(
    'docker',
    ['run', '--rm', '--network', 'none', '--entrypoint', '/usr/local/bin/node', tag, '-e', code],
    { encoding: 'utf8', timeout: 120_000 },
  );
}

describe('the node image', () => {
  it('resolves its sandbox user: /etc/passwd names uid 65534 nobody, and nothing lies at /etc-passwd', () => {
    const r = nodeIn(`
const fs = require('node:fs');
const os = require('node:os');
console.log(JSON.stringify({
  uid: process.getuid(),
  user: os.userInfo().username,
  home: os.userInfo().homedir,
  passwd: fs.readFileSync('/etc/passwd', 'utf8'),
  group: fs.readFileSync('/etc/group', 'utf8'),
  stray: fs.existsSync('/etc-passwd'),
}));
`);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      uid: 65534,
      user: 'nobody',
      home: '/tmp',
      passwd: 'nobody:x:65534:65534:nobody:/tmp:/nonexistent\n',
      group: 'nogroup:x:65534:\n',
      stray: false,
    });
  });
});

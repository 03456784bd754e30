/** Where a process worker's cgroup is made, from /proc/self/mountinfo and /proc/self/cgroup (v1 and v2). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupLayout } from '../../../src-main/infra/sandbox/cgroups.ts';

/** The fake cgroup2 roots the tests make, removed when the file ends (they were left in the temp folder). */
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
const cgroup2Root = () => {
  const root = mkdtempSync(join(tmpdir(), 'cg2-'));
  roots.push(root);
  return root;
};
/**
 * A mount point as /proc/self/mountinfo writes it: space, tab, newline and backslash as octal escapes
 * (a $TMPDIR with a space in it, as a person's may be, split the line's fields).
 */
const mountField = (path: string) =>
  path.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);

const HYBRID_MOUNTS = `
30 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec - tmpfs tmpfs ro,mode=755
31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw
33 30 0:29 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,memory
34 30 0:30 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,pids
35 30 0:31 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,cpu,cpuacct
`;
const HYBRID_SELF = `
12:pids:/user.slice/user-1000.slice
5:memory:/user.slice/user-1000.slice/session-2.scope
3:cpu,cpuacct:/
0::/user.slice/user-1000.slice/session-2.scope
`;

describe('cgroup layout', () => {
  it('v1 (hybrid host): a parent under our own group of the pids and of the memory hierarchy', () => {
    // (the unified mount here has no controllers file: v2 is not usable)
    expect(cgroupLayout(HYBRID_MOUNTS, HYBRID_SELF, 4242)).toEqual({
      kind: 'v1',
      parents: [
        '/sys/fs/cgroup/pids/user.slice/user-1000.slice/toolsmith-4242',
        '/sys/fs/cgroup/memory/user.slice/user-1000.slice/session-2.scope/toolsmith-4242',
      ],
    });
  });

  it('v1 inside a container: the mount root is stripped from our path', () => {
    const mounts =
      '40 30 0:29 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n41 30 0:30 /docker/abc /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n';
    const self = '4:memory:/docker/abc\n8:pids:/docker/abc\n';
    expect(cgroupLayout(mounts, self, 7)?.parents).toEqual([
      '/sys/fs/cgroup/pids/toolsmith-7',
      '/sys/fs/cgroup/memory/toolsmith-7',
    ]);
  });

  it('v2 with pids and memory: one parent at the top of the hierarchy', () => {
    const root = cgroup2Root();
    writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma misc\n');
    const mounts = `26 1 0:23 / ${mountField(root)} rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate\n`;
    expect(cgroupLayout(mounts, '0::/system.slice/toolsmith.service\n', 9)).toEqual({
      kind: 'v2',
      parents: [join(root, 'toolsmith-9')],
    });
  });

  it('v2 without the memory controller, and no v1 hierarchy: none', () => {
    const root = cgroup2Root();
    writeFileSync(join(root, 'cgroup.controllers'), 'cpu io pids\n');
    const mounts = `26 1 0:23 / ${mountField(root)} rw - cgroup2 cgroup2 rw\n`;
    expect(cgroupLayout(mounts, '0::/\n', 9)).toBeUndefined();
  });
});

/**
 * Every process factory of one process makes its workers' cgroups under one parent, `toolsmith-<pid>`
 * (infra/sandbox/cgroups.ts). One factory's dispose removed that parent whenever it was empty for a
 * moment (another factory between a worker and its replacement), and the other factory's next worker
 * failed: "could not make the worker's cgroup: ENOENT" (seen with several bubblewrap factories of one
 * test file at once). The parent now goes with the last factory of the process.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WorkerCgroups } from '../../../src-main/infra/sandbox/cgroups.ts';

describe('process factories of one process share the cgroup parent', () => {
  it("one's dispose leaves the parent to the other, whose next worker's group is made; the last removes it", () => {
    const a = WorkerCgroups.detect();
    const b = WorkerCgroups.detect();
    expect(a.cgroups, `this machine offers writable cgroups: ${a.reason}`).toBeDefined();
    expect(b.cgroups, b.reason).toBeDefined();
    const first = a.cgroups as WorkerCgroups;
    const second = b.cgroups as WorkerCgroups;
    const g1 = second.create('before', { pids: 8, memoryBytes: 64 << 20 });
    const parent = g1.dirs.map((d) => d.slice(0, d.lastIndexOf('/')));
    expect(g1.remove()).toBe(true);
    first.dispose();
    first.dispose(); // (twice: still one user less)
    // (before: the parent went with the first factory, and this threw ENOENT)
    const g2 = second.create('after', { pids: 8, memoryBytes: 64 << 20 });
    expect(g2.remove()).toBe(true);
    second.dispose();
    for (const p of parent) expect(existsSync(p), p).toBe(false);
  });
});

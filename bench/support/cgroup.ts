import { readFileSync } from 'node:fs';

/** CPU time (ms) so far of a container's cgroup (everything in it: worker, fork server, jobs; under gVisor the sandbox kernel too). */
export function cgroupCpuMs(id: string): number | undefined {
  for (const [path, parse] of [
    [`/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`, (t: string) => Number(t) / 1e6],
    [
      `/sys/fs/cgroup/system.slice/docker-${id}.scope/cpu.stat`,
      (t: string) => Number(/usage_usec (\d+)/.exec(t)?.[1]) / 1e3,
    ],
    [`/sys/fs/cgroup/docker/${id}/cpu.stat`, (t: string) => Number(/usage_usec (\d+)/.exec(t)?.[1]) / 1e3],
  ] as const) {
    try {
      return parse(readFileSync(path, 'utf8'));
    } catch {
      /* the next layout */
    }
  }
  return undefined;
}

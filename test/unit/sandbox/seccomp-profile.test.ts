import { describe, expect, it } from 'vitest';
import { hostConfig, DEFAULT_LIMITS } from '../../../src-main/infra/sandbox/docker.ts';
import { DENIED, dockerSeccompProfile } from '../../../src-main/infra/sandbox/seccomp.ts';

interface Rule {
  names: string[];
  action: string;
  errnoRet?: number;
  args?: { index: number; value: number; valueTwo: number; op: string }[];
}

describe("the containers' own seccomp profile", () => {
  const profile = JSON.parse(dockerSeccompProfile()) as { defaultAction: string; syscalls: Rule[] };
  const plain = profile.syscalls.filter((r) => !r.args);
  const denied = new Set(plain.filter((r) => r.errnoRet === 1).flatMap((r) => r.names));

  it("refuses the process level's deny-list but mount (the job's own setup needs it)", () => {
    expect(profile.defaultAction).toBe('SCMP_ACT_ALLOW');
    for (const name of Object.keys(DENIED))
      expect([name, denied.has(name)]).toEqual([name, name !== 'mount']);
    for (const name of [
      'io_uring_setup',
      'io_uring_enter',
      'bpf',
      'userfaultfd',
      'keyctl',
      'ptrace',
      'setns',
    ])
      expect(denied.has(name)).toBe(true);
  });

  it('fails clone3 with ENOSYS and refuses clone/unshare with the UTS, net and cgroup flags only', () => {
    expect(plain.find((r) => r.names.includes('clone3'))?.errnoRet).toBe(38);
    const flagged = profile.syscalls.filter((r) => r.args);
    const bits = (name: string) =>
      flagged
        .filter((r) => r.names.includes(name))
        .map((r) => r.args?.[0])
        .map((a) => (a && a.op === 'SCMP_CMP_MASKED_EQ' && a.value === a.valueTwo ? a.value : -1));
    expect(bits('clone').sort((a, b) => a - b)).toEqual([0x02000000, 0x04000000, 0x40000000]);
    // CLONE_NEWUSER | NEWPID | NEWNS | NEWIPC: what the fork server makes each job with.
    for (const b of bits('clone')) expect(b & (0x10000000 | 0x20000000 | 0x00020000 | 0x08000000)).toBe(0);
    expect(bits('unshare')).toContain(0x80);
  });

  it('is what every sandbox container gets, with the worker as pid 1 and no masked /proc paths', () => {
    const hc = hostConfig(DEFAULT_LIMITS);
    expect(hc.SecurityOpt).toEqual(['no-new-privileges', `seccomp=${dockerSeccompProfile()}`]);
    expect(hc.Init).toBe(false);
    expect(hc.MaskedPaths).toEqual([]);
    expect(hc.ReadonlyPaths).toEqual([]);
    expect(hc.CapDrop).toEqual(['ALL']);
  });
});

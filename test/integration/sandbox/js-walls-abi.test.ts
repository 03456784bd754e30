/**
 * JS jobs' filters against the 32-bit ABI (docs/security.md; the Python side: walls-abi.test.ts): an
 * x86_64 process may still enter the kernel through `int 0x80`, where every call has the i386 ABI's number
 * and seccomp_data's architecture is i386's. A node, bun or deno job's process gets the job filter
 * (`assemble`) and the IPC filter (`deny_ipc`) from its launcher, sandbox-images/node/native/jobns-launch.c;
 * both check the architecture first and refuse another. The attack: a script that escaped the language
 * (TOOLSMITH_TEST_WALLS=jsescape) runs `jsprobe i386` (test/fixtures/sandbox/jsprobe.c), which makes
 * walls-abi's ten calls (keyctl, io_uring_setup, personality, unshare CLONE_NEWUSER, userfaultfd, bpf,
 * ptrace TRACEME, shmget, semget, msgget) through inline `int $0x80`, each in a child of its own, and
 * removes at once whatever it made.
 * - Through a JS job (docker node, bun, deno; bubblewrap node): every call refused. There the filter
 *   around the sandbox answers first (runc's profile lists x86_64 alone: SIGSYS; bubblewrap's filter:
 *   EPERM), so these cases hold with the launcher's filters gone too: they are the whole stack's.
 * - The launcher's filters alone: no test switch takes the container's profile or bubblewrap's filter
 *   away from a worker, so the launcher is run as the worker runs it (`--keep /opt/toolsmith -- PROGRAM`),
 *   in a container of the sandbox's HostConfig but with `seccomp=unconfined`, where its filters are the
 *   only ones: each alone (`noipcfilter`, `noseccomp`), both, both without the namespaces (`launchplain`)
 *   refuse every call with EPERM; with neither, the same calls are made (the control: the probe sees a
 *   made call). These fail with the architecture checks removed from `assemble` and `deny_ipc`.
 * - gVisor (bun, rooted): runsc (ptrace platform) takes `int 0x80` from a 64-bit process as the x86_64
 *   call of the same number (eax 39 answers the pid there, where i386's 39 is mkdir), so no i386 call is
 *   ever made: the job filter judges each number by its x86_64 rules.
 */
import { arch } from 'node:os';
import Docker from 'dockerode';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { hostConfig } from '../../../src-main/infra/sandbox/docker.ts';
import { kernelTakesInt80 } from '../../support/int80.ts';
import { requireDocker, TEST_LIMITS } from '../../support/sandbox.ts';
import {
  PROBE_IN_IMAGE,
  probeImage,
  probeOnBubblewrap,
  probeOnDocker,
  useProbe,
  useProbeLevel,
} from './support/jsprobe.ts';
import type { ProbeLevel } from './support/jsprobe.ts';

if (arch() !== 'x64') throw new Error('js-walls-abi.test.ts attacks the x86_64 kernel: x86_64 only');

useProbe();

/** The ten calls, in the probe's order: the job filter's seven, then the IPC filter's three. */
const CALLS = [
  'keyctl',
  'io_uring_setup',
  'personality',
  'unshare_user',
  'userfaultfd',
  'bpf',
  'ptrace_traceme',
  'shmget',
  'semget',
  'msgget',
];
type Calls = Record<string, number | string>;
/** Every call answered `v`. */
const all = (v: number | string): Calls => Object.fromEntries(CALLS.map((c) => [c, v]));
/**
 * What every call answers where the filters answer `v`: on a machine whose kernel has no `int 0x80`
 * entry (support/int80.ts), each is a fault (SIGSEGV) before any filter is asked, and none is made.
 */
const filtered = (v: number | string): Calls => all(kernelTakesInt80() ? v : 'signal 11');

const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };
`;
/** The job's side: the probe's answers and the filters on the job's process. */
const ATTACK = (probe: string) => `const r = sys('run', ${JSON.stringify(probe)}, 'i386');
const status = sys('read', '/proc/self/status');
emitResult({ calls: JSON.parse(r.stdout), filters: Number(/^Seccomp_filters:\\s*(\\d+)/m.exec(status)?.[1] ?? -1) });
`;

interface Level extends ProbeLevel {
  /** What every call answers there (a map), or what must hold of the answers. */
  expected: Calls | ((calls: Calls) => void);
  /** The seccomp filters on the job's process (the sandbox's, the job filter, the IPC filter). */
  filters: number | undefined;
}

const JSESCAPE = ['jsescape'];

// runc's profile (seccomp.ts dockerSeccompProfile) lists x86_64 alone: a call of another architecture
// ends the process (SIGSYS) before the launcher's filters are asked.
const RUNC = { expected: all('signal 31'), filters: 3 };
const LEVELS: Level[] = [
  { ...probeOnDocker('node', JSESCAPE), ...RUNC },
  { ...probeOnDocker('bun', JSESCAPE), ...RUNC },
  // (deno's job process with every permission under jsescape, as if deno's own had fallen: worker.mjs)
  { ...probeOnDocker('deno', JSESCAPE), ...RUNC },
  {
    ...probeOnBubblewrap(JSESCAPE),
    // (bubblewrap's filter, seccomp.ts: another architecture EPERM)
    expected: all(-1),
    filters: 3,
  },
  {
    ...probeOnDocker('bun', JSESCAPE, true),
    // runsc takes `int 0x80` as the x86_64 call of the same number (runsc ignores the container's profile:
    // the job filter and the IPC filter are the only ones): 288 accept4 (EINVAL), 425 io_uring_setup and
    // 310 process_vm_readv refused by the job filter (EPERM), 136 ustat, 374, 357, 395, 393, 399 none in
    // gVisor (ENOSYS), 26 msync(NULL, 0, 0) 0: no i386 call, so no IPC object and no namespace made.
    // (the answers above are runsc 20221219's; another runsc may answer other errors or run the calls
    // as another ABI: what must hold anywhere is that none of the ten is made as the call it names)
    expected: (calls) => {
      expect(Object.keys(calls)).toEqual(CALLS);
      // (but 26, ptrace there, is x86_64's msync(NULL, 0, 0) here, which answers 0 and traces nothing)
      const made = CALLS.filter(
        (c) => c !== 'ptrace_traceme' && typeof calls[c] === 'number' && calls[c] >= 0,
      );
      expect(made, JSON.stringify(calls)).toEqual([]);
    },
    filters: undefined,
  },
];

for (const level of LEVELS) {
  describe(`JS jobs and the 32-bit ABI: ${level.name}`, () => {
    const made = useProbeLevel(level);

    it('every call of the job filter and the IPC filter made through int 0x80 is refused, none made', async () => {
      const { backend, probe } = made();
      const r: ExecutionResult = await backend.execute({
        sandbox: 'jswallsabi',
        runtime: level.runtime,
        language: 'js',
        code: SYS + ATTACK(probe),
        bodyStartLine: 1,
        tools: {},
        timeoutMs: 60_000,
      });
      expect(r.error, JSON.stringify(r.error)).toBeUndefined();
      const got = r.data as { calls: Calls; filters: number };
      if (typeof level.expected === 'function') level.expected(got.calls);
      else expect(got.calls).toEqual(kernelTakesInt80() ? level.expected : all('signal 11'));
      // (the launcher's two filters on top of the sandbox's: they are there, masked by it)
      if (level.filters !== undefined) expect(got.filters).toBe(level.filters);
    }, 300_000);
  });
}

/**
 * The launcher's filters alone: the launcher started as the worker starts it, in a container of the
 * sandbox's HostConfig (no capability, no new privileges, the sandbox user, /proc unmasked) but without
 * the container's seccomp profile, the probe as its PROGRAM. Its output is the probe's line (or the
 * launcher's refusal on stderr).
 */
describe("JS jobs and the 32-bit ABI: the launcher's filters alone (docker, node image, no container profile)", () => {
  const docker = new Docker();
  let image: string;
  beforeAll(async () => {
    await requireDocker(docker);
    image = await probeImage(docker, 'node');
  }, 300_000);

  async function launch(wallsOff: string[]): Promise<Calls> {
    const base = hostConfig(TEST_LIMITS);
    const c = await docker.createContainer({
      Image: image,
      Entrypoint: ['/opt/toolsmith/jobns-launch'],
      Cmd: ['--keep', '/opt/toolsmith', '--', PROBE_IN_IMAGE, 'i386'],
      User: '65534:65534',
      WorkingDir: '/tmp',
      Env: [
        'TOOLSMITH_PRIVATE_TMP=1',
        ...(wallsOff.length ? [`TOOLSMITH_TEST_WALLS=${wallsOff.join(',')}`] : []),
      ],
      Labels: { 'toolsmith.test': '1' },
      HostConfig: {
        ...base,
        SecurityOpt: ['no-new-privileges', 'seccomp=unconfined'],
        LogConfig: { Type: 'json-file', Config: {} },
      },
    });
    try {
      await c.start();
      const { StatusCode } = (await c.wait()) as { StatusCode: number };
      const out = (await c.logs({ stdout: true, stderr: false })).toString('latin1');
      const err = (await c.logs({ stdout: false, stderr: true })).toString('latin1');
      expect(StatusCode, err).toBe(0);
      // (the log stream's 8-byte frame headers before the line)
      const line = /\{.*\}/.exec(out)?.[0];
      if (!line) throw new Error(`no line from the probe: ${JSON.stringify(out)} ${err}`);
      return JSON.parse(line) as Calls;
    } finally {
      await c.remove({ force: true });
    }
  }

  it.each([
    ['both filters', []],
    ['the job filter alone (noipcfilter)', ['noipcfilter']],
    ['the IPC filter alone (noseccomp)', ['noseccomp']],
    ['both filters, no namespace (launchplain)', ['launchplain']],
  ])(
    '%s: every call refused with EPERM',
    async (_, off) => {
      expect(await launch(off)).toEqual(filtered(-1));
    },
    120_000,
  );

  it('the control, neither filter: the same calls are made (so the probe sees a call made)', async () => {
    const got = await launch(['noseccomp', 'noipcfilter']);
    expect(Object.keys(got)).toEqual(CALLS);
    // (a machine with no int 0x80 entry: the fault the host's own probe saw, every call, no filter asked)
    if (!kernelTakesInt80()) return expect(got).toEqual(all('signal 11'));
    // i386 personality's query, ptrace TRACEME, an IPC object of each kind (removed at once), a keyring id
    const made = ['keyctl', 'personality', 'ptrace_traceme', 'shmget', 'semget', 'msgget'];
    expect(
      made.filter((call) => !(typeof got[call] === 'number' && got[call] >= 0)),
      JSON.stringify(got),
    ).toEqual([]);
  }, 120_000);
});

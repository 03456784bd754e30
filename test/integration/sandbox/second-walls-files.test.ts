/**
 * The wipe alone against files (docs/security.md, "Every job alone"): with the job's namespaces off
 * (`nojobns`), a job writes a file into every folder it can write anywhere below the sandbox's writable
 * mounts, not only at their top (a folder the sandbox itself made there, which the wipe keeps as it was
 * at the worker's start), and the next job on the same worker looks for any of them. On the process level
 * the worker's folder lives in the host's temporary folder, bound at the same path into the sandbox's
 * /tmp: with a nested TMPDIR (Debian's libpam-tmpdir sets /tmp/user/<uid>) bubblewrap makes its parents
 * in the sandbox's /tmp, owned by the sandbox's user, and the wipe kept them, files and all.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { jsJobs } from './support/js-job.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { bubblewrapFactory, dockerFactory, oneWorker, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const ATTACK = `
_DEEP_NAME = "toolsmith-deep-plant"


def _deep_folders():
    """Every folder below a read-write mount (and the cwd) this job may write into, links not followed."""
    tops = {os.getcwd()}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            cols = line.split()
            if len(cols) > 5 and "rw" in cols[5].split(",") and not cols[4].startswith(("/proc", "/sys")) and cols[4] != "/":
                tops.add(cols[4])
    found = set()
    for top in sorted(tops):
        for d, subs, _ in os.walk(top):
            subs[:] = [s for s in subs if not os.path.islink(os.path.join(d, s))]
            if os.access(d, os.W_OK | os.X_OK):
                found.add(d)
    return sorted(found)


def _deep_worker():
    with open(f"/proc/{os.getppid()}/stat") as f:
        start = f.read().rsplit(")", 1)[1].split()[19]
    return f"{os.uname().nodename}/{os.getppid()}/{start}"


def _names(d):
    try:
        return os.listdir(d)
    except OSError:
        return []


@tool(grade=(2, 2))
def deep_plant(lock: bool = False) -> ToolResponse:
    """A file in every folder this job can write, however deep; \`lock\`: then every folder it owns made
    mode 000, deepest first (the mount's own root included where the job's uid owns it), so that a wipe
    that lists them as they are finds nothing."""
    wrote, locked = [], []
    for d in _deep_folders():
        try:
            with open(os.path.join(d, _DEEP_NAME), "w") as f:
                f.write("secret")
            wrote.append(d)
        except OSError:
            pass
    if lock:
        for d in sorted(wrote, key=lambda d: -d.count("/")):
            try:
                if os.stat(d).st_uid == os.geteuid():
                    os.chmod(d, 0)
                    locked.append(d)
            except OSError:
                pass
    return ToolResponse(success=True, data={"worker": _deep_worker(), "wrote": wrote, "locked": locked})


@tool(grade=(1, 0))
def deep_find() -> ToolResponse:
    """Every file an earlier job's deep_plant left that this job can see (folders it owns that an earlier
    job of its uid locked are opened again first)."""
    for top in ("/tmp", "/dev/shm", os.getcwd()):
        for d in [top] + [os.path.join(top, n) for n in _names(top)]:
            try:
                if os.stat(d).st_uid == os.geteuid() and os.path.isdir(d):
                    os.chmod(d, 0o755)
            except OSError:
                pass
    seen = [d for d in _deep_folders() if os.path.lexists(os.path.join(d, _DEEP_NAME))]
    for top in ("/tmp", "/dev/shm"):
        for d, subs, files in os.walk(top):
            if _DEEP_NAME in files and d not in seen:
                seen.append(d)
    return ToolResponse(success=True, data={"worker": _deep_worker(), "seen": sorted(seen)})
`;

const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8') + '\n' + ATTACK;
const TOOLS = ['add', 'deep_plant', 'deep_find'];

const ok = (r: ExecutionResult) => {
  expect(r.success, JSON.stringify(r.error)).toBe(true);
  return r.data as { worker: string; wrote?: string[]; seen?: string[] };
};

/** A bubblewrap factory made while TMPDIR names a nested folder of /tmp (the worker's folder goes there). */
async function nestedTmpdir(): Promise<TestFactory> {
  const nested = join(tmpdir(), `qa-user-${process.pid}`, '1000');
  // (0755 whatever the person's umask: under `umask 077` both were 0700, which the probe's uid, nobody,
  // cannot pass through, so bubblewrap was "not usable here")
  mkdirSync(nested, { recursive: true, mode: 0o755 });
  for (const d of [nested, join(nested, '..')]) chmodSync(d, 0o755);
  const before = process.env['TMPDIR'];
  process.env['TMPDIR'] = nested;
  try {
    const f = bubblewrapFactory({ wallsOff: ['nojobns'] });
    const dispose = f.dispose.bind(f);
    return Object.assign(f, {
      dispose: async () => {
        await dispose();
        rmSync(join(nested, '..'), { recursive: true, force: true });
      },
    });
  } finally {
    if (before === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = before;
  }
}

for (const [level, make] of [
  ['docker', () => dockerFactory({ wallsOff: ['nojobns'] })],
  ['gvisor', () => dockerFactory({ runtime: 'runsc', wallsOff: ['nojobns'] })],
  ['process', async () => bubblewrapFactory({ wallsOff: ['nojobns'] })],
  ['process, TMPDIR nested in /tmp', nestedTmpdir],
] as const) {
  describe(
    `the wipe alone against files anywhere below a writable mount (namespaces off): ${level}`,
    { concurrent: true },
    () => {
      const run = oneWorker(make, toolsSource, TOOLS);

      describe('one case after another', { concurrent: false }, () => {
        it.each([false, true])(
          'a file in every folder the job can write (then locked: %s): the next job on the same worker finds none',
          async (lock) => {
            const a = ok(await run(`emit_result(deep_plant(lock=${lock ? 'True' : 'False'}).data)\n`));
            expect(a.wrote).toEqual(expect.arrayContaining(['/tmp', '/dev/shm']));
            const b = ok(await run('emit_result(deep_find().data)\n'));
            expect(b.worker, 'the same worker served both jobs').toBe(a.worker);
            expect(b.seen, JSON.stringify(a)).toEqual([]);
            expect(ok(await run('emit_result(add(a=40, b=2).data)\n'))).toBe(42);
          },
          120_000,
        );
      });
    },
  );
}

/**
 * The same attack on the node worker's wipe (betweenJobs in worker.mjs) on bubblewrap, with the JS job's
 * namespaces off (`launchplain`: the launcher starts the job's process as a plain fork) and the script
 * handed its process's powers (`jsescape`): its files in /tmp and /dev/shm, both folders then made mode
 * 000 (`chmod`, a program of the host's /usr); the next job makes them readable again and looks.
 */
describe('the node wipe alone against a locked /tmp and /dev/shm (bubblewrap, JS namespaces off)', () => {
  let backend: SandboxBackend;
  let factory: TestFactory;
  beforeAll(async () => {
    factory = bubblewrapFactory({ wallsOff: ['jsescape', 'launchplain'] });
    backend = testBackend(factory, { toolsSource: '', pool: { minSize: 1, maxSize: 1, standby: 0 } });
  }, 300_000);
  afterAll(async () => {
    await backend?.dispose();
    await factory?.dispose();
  });
  const SYS = `const sys = (op, ...args) => { const r = JSON.parse(escaped(op, ...args)); if ('error' in r) throw new Error(r.error); return r.ok; };\n`;
  const { run, data } = jsJobs(() => backend, 'jslock', SYS);

  it('files in a /tmp and /dev/shm the job made mode 000: the next job on the same worker finds none', async () => {
    const a = data(
      await run(`sys('write', '/tmp/js-locked-left', 'secret'); sys('write', '/dev/shm/js-locked-left', 'secret');
const chmod = sys('run', '/usr/bin/chmod', '000', '/tmp', '/dev/shm');
emitResult({ pid: sys('pid'), chmod: chmod.status });
`),
    );
    // (the namespaces were off, and the folders were the job's to lock)
    expect(a).toMatchObject({ chmod: 0 });
    expect(a['pid']).not.toBe(1);
    const worker = backend.workerIds('jslock', 'node')?.workers ?? [];
    expect(worker).toHaveLength(1);
    const b = data(
      await run(`sys('run', '/usr/bin/chmod', '755', '/tmp', '/dev/shm');
emitResult({ tmp: sys('list', '/tmp').filter((n) => n.startsWith('js-locked')), shm: sys('list', '/dev/shm').filter((n) => n.startsWith('js-locked')) });
`),
    );
    expect(backend.workerIds('jslock', 'node')?.workers, 'the same worker served both jobs').toEqual(worker);
    expect(b).toEqual({ tmp: [], shm: [] });
  }, 120_000);
});

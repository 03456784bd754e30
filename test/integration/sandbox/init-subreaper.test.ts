/**
 * The worker below an init (`docker run --init`, a pod sharing its process namespace): it is no longer
 * pid 1, and it becomes a child subreaper only where its jobs need one, i.e. where they are plain forks
 * (namespaces off or refused), never where each job is pid 1 of a pid namespace of its own. gVisor
 * 20240729 hands a job pid namespace's orphans to a subreaper outside it when its pid 1 exits instead of
 * killing them, so a worker that made itself one below an init let a job's double-forked survivor reach
 * the next job there (docs/sandboxes.md, "Between jobs"). Before, the rule was "not pid 1" alone: this
 * worker set the flag (and said nothing of it).
 *
 * The containers get Docker's init (the factory's test-only `init`), on runc and gVisor. The worker says
 * in its ready message whether it is a subreaper; a job checks it is not pid 1 of the sandbox; the
 * survivor case runs with the sweep and wipe off (the job's pid namespace alone must end it), and with
 * the namespaces off (the worker a subreaper, the sweep ending the survivor).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import type { ReadyInfo } from '../../../src-main/infra/sandbox/connection.ts';
import { dockerFactory, runPython, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const toolsSource =
  readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8') +
  '\n' +
  readFileSync(join(repoRoot, 'test/fixtures/sandbox/jobns_tools.py'), 'utf8') +
  `

@tool(grade=(0, 0))
def sandbox_init() -> ToolResponse:
    """The command of the sandbox's pid 1 as this job sees it, and whether this kernel lets a process that
    is not pid 1 become a child subreaper (gVisor 20221219: EINVAL), asked in a child of its own."""
    import ctypes

    with open("/proc/1/cmdline", "rb") as f:
        init = f.read().split(b"\\0")[0].decode()
    pid = os.fork()
    if pid == 0:
        os._exit(0 if ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0 else 1)
    can = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    return ToolResponse(success=True, data={"init": init, "subreaper_allowed": can})
`;
const TOOLS = [
  'add',
  'whoami',
  'spy_namespace',
  'read_leak',
  'pid_guess',
  'other_processes',
  'nap',
  'sandbox_init',
];

const ok = (r: ExecutionResult) => {
  expect(r.success, JSON.stringify(r.error)).toBe(true);
  return r.data;
};

for (const [level, runtime] of [
  ['docker', undefined],
  ['gvisor', 'runsc'],
] as const) {
  for (const jobns of [true, false]) {
    describe(
      `a worker below docker-init, jobs ${jobns ? 'in pid namespaces' : 'plain forks'}: ${level}`,
      {
        concurrent: true,
      },
      () => {
        let factory: TestFactory;
        let backend: SandboxBackend;
        let ready: ReadyInfo | undefined;
        beforeAll(async () => {
          factory = await dockerFactory({
            ...(runtime ? { runtime } : {}),
            init: true,
            wallsOff: jobns ? ['nosweep', 'nowipe'] : ['nojobns'],
          });
          backend = testBackend(factory, { toolsSource, pool: { minSize: 1, maxSize: 1, standby: 0 } });
          ready = await backend.warm('fixture');
        }, 300_000);
        afterAll(async () => {
          await backend?.dispose();
          await factory?.dispose();
        });
        const run = (code: string) =>
          runPython(backend, code, { sandbox: 'fixture', tools: TOOLS, timeoutMs: 30_000 });

        it(`the worker is ${jobns ? 'no child subreaper' : 'a child subreaper where the kernel allows one'}; a job's survivor is gone for the next job`, async () => {
          if (jobns) expect(ready?.subreaper).toBe(false);
          else {
            // the job (a plain fork) sees the sandbox's pid 1, Docker's init, not the worker; the worker is a
            // subreaper where the kernel lets a process below pid 1 be one (gVisor 20221219 does not)
            const init = ok(await run('emit_result(sandbox_init().data)\n')) as {
              init: string;
              subreaper_allowed: boolean;
            };
            expect(init.init).toMatch(/docker-init|tini/);
            if (level === 'docker') expect(init.subreaper_allowed).toBe(true);
            expect(ready?.subreaper).toBe(init.subreaper_allowed);
          }
          ok(await run('emit_result(spy_namespace(seconds=20).data)\n'));
          const b = ok(
            await run(
              'nap(seconds=1)\nemit_result({"leak": read_leak().data, "ps": other_processes().data})\n',
            ),
          ) as { leak: string[]; ps: { others: string[] } };
          expect(b.leak).toEqual([]);
          expect(b.ps.others).toEqual([]);
        }, 120_000);
      },
    );
  }
}

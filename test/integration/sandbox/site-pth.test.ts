/**
 * A sandbox's dependencies may carry a `.pth` file (a wheel installs it into site-packages), and Python
 * runs every `import` line of one as it processes that folder. The worker started without `-S`, so such
 * a line ran in the worker itself as it started, before anything of the worker's own: every job's
 * process, a copy of it, started from what the line made (docs/security.md, "Every job alone"). Now the
 * worker starts with `-S` and each job's process adds the site-packages folders itself, behind its walls,
 * before it runs tools.py.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { buildDepsImage, sandboxDeps } from '../../../src-main/infra/sandbox/deps.ts';
import { DockerWorkerFactory } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { oneWorker, requireDocker, TEST_LIMITS } from '../../support/sandbox.ts';
import { writeWheel } from '../../support/wheel.ts';

// The .pth line: where it runs, it draws a token (one per process that ran it) and notes its pid.
const PTH = `import builtins, os; builtins.PTH_RAN = (os.urandom(8).hex(), os.getpid())\n`;

const TOOLS = `import builtins
import toolsmith_pth


@tool(grade=(0, 0))
def where() -> ToolResponse:
    """The token the .pth line drew in this process, and the module of the same wheel."""
    return ToolResponse(success=True, data=[getattr(builtins, "PTH_RAN", None), toolsmith_pth.NAME])
`;

const docker = new Docker();
const dir = mkdtempSync(join(tmpdir(), 'toolsmith-pth-'));
mkdirSync(join(dir, 'wheels'));
writeFileSync(join(dir, 'requirements.txt'), 'toolsmith-pth==0.1.0\n');
writeWheel(join(dir, 'wheels'), 'toolsmith_pth', '0.1.0', {
  'toolsmith_pth/__init__.py': 'NAME = "toolsmith_pth"\n',
  'toolsmith_pth.pth': PTH,
});
const built = new Set<string>();

async function factory(runtime?: string): Promise<DockerWorkerFactory> {
  await requireDocker(docker);
  const paths = imagePaths();
  const f = new DockerWorkerFactory(
    docker,
    async (rt) => {
      const deps = sandboxDeps('pth', dir, rt);
      const base = await buildImage(docker, rt, paths);
      if (!deps) return base;
      const tag = await buildDepsImage(docker, base, deps);
      built.add(tag);
      return tag;
    },
    TEST_LIMITS,
    runtime ? { runtime } : {},
  );
  await f.start();
  return f;
}

afterAll(async () => {
  for (const tag of built)
    await docker
      .getImage(tag)
      .remove({ force: true })
      .catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

for (const [level, runtime] of [
  ['docker', undefined],
  ['gvisor', 'runsc'],
] as const) {
  describe(`a .pth file of a sandbox's dependencies runs in each job's process, never in the worker: ${level}`, () => {
    const run = oneWorker(() => factory(runtime), TOOLS, ['where']);

    it("each job's process runs it for itself; the dependency still imports", async () => {
      const a = await run('emit_result(where().data)\n');
      const b = await run('emit_result(where().data)\n');
      expect(a.error, JSON.stringify(a.error)).toBeUndefined();
      expect(b.error, JSON.stringify(b.error)).toBeUndefined();
      const [ranA, nameA] = a.data as [[string, number] | null, string];
      const [ranB] = b.data as [[string, number] | null, string];
      expect(nameA).toBe('toolsmith_pth');
      expect(ranA).not.toBeNull();
      expect(ranB).not.toBeNull();
      // (before: one token for every job, drawn by the worker as it started, before its first fork)
      expect(ranB?.[0]).not.toBe(ranA?.[0]);
    }, 600_000);
  });
}

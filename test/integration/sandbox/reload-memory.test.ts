/**
 * A reload never carries jobs (docs/security.md): new tools on a warm worker fork a new fork server from
 * the worker's own memory, and every later job's process is a copy of it. Where the worker had run jobs
 * that memory still held what they passed through it, in freed heap and stack (the job line with its
 * script and inputs, the marshalled job, tool results): a job after the reload read an earlier job's
 * script and inputs in its own process. Attacked: a job with a secret in its script, its inputs and a
 * host tool's result; tools reloaded; the next job searches every page of its own process for them (the
 * search proven on a secret of its own, passed in its inputs); then the same with the reload made while
 * the secret's job runs (held in a host tool call), applied before the next job. A worker that has run a
 * job is replaced on a reload, never reloaded; and the worker itself refuses a load once a job came
 * through it (the wall behind the pool's, shown without the pool).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResponse } from '../../../src-main/core/tools/model.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { bubblewrapFactory, dockerFactory } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

// Searches every readable page of the job's process for each (prefix, suffix): the whole string is never
// made here (the prefix found, the suffix compared beside it), so only a copy from elsewhere is found.
const SCAN = `

import ctypes as _scan_ct


@tool(grade=(1, 0))
def memory_search(parts: list) -> ToolResponse:
    """Where each string (prefix + suffix) stands in this process's memory."""
    found = {}
    with open("/proc/self/maps") as f:
        maps = f.read().splitlines()
    for line in maps:
        fields = line.split()
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        name = fields[5] if len(fields) > 5 else ""
        if "r" not in fields[1] or name.startswith("[v") or name.startswith("/dev/") or "gconv" in name:
            continue
        data = _scan_ct.string_at(lo, hi - lo)
        for pre, suf in parts:
            p, s = pre.encode(), suf.encode()
            i = data.find(p)
            while i >= 0:
                if data[i + len(p) : i + len(p) + len(s)] == s:
                    found.setdefault(pre, []).append(f"{name or 'anon'}: {data[max(0, i - 24) : i + 40]!r}")
                i = data.find(p, i + 1)
    return ToolResponse(success=True, data=found)
`;
const fixture = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8') + SCAN;
const SECRETS = [
  ['EARLIER-SCRIPT-', '7731'],
  ['EARLIER-INPUT-', '8842'],
  ['EARLIER-TOOL-', '5521'],
  ['EARLIER-RESULT-', '9913'],
];

for (const [level, make] of [
  ['docker', () => dockerFactory()],
  ['gvisor', () => dockerFactory({ runtime: 'runsc' })],
  ['process', async () => bubblewrapFactory()],
] as const) {
  describe(`a reload never carries jobs: ${level}`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    let source = fixture;
    /** The host tool `hold`: answers once `release` is called. */
    const held: { release?: () => void } = {};
    const release = () => held.release; // (read at each call: the hold sets it)
    const hostTools = {
      held_secret: async (): Promise<ToolResponse> => ({ success: true, data: 'EARLIER-TOOL-' + '5521' }),
      hold: (): Promise<ToolResponse> =>
        new Promise((resolve) => {
          held.release = () => resolve({ success: true, data: null });
        }),
    };
    const run = (code: string, inputs: Record<string, string>) =>
      backend.execute({
        sandbox: 'reload',
        language: 'python',
        code,
        bodyStartLine: 1,
        tools: { add: 'add', memory_search: 'memory_search', held_secret: 'held_secret', hold: 'hold' },
        timeoutMs: 30_000,
        inputs,
      });

    beforeAll(async () => {
      factory = await make();
      backend = new SandboxBackend({
        factory,
        pool: {
          minSize: 1,
          maxSize: 1,
          standby: 0,
          maxJobsPerWorker: 1000,
          idleMs: 60_000,
          queueTimeoutMs: 30_000,
        },
        maxOutputBytes: 50 * 1024,
        specFor: (name, runtime) => ({
          name,
          runtime,
          toolsSource: source,
          hostTools: Object.keys(hostTools).map((name) => ({ name })),
          credentials: {},
        }),
        hostTools,
      });
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    const EARLIER =
      'mine = "EARLIER-SCRIPT-7731"\nfrom_tool = held_secret().data\nprint(secret)\n' +
      'emit_result(["EARLIER-RESULT-9913", from_tool, secret, len(mine)])\n';
    /** The job after the reload: its sum (the new tools) and what its search found. */
    const later = async (factor: number) => {
      const parts = JSON.stringify([...SECRETS, ['OWN-INPUT-', '4242']]);
      const r = await run(`emit_result([add(a=1, b=1).data, memory_search(parts=${parts}).data])\n`, {
        own: 'OWN-INPUT-' + '4242',
      });
      expect(r.success, JSON.stringify(r.error)).toBe(true);
      const [sum, found] = r.data as [number, Record<string, string[]>];
      expect(sum).toBe(2 * factor); // the new tools
      expect(Object.keys(found), JSON.stringify(found)).toEqual(['OWN-INPUT-']); // the search works
    };

    it("the job after a reload finds nothing of the jobs before it in its process's memory", async () => {
      for (let i = 0; i < 3; i++) {
        const earlier = await run(EARLIER, { secret: 'EARLIER-INPUT-8842' });
        expect(earlier.success, JSON.stringify(earlier.error)).toBe(true);
      }
      source = fixture.replace('data=a + b', 'data=(a + b) * 100');
      await backend.reload('reload');
      await later(100);
    }, 120_000);

    it("the same for a reload made while the secret's job runs, applied before the next job", async () => {
      held.release = undefined;
      const earlier = run('hold()\n' + EARLIER, { secret: 'EARLIER-INPUT-8842' });
      const end = Date.now() + 30_000;
      while (release() === undefined && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(release()).toBeDefined();
      source = fixture.replace('data=a + b', 'data=(a + b) * 1000');
      await backend.reload('reload'); // (the worker is busy: it takes the new tools before its next job)
      release()?.();
      const r = await earlier;
      expect(r.success, JSON.stringify(r.error)).toBe(true);
      await later(1000);
    }, 120_000);

    it('the wall behind the pool: a worker that has run a job refuses a load itself, and keeps its tools', async () => {
      // Sent straight to one worker, without the pool (whose replacement is the first wall).
      const spec = {
        name: 'worn',
        runtime: 'python' as const,
        toolsSource: fixture,
        hostTools: [],
        credentials: {},
      };
      const { conn } = await factory.spawn(spec);
      try {
        await conn.load({ source: fixture, hostTools: [], credentials: [] });
        const job = (code: string) =>
          conn.run({ code, tools: { add: 'add' }, timeoutMs: 30_000, maxOutputBytes: 50 * 1024 });
        const before = await job('secret = "EARLIER-SCRIPT-7731"\nemit_result(add(a=1, b=1).data)\n');
        expect(before.data).toBe(2);
        await expect(
          conn.load({
            source: fixture.replace('data=a + b', 'data=(a + b) * 10'),
            hostTools: [],
            credentials: [],
          }),
        ).rejects.toThrow(/WornWorker: this worker has run jobs/);
        const after = await job('emit_result(add(a=1, b=1).data)\n');
        expect(after.success, JSON.stringify(after.error)).toBe(true);
        expect(after.data).toBe(2); // the old tools, in the fork server made before any job
      } finally {
        await conn.kill('test done');
      }
    }, 120_000);
  });
}

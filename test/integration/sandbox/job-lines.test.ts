/**
 * The lines a job's process may send (docs/protocol.md, "What a job's process may send"). Tool code runs
 * in the job's process and can write anything on its protocol pipe: the worker relays only `emit` (result,
 * intermediate, log), `trace` (of a sandbox tool), `tool_call` and `done` (with a reason the job's runtime
 * may give), stamped with the job's id; any other line is dropped and the job's logs say so. Attacked: a
 * tool writes a line of every worker -> host type the host reads outside jobs (`hello`, `ready`,
 * `load_error`, `pong`, `next_ready` about the running job, whose id it reads off a tool result, `stopping`), a second
 * `walls`, host -> worker types, an emit of an unknown kind, a trace that says it ran on the host, lines
 * that are not JSON objects; then, one job each, a `done` giving a reason only the worker gives. The host
 * must see none of them (every message its connection parsed, its `nextReady`, which steers the pool's
 * choice of worker, read by a host tool while the job runs; the job's result), and the job's own lines
 * still work. On docker, gVisor and the process level (bubblewrap).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { ToolResponse } from '../../../src-main/core/tools/model.ts';
import { POLL_MS } from '../../support/budgets.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import type { WorkerConnection } from '../../../src-main/infra/sandbox/connection.ts';
import { bubblewrapFactory, dockerFactory, runPython } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

// A tool that writes raw lines on its job's protocol pipe ("$ID" becomes the job's id, read off the
// tool_result line of a describe_tool call it makes itself on the same pipes; "$UU" becomes "__").
const FORGE = `

import gc as _forge_gc
import json as _forge_json
import os as _forge_os


@tool(grade=(2, 2))
def forge(lines: list) -> ToolResponse:
    """Writes raw lines on the job's protocol pipe, as a tool gone wrong could."""
    job = next(o for o in _forge_gc.get_objects() if type(o).__name__ == "ChildJob")
    job_id = ""
    if any("$ID" in line for line in lines):
        call = {"type": "tool_call", "call_id": "forge", "name": "describe_tool", "alias": "describe_tool", "args": {"name": "add"}}
        _forge_os.write(job.msg_w, _forge_json.dumps(call).encode() + b"\\n")
        got = b""
        while b"\\n" not in got:
            got += _forge_os.read(job.res_r, 65536)
        job_id = _forge_json.loads(got.split(b"\\n", 1)[0])["id"]
    for line in lines:
        _forge_os.write(job.msg_w, line.replace("$ID", job_id).replace("$UU", "__").encode() + b"\\n")
    return ToolResponse(success=True, data=len(lines))
`;
const fixture = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8') + FORGE;

/** A line of every type a job's process must not send, and of the shapes it must not give the ones it may. */
const FORGED = [
  '{"type":"hello","protocol":1,"runtime":"forged","version":"0"}',
  '{"type":"ready","protocol":1,"runtime":"forged","version":"0","pid":1,"tools":[{"name":"forged_tool"}]}',
  '{"type":"load_error","error":{"type":"Forged","message":"forged","line":1}}',
  '{"type":"pong","busy":"forged"}',
  '{"type":"next_ready","after":"$ID"}',
  // (one that reached the host would have it send the running job again: "it never ran")
  '{"type":"stopping","after":null,"reason":"forged"}',
  '{"type":"walls","alone":false}',
  '{"type":"job","id":"$ID","code":"emit_result(1)\\n","tools":{}}',
  '{"type":"tool_result","id":"$ID","call_id":"c1","response":{"success":true}}',
  '{"type":"$UUoversize"}', // (the host's own name for a line too long; "$UU": a script writes no dunder)
  '{"type":"emit","kind":"forged","data":"forged"}',
  '{"type":"trace","name":"forged_host_call","args":{},"ms":1,"location":"host","result":{"success":true}}',
  '{"type":"trace","name":"forged_no_location","args":{},"ms":1}',
  'not JSON at all',
  '["type","emit"]',
];
/** The types a job's lines reach the host as. */
const JOB_TYPES = new Set(['emit', 'trace', 'tool_call', 'done']);
/** The worker's own reasons: a job's done that gives one is dropped. */
const WORKER_REASONS = ['timeout', 'output_limit', 'crashed', 'cancelled', 'rejected'];

const until = async (what: string, ok: () => boolean) => {
  const end = Date.now() + POLL_MS;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

type Seen = { type: string; id?: unknown; busy?: unknown; after?: unknown };

for (const [level, make] of [
  ['docker', () => dockerFactory()],
  ['gvisor', () => dockerFactory({ runtime: 'runsc' })],
  ['process', async () => bubblewrapFactory()],
] as const) {
  describe(`a job's process sends only its own lines: ${level}`, () => {
    let factory: TestFactory;
    let backend: SandboxBackend;
    /** Every connection the pool made, and every message each one parsed from its worker's lines. */
    const conns: WorkerConnection[] = [];
    const seen: Seen[] = [];
    const conn = () => conns.filter((c) => c.alive).at(-1);
    const hostTools = {
      // What the host's pool reads of the worker while the job runs (after the forged lines).
      probe: async (): Promise<ToolResponse> => ({
        success: true,
        data: { nextReady: conn()?.nextReady ?? 'no worker' },
      }),
    };
    const run = (code: string): Promise<ExecutionResult> =>
      runPython(backend, code, { sandbox: 'lines', tools: ['add', 'forge', 'probe'], timeoutMs: 30_000 });
    /** The messages the host parsed from the start of `job` until its done. */
    const during = async (job: () => Promise<ExecutionResult>) => {
      const from = seen.length;
      const r = await job();
      const window = seen.slice(from);
      const end = window.findIndex((m) => m.type === 'done');
      return { r, messages: end >= 0 ? window.slice(0, end + 1) : window };
    };

    beforeAll(async () => {
      const made = await make();
      factory = {
        isolation: made.isolation,
        dispose: () => made.dispose(),
        spawn: async (spec, signal) => {
          const w = await made.spawn(spec, signal);
          // Taps the connection: every message its worker's lines parse to (nothing else changes).
          const c = w.conn as unknown as { emit(m: Seen): void };
          const emit = c.emit.bind(w.conn);
          c.emit = (m) => {
            seen.push(m);
            emit(m);
          };
          conns.push(w.conn);
          return w;
        },
      };
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
          toolsSource: fixture,
          hostTools: Object.keys(hostTools).map((name) => ({ name })),
          credentials: {},
        }),
        hostTools,
      });
      expect((await run('emit_result(add(a=1, b=1).data)\n')).data).toBe(2);
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });

    it('forged lines of every other type never reach the host; the job and its own lines do', async () => {
      const before = conn();
      // The worker has said its next job's process is ready (the pool's choice of worker reads this):
      // from the job's start, only the worker's own next_ready about this job can say so again.
      await until('the worker to tell its next job process is ready', () => before?.nextReady === true);
      const { r, messages } = await during(() =>
        run(
          'emit_intermediate("before")\nprint("printed")\n' +
            `n = forge(lines=${JSON.stringify(FORGED)}).data\n` +
            'emit_intermediate(probe().data)\nemit_result({"forged": n, "sum": add(a=1, b=2).data})\n',
        ),
      );
      expect(r.success, JSON.stringify(r.error)).toBe(true);
      expect(r.data).toEqual({ forged: FORGED.length, sum: 3 });
      // The pool's view of the worker: its next job's process is not ready while this job runs.
      expect(r.intermediates).toEqual(['before', { nextReady: false }]);
      // Every message the host parsed during the job is one of the job's (a pong to the pool's health
      // check, sent just before the job, is the worker's own).
      const foreign = messages.filter(
        (m) => !JOB_TYPES.has(m.type) && !(m.type === 'pong' && m.busy !== 'forged'),
      );
      expect(foreign).toEqual([]);
      const id = messages.find((m) => m.type === 'emit')?.id;
      expect(typeof id).toBe('string');
      expect(messages.every((m) => m.type === 'pong' || m.id === id)).toBe(true);
      // The job's record: its own traces (the forge's own describe_tool call was a tool_call: allowed),
      // none it forged; its own logs, and the drops named.
      expect(r.toolCalls.map((t) => [t.name, t.location])).toEqual([
        ['describe_tool', 'host'],
        ['forge', 'sandbox'],
        ['probe', 'host'],
        ['add', 'sandbox'],
      ]);
      expect(r.logs[0]).toBe('printed');
      const drops = r.logs.slice(1);
      expect(
        drops.slice(0, 3).map((l) => /dropped (.*), written on the job's protocol pipe/.exec(l)?.[1]),
      ).toEqual(["a 'hello' line", "a 'ready' line", "a 'load_error' line"]);
      expect(drops[3]).toBe(
        `toolsmith worker: ${FORGED.length} lines of the job's protocol pipe were dropped in all (the first 3 named above)`,
      );
      expect(drops).toHaveLength(4);
      // The connection: the same worker, its tools as loaded, and ready for its next job once it says so.
      expect(conn()).toBe(before);
      expect(conn()?.ready?.runtime).toBe('python');
      expect(conn()?.ready?.tools.map((t) => t.name)).not.toContain('forged_tool');
      const next = await run('emit_result(add(a=2, b=2).data)\n');
      expect(next.data).toBe(4);
    });

    it("a done giving a reason only the worker gives is dropped: the job's own done ends it", async () => {
      for (const reason of WORKER_REASONS) {
        const before = conn();
        const done = JSON.stringify({
          type: 'done',
          ok: false,
          reason,
          error: { type: 'Forged', message: `forged ${reason}`, frames: [] },
        });
        const { r } = await during(() =>
          run(`forge(lines=${JSON.stringify([done])})\nemit_result("real")\n`),
        );
        expect([reason, r.exitReason, r.data, r.error]).toEqual([reason, 'ok', 'real', undefined]);
        expect(r.logs).toEqual([
          `toolsmith worker: dropped a done with reason '${reason}' (only the worker gives it), written on the job's protocol pipe by code in the job's process (a tool or the script); a job sends only emit, trace, tool_call and done lines`,
        ]);
        expect(conn()).toBe(before); // (a timeout, a crash or an output flood would have replaced it)
      }
      // The reasons a job's runtime gives still count: the worker's own check refused the script.
      const rejected = await run('import os\nemit_result(os.getcwd())\n');
      expect(rejected.exitReason).toBe('rejected');
      expect(rejected.error?.message).toMatch(/imports are not available/);
      // ... and a job's own error, its own done.
      const failed = await run('forge(lines=[])\nemit_result({}["missing"])\n');
      expect([failed.exitReason, failed.error?.type, failed.logs]).toEqual(['error', 'KeyError', []]);
    });
  });
}

/**
 * What one job can make the host keep of its tool calls (`limits.tool_calls`): a script that calls a tool
 * in a long loop (an LLM's bug as often as an attack), or tool code that writes trace lines itself, made
 * the host keep every trace in memory until the job ended, store each as a run event and in the
 * execution's record, and send each to the workbench. Now the first N are recorded and the rest counted
 * (`toolCallsNotRecorded`): by the Python worker (trace lines past N are not relayed; their count comes on
 * the job's done, which only the worker writes) and by the host (the wall for every runtime: a JS
 * script's calls are all host calls). The run succeeds, the run store holds N calls, and the record, the
 * CLI's `runs show` and its `exec` say how many more were made. Real Docker, real SQLite, the real CLI.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { dockerFactory, runPython } from '../../support/sandbox.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { connectMcp } from '../../support/mcp-stdio.ts';
import { recordedRun } from '../../support/recorded-run.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const N = 40;
const ws = tempWorkspace('toolsmith-tool-call-bound-');
const configFile = join(ws, '.toolsmith/config.toml');
const config = readFileSync(configFile, 'utf8');
if (!/^output_kb = 50$/m.test(config)) throw new Error('the sample config changed: no output_kb line');
writeFileSync(configFile, config.replace(/^output_kb = 50$/m, `output_kb = 50\ntool_calls = ${N}`));
mkdirSync(join(ws, 'sandboxes/loop'));
const TOOLS = `import gc as _gc
import json as _json
import os as _os


@tool(grade=(0, 0))
def ping(i: int) -> ToolResponse:
    """Answer the number it is given."""
    return ToolResponse(success=True, data=i)


@tool(grade=(0, 0))
def size(text: str) -> ToolResponse:
    """The length of a text."""
    return ToolResponse(success=True, data=len(text))


@tool(grade=(0, 0))
def forge(lines: list, n: int = 1) -> ToolResponse:
    """Write each raw line n times on the job's protocol pipe, as tool code gone wrong could."""
    job = next(o for o in _gc.get_objects() if type(o).__name__ == "ChildJob")
    for _ in range(n):
        for line in lines:
            _os.write(job.msg_w, (line if isinstance(line, str) else _json.dumps(line)).encode() + b"\\n")
    return ToolResponse(success=True, data=n * len(lines))
`;
writeFileSync(join(ws, 'sandboxes/loop/tools.py'), TOOLS);
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

/** The CLI's and the MCP server's own cache of this workspace, in the workspace. */
const cacheEnv = { TOOLSMITH_CACHE_DIR: join(ws, '.cache') };
const cli = (args: string[]) => runToolsmith(ws, args, cacheEnv);

/** A script run as a recorded run: its outcome, its execution, and what the run store holds of it. */
const run = (body: string, language: 'python' | 'js' = 'python') =>
  recordedRun<{ n: number; calls: number; bytes: number }>(
    svc,
    { sandbox: 'loop', language, body },
    "count(*) AS n, sum(type = 'tool_call') AS calls, sum(length(data)) AS bytes",
  );

describe('a job past its bound of recorded tool calls', () => {
  it('Python, a sandbox tool in a long loop: the first N are kept, the rest counted, the run succeeds', async () => {
    const calls = 3000;
    const r = await run(
      `total = 0\nfor i in range(${calls}):\n    total += ping(i=i).data\nemit_result(total)\n`,
    );
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    expect(r.outcome.result).toBe((calls * (calls - 1)) / 2); // every call ran and answered
    expect(r.execution?.toolCalls).toHaveLength(N);
    expect(r.execution?.toolCalls.map((t) => t.args['i'])).toEqual([...Array(N).keys()]); // the first N
    expect(r.execution?.toolCallsNotRecorded).toBe(calls - N);
    // The run store: N live tool_call events, and the execution's record of N calls, not 3000 of each.
    expect(r.rows.calls).toBe(N);
    expect(r.rows.bytes).toBeLessThan(60_000);
    expect(r.record.attempts[0]?.toolCalls).toHaveLength(N);

    const shown = await cli(['runs', 'show', r.runId.slice(0, 8)]);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(
      `${N} tool calls recorded; ${calls - N} more tool calls not recorded (past the first ${N}; limits.tool_calls)`,
    );
  }, 300_000);

  it('tool code writing trace lines itself: counted past the bound, and a done cannot claim a count', async () => {
    const forged = 5000;
    const line = { type: 'trace', name: 'forged', args: {}, ms: 0, location: 'sandbox' };
    const r = await run(`r = forge(lines=[${JSON.stringify(line)}], n=${forged})\nemit_result(r.data)\n`);
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    expect(r.outcome.result).toBe(forged);
    expect(r.execution?.toolCalls).toHaveLength(N);
    // The forged lines and the forge call's own trace, past the first N.
    expect(r.execution?.toolCallsNotRecorded).toBe(forged + 1 - N);
    expect(r.rows.calls).toBe(N);
    expect(r.rows.bytes).toBeLessThan(60_000);

    // A job's own done line that says how many traces were not relayed is not believed (only the worker says).
    const done = { type: 'done', ok: true, traces_over: 123_456 };
    const d = await run(`forge(lines=[${JSON.stringify(JSON.stringify(done))}])\nemit_result(1)\n`);
    expect(d.outcome.status, JSON.stringify(d.execution?.error ?? d.record.error)).toBe('succeeded');
    expect(d.execution).toMatchObject({ success: true, exitReason: 'ok' });
    expect(d.execution?.toolCallsNotRecorded).toBeUndefined();
  }, 300_000);

  it('a large argument is capped in the trace as results are (the tool got it whole)', async () => {
    const r = await run(
      'big = "x" * 300000\ntotal = 0\nfor i in range(5):\n    total += size(text=big).data\nemit_result(total)\n',
    );
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    expect(r.outcome.result).toBe(5 * 300_000);
    expect(r.execution?.toolCalls).toHaveLength(5);
    for (const t of r.execution?.toolCalls ?? []) {
      const text = t.args['text'];
      expect(typeof text).toBe('string');
      expect((text as string).length).toBeLessThan(17_000);
      expect(text).toMatch(/^"x{100}.*… \(300002 characters, truncated in the trace\)$/);
    }
    // Five calls with 300 KB each, live and in the execution: 3 MB without the cap.
    expect(r.rows.bytes).toBeLessThan(200_000);
  }, 300_000);

  it('JavaScript, every call a host call: the host keeps the first N and counts the rest', async () => {
    const calls = 400;
    const r = await run(
      `let found = 0;\nfor (let i = 0; i < ${calls}; i++) found += (await searchTools('ping')).length;\nemitResult(found);\n`,
      'js',
    );
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    expect(r.outcome.result).toBe(calls);
    expect(r.execution?.toolCalls).toHaveLength(N);
    expect(r.execution?.toolCallsNotRecorded).toBe(calls - N);
    expect(r.rows.calls).toBe(N);
  }, 300_000);

  it('exec prints how many calls are not recorded', async () => {
    const script = join(ws, 'loop.py');
    writeFileSync(script, `for i in range(${N + 5}):\n    ping(i=i)\nemit_result("done")\n`);
    const r = await cli(['exec', script, '--sandbox', 'loop']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`… 5 more tool calls not recorded (past the first ${N}; limits.tool_calls)`);
    expect(r.out.match(/^ {2}tool ping/gm)).toHaveLength(N);
  }, 300_000);
});

describe('the MCP server says how many calls are not recorded', () => {
  it('execute_code counts every call and names those not in its trace; code too', async () => {
    const client = await connectMcp(ws, 'bound-test', { ...process.env, ...cacheEnv });
    try {
      const code = 'for i in range(300):\n    ping(i=i)\nemit_result("done")\n';
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as { structuredContent?: Record<string, unknown> };
      const exec = await call('execute_code', { code, sandbox: 'loop', include_trace: true });
      expect(exec.structuredContent).toMatchObject({
        success: true,
        toolCallCount: 300,
        toolCallsNotRecorded: 300 - N,
      });
      expect(exec.structuredContent?.['toolCalls']).toHaveLength(N);
      const run = await call('code', { code, sandbox: 'loop' });
      expect(run.structuredContent).toMatchObject({ status: 'succeeded', toolCallsNotRecorded: 300 - N });
    } finally {
      await client.close();
    }
  }, 300_000);
});

describe('the Python worker relays no trace line past the bound', () => {
  it('the host parses N trace lines; the count of the rest comes on the done', async () => {
    const factory = await dockerFactory();
    /** Every trace and done message the host's connection parsed from the worker's lines. */
    const seen: { type: string; traces_over?: number }[] = [];
    const backend = new SandboxBackend({
      factory: {
        isolation: factory.isolation,
        spawn: async (spec, signal) => {
          const w = await factory.spawn(spec, signal);
          const c = w.conn as unknown as { emit(m: { type: string }): void };
          const emit = c.emit.bind(w.conn);
          c.emit = (m) => {
            if (m.type === 'trace' || m.type === 'done') seen.push(m);
            emit(m);
          };
          return w;
        },
      },
      pool: {
        minSize: 1,
        maxSize: 1,
        standby: 0,
        maxJobsPerWorker: 100,
        idleMs: 60_000,
        queueTimeoutMs: 30_000,
      },
      maxOutputBytes: 50 * 1024,
      maxToolCalls: N,
      specFor: (name, runtime) => ({ name, runtime, toolsSource: TOOLS, hostTools: [], credentials: {} }),
    });
    try {
      const r = await runPython(backend, 'for i in range(1000):\n    ping(i=i)\nemit_result(1)\n', {
        sandbox: 'loop',
        tools: ['ping'],
        timeoutMs: 60_000,
      });
      expect(r.success, JSON.stringify(r.error)).toBe(true);
      expect(r.toolCalls).toHaveLength(N);
      expect(r.toolCallsNotRecorded).toBe(1000 - N);
      expect(seen.filter((m) => m.type === 'trace')).toHaveLength(N);
      expect(seen.find((m) => m.type === 'done')).toMatchObject({ traces_over: 1000 - N });
    } finally {
      await backend.dispose();
      await factory.dispose();
    }
  }, 300_000);
});

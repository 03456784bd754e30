/**
 * What one job can write into its run's record besides tool calls (those: tool-call-bound.test.ts).
 *
 * Log lines: each line a script printed was one `emit` event of the run (a row in the run store, a push
 * to every window, a progress notification over MCP), bounded only in bytes by `limits.output_kb`: 20,000
 * short lines were 20,000 events. Now consecutive lines are one event (core/orchestrator/log-coalescer.ts),
 * in order with the job's other events, and together they hold every line the host received.
 *
 * Approval requests: each call of a gated tool put one question to a person and added one `approval`
 * event, however many a script made. Now a job asks at most `limits.approvals` times; past it a gated
 * call is refused without asking (a ToolRefused naming the bound) and counted (`approvalsNotAsked`),
 * which the record, `runs show` and `exec` say.
 *
 * Intermediates: each `emit_intermediate` was one `emit` event, bounded in bytes by `limits.output_kb`
 * but not in number (a loop of 20,000 tiny ones: 20,000 events). Now a job's first `limits.intermediates`
 * are recorded and the rest counted (`intermediatesNotRecorded`), which the record, `runs show`, `exec`,
 * the MCP answers and the OTLP span say. Real Docker, real SQLite, the real CLI and MCP server.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { RunEvent } from '../../../src-main/core/records/events.ts';
import { runSpans } from '../../../src-main/infra/telemetry/run-trace.ts';
import { DEFAULT_MAX_INTERMEDIATES } from '../../../src-main/core/sandbox/execution.ts';
import type { ApprovalRequest } from '../../../src-main/core/tools/approval.ts';
import { mcpStdio } from '../../support/mcp-stdio.ts';
import { recordedRun } from '../../support/recorded-run.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const MAX_APPROVALS = 25;
const OUTPUT_KB = 1024;
const ws = tempWorkspace('toolsmith-job-record-bound-');
const configFile = join(ws, '.toolsmith/config.toml');
const config = readFileSync(configFile, 'utf8');
if (!/^output_kb = 50$/m.test(config)) throw new Error('the sample config changed: no output_kb line');
writeFileSync(
  configFile,
  `${config.replace(/^output_kb = 50$/m, `output_kb = ${OUTPUT_KB}\napprovals = ${MAX_APPROVALS}`)}\n[approval]\ntools = ["support.add_note"]\n`,
);
const asked: ApprovalRequest[] = [];
const svc = ToolsmithService.open(ws, {
  sandboxFactory: createSandboxManager,
  oneShot: true,
  askApproval: (r) => {
    asked.push(r);
    return Promise.resolve({ approved: true, via: 'cli' });
  },
});
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

/** The CLI's and the MCP server's own cache of this workspace, in the workspace. */
const cacheEnv = { TOOLSMITH_CACHE_DIR: join(ws, '.cache') };
const cli = (args: string[]) => runToolsmith(ws, args, cacheEnv);

/** A script run as a recorded run: its outcome, its events, and what the run store holds of it. */
async function run(body: string, language: 'python' | 'js' = 'python') {
  asked.length = 0;
  return recordedRun<{ n: number; emits: number; approvals: number; bytes: number }>(
    svc,
    { sandbox: 'support', language, body },
    "count(*) AS n, sum(type = 'emit') AS emits, sum(type = 'approval') AS approvals, sum(length(data)) AS bytes",
  );
}

/** The log lines a run's `emit` events hold, in order (each event: its lines joined by "\n"). */
function loggedLines(events: RunEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type !== 'emit' || e.data.kind !== 'log') return [];
    const lines = String(e.data.data).split('\n');
    expect(lines).toHaveLength(e.data.lines ?? 1);
    return lines;
  });
}

describe('log lines of one job', () => {
  it('Python, 20,000 lines: a few events, every line in order', async () => {
    const n = 20_000;
    const r = await run(`for i in range(${n}):\n    print(f"line {i}")\nemit_result(${n})\n`);
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    const expected = Array.from({ length: n }, (_, i) => `line ${i}`);
    expect(r.execution?.logs).toEqual(expected);
    expect(loggedLines(r.events)).toEqual(expected);
    // Before: 20,000 emit events (one per line), each a row of the run store.
    expect(r.rows.emits).toBeLessThan(100);
    expect(r.rows.n).toBeLessThan(110);
  }, 300_000);

  it('JS, 20,000 console.log lines: the same', async () => {
    const n = 20_000;
    const r = await run(
      `for (let i = 0; i < ${n}; i++) console.log("line " + i);\nemitResult(${n});\n`,
      'js',
    );
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    const expected = Array.from({ length: n }, (_, i) => `line ${i}`);
    expect(r.execution?.logs).toEqual(expected);
    expect(loggedLines(r.events)).toEqual(expected);
    expect(r.rows.emits).toBeLessThan(100);
  }, 300_000);

  it('lines keep their place among intermediates and tool calls', async () => {
    const r = await run(
      // emit_log: on the job's message pipe with the intermediates (print's stdout is a pipe of its own).
      'for i in range(3):\n    for j in range(2000):\n        emit_log(f"{i}.{j}")\n    emit_intermediate(i)\n    list_tickets(limit=1)\nemit_log("end")\nemit_result("done")\n',
    );
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    // The job's events in order: the lines written before each intermediate come before it.
    const seen: string[] = [];
    for (const e of r.events) {
      if (e.type === 'emit' && e.data.kind === 'log')
        seen.push(
          ...String(e.data.data)
            .split('\n')
            .map((l) => `log ${l.split('.')[0]}`),
        );
      else if (e.type === 'emit') seen.push(`intermediate ${JSON.stringify(e.data.data)}`);
      else if (e.type === 'tool_call') seen.push(`call ${e.data.trace.name}`);
    }
    const compact = seen.filter((x, i) => x !== seen[i - 1]);
    expect(compact).toEqual([
      'log 0',
      'intermediate 0',
      'call list_tickets',
      'log 1',
      'intermediate 1',
      'call list_tickets',
      'log 2',
      'intermediate 2',
      'call list_tickets',
      'log end',
    ]);
    expect(loggedLines(r.events)).toEqual(r.execution?.logs);
    expect(r.execution?.logs).toHaveLength(6001);
    expect(r.rows.emits).toBeLessThan(60);
  }, 300_000);

  it('past the output limit: the events hold every line the host took, as the result does', async () => {
    const r = await run(
      'line = "x" * 1000\nfor i in range(2000):\n    print(f"{i} {line}")\nemit_result(1)\n',
    );
    expect(r.execution?.exitReason, JSON.stringify(r.record.error ?? r.events.map((e) => e.type))).toBe(
      'output_limit',
    );
    const logs = r.execution?.logs ?? [];
    expect(logs.length).toBeGreaterThan(900);
    expect(logs.every((l, i) => l.startsWith(`${i} x`))).toBe(true);
    expect(loggedLines(r.events)).toEqual(logs);
    expect(r.rows.emits).toBeLessThan(120);
  }, 300_000);
});

describe('approval requests of one job', () => {
  const calls = 3000;
  const loop = `last = ""\nfor i in range(${calls}):\n    try:\n        add_note(ticket_id=101, text=str(i))\n    except Exception as e:\n        last = str(e)\nemit_result(last)\n`;

  it('Python, a gated tool in a long loop: a person is asked limits.approvals times, the rest refused and counted', async () => {
    const r = await run(loop);
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    // Before: 3000 questions to a person and 3000 approval events.
    expect(asked).toHaveLength(MAX_APPROVALS);
    expect(r.rows.approvals).toBe(MAX_APPROVALS);
    expect(r.record.attempts[0]?.approvals).toHaveLength(MAX_APPROVALS);
    expect(r.execution?.approvalsNotAsked).toBe(calls - MAX_APPROVALS);
    // The script saw why: the refusal names the bound.
    expect(r.outcome.result).toBe(
      `ToolRefused: add_note was not approved (this job already asked a person ${MAX_APPROVALS} times, its bound (limits.approvals in .toolsmith/config.toml); further calls that need approval are refused without asking)`,
    );
    const refused = r.execution?.toolCalls.filter((t) => t.refused) ?? [];
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.error).toContain('limits.approvals');
    expect(r.rows.n).toBeLessThan(1200); // the approvals, and tool calls up to limits.tool_calls
    expect(r.rows.bytes).toBeLessThan(2_000_000);

    // The OTLP trace: the job's span counts them, and has one event per approval recorded.
    const job = runSpans(r.events, 'toolsmith-test').find((x) => x.name === 'sandbox.execute python');
    expect(job?.attributes['toolsmith.sandbox.approvals_not_asked']).toBe(calls - MAX_APPROVALS);
    expect(job?.events.filter((e) => e.name === 'toolsmith.approval')).toHaveLength(MAX_APPROVALS);

    const shown = await cli(['runs', 'show', r.runId.slice(0, 8)]);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(
      `${MAX_APPROVALS} approval requests recorded; ${calls - MAX_APPROVALS} calls needing approval refused without asking (past the job's bound of approval requests; limits.approvals)`,
    );
  }, 300_000);

  it('JS, thousands of gated calls at once through the host: the same bound', async () => {
    const r = await run(
      `const rs = await Promise.allSettled(Array.from({ length: 2000 }, async (_, i) => await add_note({ ticket_id: 101, text: String(i) })));\nemitResult(rs.filter((x) => x.status === "rejected").length);\n`,
      'js',
    );
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    expect(asked).toHaveLength(MAX_APPROVALS);
    expect(r.rows.approvals).toBe(MAX_APPROVALS);
    expect(r.outcome.result).toBe(2000 - MAX_APPROVALS);
    expect(r.execution?.approvalsNotAsked).toBe(2000 - MAX_APPROVALS);
  }, 300_000);

  it("an approval's record keeps a large argument as a trace does; the person was asked with all of it", async () => {
    const r = await run(
      'r = add_note(ticket_id=101, text="y" * 300000)\nemit_result(len(r.data["notes"][0]))\n',
    );
    expect(r.outcome).toMatchObject({ status: 'succeeded', result: 300_000 });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.args['text']).toHaveLength(300_000);
    const approval = r.events.find((e) => e.type === 'approval');
    expect(approval?.type === 'approval' && approval.data.approved).toBe(true);
    // Before: the whole 300 KB argument in the approval event.
    expect(JSON.stringify(approval?.data).length).toBeLessThan(20_000);
    expect(String(approval?.type === 'approval' && approval.data.args['text'])).toContain(
      '(300002 characters, truncated in the trace)',
    );
  }, 300_000);

  it('a script run outside a record (exec, MCP execute_code) is bounded too', async () => {
    asked.length = 0;
    const r = await svc.execution.executeScript({ sandbox: 'support', language: 'python', body: loop });
    expect(r.success).toBe(true);
    expect(asked).toHaveLength(MAX_APPROVALS);
    expect(r.approvalsNotAsked).toBe(calls - MAX_APPROVALS);
  }, 300_000);

  it('the CLI without a terminal: refused at once, one stderr line per question up to the bound, and exec says how many more', async () => {
    const file = join(ws, 'loop.py');
    writeFileSync(file, loop);
    const r = await cli(['exec', file, '--sandbox', 'support']);
    expect(r.code, r.err).toBe(0);
    // Before: 3000 lines, one per call.
    expect(r.err.match(/add_note needs approval; no terminal/g)).toHaveLength(MAX_APPROVALS);
    expect(r.out).toContain(
      `… ${calls - MAX_APPROVALS} calls needing approval refused without asking (past the job's bound of approval requests; limits.approvals)`,
    );
  }, 300_000);

  it('over MCP (code and execute_code): the client is asked limits.approvals times, the answer counts the rest', async () => {
    let elicited = 0;
    const client = new Client(
      { name: 'toolsmith-approval-bound-test', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, () => {
      elicited++;
      return { action: 'accept', content: { approve: true } };
    });
    await client.connect(mcpStdio(ws, { ...process.env, ...cacheEnv }));
    try {
      const structured = (r: unknown) =>
        (r as { structuredContent: Record<string, unknown> }).structuredContent;
      const code = await client.callTool(
        { name: 'code', arguments: { code: loop, sandbox: 'support' } },
        undefined,
        { timeout: 300_000 },
      );
      expect(structured(code)).toMatchObject({
        status: 'succeeded',
        approvalsNotAsked: calls - MAX_APPROVALS,
      });
      expect(elicited).toBe(MAX_APPROVALS);
      elicited = 0;
      const exec = await client.callTool(
        { name: 'execute_code', arguments: { code: loop, sandbox: 'support' } },
        undefined,
        { timeout: 300_000 },
      );
      expect(structured(exec)).toMatchObject({ success: true, approvalsNotAsked: calls - MAX_APPROVALS });
      expect(elicited).toBe(MAX_APPROVALS);
    } finally {
      await client.close();
    }
  }, 300_000);
});

describe('intermediates of one job', () => {
  const n = 20_000;
  const max = DEFAULT_MAX_INTERMEDIATES;
  // (20,000 emit lines of ~49 bytes each: ~0.98 MB, within OUTPUT_KB, so the output limit is not what bounds them.)
  const python = `for i in range(${n}):\n    emit_intermediate(i)\nemit_result(${n})\n`;
  const note = `${n - max} more intermediates not recorded (past the first ${max}; limits.intermediates)`;
  const kept = (events: RunEvent[]) =>
    events.flatMap((e) => (e.type === 'emit' && e.data.kind === 'intermediate' ? [e.data.data] : []));

  it('Python, 20,000 intermediates: the first limits.intermediates are recorded, the rest counted', async () => {
    const r = await run(python);
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    expect(r.outcome.result).toBe(n); // the script went on to its end
    const first = Array.from({ length: max }, (_, i) => i);
    expect(kept(r.events)).toEqual(first);
    expect(r.execution?.intermediates).toEqual(first);
    expect(r.execution?.intermediatesNotRecorded).toBe(n - max);
    // Before: 20,000 emit events, each a row of the run store.
    expect(r.rows.emits).toBe(max);
    expect(r.rows.n).toBeLessThan(max + 20);

    const job = runSpans(r.events, 'toolsmith-test').find((x) => x.name === 'sandbox.execute python');
    expect(job?.attributes['toolsmith.sandbox.intermediates_not_recorded']).toBe(n - max);
    const shown = await cli(['runs', 'show', r.runId.slice(0, 8)]);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(`${max} intermediates recorded; ${note}`);
  }, 300_000);

  it('JS, 20,000 emitIntermediate calls: the same bound', async () => {
    const r = await run(`for (let i = 0; i < ${n}; i++) emitIntermediate(i);\nemitResult(${n});\n`, 'js');
    expect(r.outcome.status, JSON.stringify(r.execution?.error ?? r.record.error)).toBe('succeeded');
    expect(kept(r.events)).toHaveLength(max);
    expect(r.execution?.intermediatesNotRecorded).toBe(n - max);
    expect(r.rows.emits).toBe(max);
  }, 300_000);

  it('exec and the MCP answers (code, execute_code) say how many were not recorded', async () => {
    const file = join(ws, 'intermediates.py');
    writeFileSync(file, python);
    const e = await cli(['exec', file, '--sandbox', 'support']);
    expect(e.code, e.err).toBe(0);
    expect(e.out).toContain(`… ${note}`);
    expect(e.out.match(/ {2}intermediate: /g)).toHaveLength(max);

    const client = new Client({ name: 'toolsmith-intermediates-bound-test', version: '1.0.0' });
    await client.connect(mcpStdio(ws, { ...process.env, ...cacheEnv }));
    try {
      const structured = (r: unknown) =>
        (r as { structuredContent: Record<string, unknown> }).structuredContent;
      const code = await client.callTool(
        { name: 'code', arguments: { code: python, sandbox: 'support' } },
        undefined,
        { timeout: 300_000 },
      );
      expect(structured(code)).toMatchObject({ status: 'succeeded', intermediatesNotRecorded: n - max });
      const exec = await client.callTool(
        { name: 'execute_code', arguments: { code: python, sandbox: 'support' } },
        undefined,
        { timeout: 300_000 },
      );
      expect(structured(exec)).toMatchObject({ success: true, intermediatesNotRecorded: n - max });
      expect(structured(exec)['intermediates']).toHaveLength(max);
    } finally {
      await client.close();
    }
  }, 300_000);
});

/**
 * A collector that restarts while a long-lived Toolsmith (the workbench, `serve`, `mcp`) ends a run: the
 * trace is tried again within 15 s while the collector refuses connections or answers 503, and arrives
 * once. It was sent in one request, never retried: a run that ended during the restart lost its trace
 * (the workbench said "not sent"). A refusal that is not transient (HTTP 400) is not tried again, and a
 * one-shot CLI command still tries once (otlp-refused.test.ts). Real service, real containers, a real
 * OTLP receiver stopped and started again on its port.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { Logger } from '../../../src-main/core/ports/executor.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { OtlpReceiver } from '../../support/otlp-receiver.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const lines: { level: string; obj: Record<string, unknown> }[] = [];
let heard: () => void = () => {};
const log: Logger = {
  info: (obj) => (lines.push({ level: 'info', obj: obj as Record<string, unknown> }), heard()),
  warn: (obj) => (lines.push({ level: 'warn', obj: obj as Record<string, unknown> }), heard()),
  error: (obj) => (lines.push({ level: 'error', obj: obj as Record<string, unknown> }), heard()),
  child: () => log,
};
/** Resolves once the log has a line of `event` for `runId`. */
const logged = (event: string, runId: string) =>
  new Promise<Record<string, unknown>>((resolve) => {
    const look = () => {
      const hit = lines.find((l) => l.obj.event === event && l.obj.runId === runId);
      if (hit) resolve(hit.obj);
      return !!hit;
    };
    if (look()) return;
    const before = heard;
    heard = () => {
      before();
      if (look()) heard = before;
    };
  });

const ws = tempWorkspace();
let receiver: OtlpReceiver = await startOtlpReceiver();
const port = Number(new URL(receiver.base).port);
appendFileSync(
  join(ws, '.toolsmith/config.toml'),
  `\n[telemetry]\nenabled = true\nendpoint = "${receiver.base}"\n`,
);
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, log });
afterAll(async () => {
  await svc.close();
  await receiver.close();
  removeWorkspace(ws);
});

describe('a collector that restarts as a run ends', () => {
  it('the trace is tried again until the collector is back, and arrives once', async () => {
    const runs = await svc.runs();
    await receiver.close(); // the collector is down: connections are refused
    const run = await runs.runScript({
      sandbox: 'ecommerce',
      body: 'emit_result(get_user(user_id="u1").data["tier"])\n',
    });
    expect(run.status).toBe('succeeded');
    // Tried again (before, the trace was given up at once: run_trace_failed).
    const retry = await Promise.race([
      logged('run_trace_retry', run.runId),
      logged('run_trace_failed', run.runId),
    ]);
    expect(retry.event).toBe('run_trace_retry');
    expect(retry.err).toBe(`could not export to ${receiver.base}/v1/traces (connection refused)`);
    // Back on its port, answering 503 at first (still starting), then taking traces.
    receiver = await startOtlpReceiver({ port });
    receiver.failWith = 503;
    const tries = receiver.requests.length;
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (receiver.requests.length > tries) {
          clearInterval(t);
          resolve();
        }
      }, 50);
    });
    receiver.failWith = undefined;
    await logged('run_trace_sent', run.runId);
    const roots = receiver.spans.filter((s) => s.name === 'invoke_agent toolsmith');
    expect(roots.map((s) => s.attributes['toolsmith.run.id'])).toEqual([run.runId]);
    expect(receiver.spans.filter((s) => s.name === 'execute_tool get_user')).toHaveLength(1);
    expect(lines.some((l) => l.obj.event === 'run_trace_failed' && l.obj.runId === run.runId)).toBe(false);
  }, 300_000);

  it('a process that stops does not wait for a collector to come back: the trace is given up at once', async () => {
    // A service of its own, stopped here; its collector is not there (a port nothing listens on).
    const down = await startOtlpReceiver();
    await down.close();
    const ws2 = tempWorkspace();
    appendFileSync(
      join(ws2, '.toolsmith/config.toml'),
      `\n[telemetry]\nenabled = true\nendpoint = "${down.base}"\n`,
    );
    const svc2 = ToolsmithService.open(ws2, { sandboxFactory: createSandboxManager, log });
    try {
      const runs = await svc2.runs();
      const run = await runs.runScript({ sandbox: 'ecommerce', body: 'emit_result(1)\n' });
      await logged('run_trace_retry', run.runId);
      // Stopping ends the wait for the next try (it went on for 15 s, the stop's whole wait).
      await svc2.close();
      const failed = await logged('run_trace_failed', run.runId);
      expect(String(failed.err)).toContain('connection refused');
      expect(
        lines.filter((l) => l.obj.event === 'run_trace_retry' && l.obj.runId === run.runId),
      ).toHaveLength(1);
    } finally {
      await svc2.close();
      removeWorkspace(ws2);
    }
  }, 300_000);

  it('a refusal that is not transient (HTTP 400) is not tried again', async () => {
    receiver.failWith = 400;
    const before = receiver.requests.length;
    const runs = await svc.runs();
    const run = await runs.runScript({ sandbox: 'ecommerce', body: 'emit_result(1)\n' });
    const failed = await logged('run_trace_failed', run.runId);
    expect(String(failed.err)).toContain('HTTP 400');
    expect(lines.some((l) => l.obj.event === 'run_trace_retry' && l.obj.runId === run.runId)).toBe(false);
    expect(receiver.requests.length - before).toBe(1);
  }, 300_000);
});

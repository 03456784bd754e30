/**
 * Run traces end to end: the CLI as a process runs a task against the scripted LLM server and real
 * containers with only `OTEL_TRACES_EXPORTER=otlp` and `OTEL_EXPORTER_OTLP_ENDPOINT` set; the trace
 * reaches a real OTLP/HTTP receiver before the process exits (decoded: names, attributes, parent links),
 * without the header's secret. `runs export --otlp` sends the same run again later, as the same trace.
 */
import { describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { parentOf, startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { ReceivedSpan } from '../../support/otlp-receiver.ts';
import { cliProcess } from '../faults/support/processes.ts';

const fx = useScriptedWorkspace({ docker: true });
const SECRET = 'otel-header-secret-7d41c9';

describe('run traces from the CLI', () => {
  it('a run is sent as a trace when it ends; runs export --otlp sends it again', async () => {
    const receiver = await startOtlpReceiver();
    try {
      fx.llm.push(
        `\`\`\`python\nd = {"a": 1}\nemit_result(d["${SECRET}"])\n\`\`\``,
        '```python\nr = get_user(user_id="u4")\nemit_result(r.data["tier"])\n```',
      );
      const run = await cliProcess(
        fx.ws,
        fx.data,
        ['run', 'Tier of user u4', '--sandbox', 'ecommerce', '--json'],
        {
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base,
          OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer ${SECRET}`,
          OTEL_SERVICE_NAME: 'toolsmith-it',
        },
      ).done;
      expect(run.code).toBe(0);
      const rec = JSON.parse(run.out) as { id: string; status: string; attempts: unknown[] };
      expect(rec.status).toBe('succeeded');
      expect(rec.attempts).toHaveLength(2);

      // The process exits after the trace was taken: one request, the header sent, no secret in it.
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]!.headers['authorization']).toBe(`Bearer ${SECRET}`);
      expect(receiver.requests[0]!.body.includes(Buffer.from(SECRET))).toBe(false);
      const spans = receiver.spans.slice();
      const named = (name: string) => spans.filter((s) => s.name === name);
      const one = (name: string): ReceivedSpan => {
        const found = named(name);
        expect(found, name).toHaveLength(1);
        return found[0]!;
      };
      const root = one('invoke_agent toolsmith');
      expect(root.parentSpanId).toBe('');
      expect(root.resource['service.name']).toBe('toolsmith-it');
      expect(root.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'toolsmith.run.id': rec.id,
        'toolsmith.run.status': 'succeeded',
        'toolsmith.run.sandbox': 'ecommerce',
      });
      const a1 = one('attempt 1');
      const a2 = one('attempt 2');
      expect(parentOf(spans, a1)).toBe(root);
      expect(parentOf(spans, a2)).toBe(root);
      const chats = spans.filter((s) => s.name.startsWith('chat '));
      expect(chats.map((c) => parentOf(spans, c)?.name).sort()).toEqual(['attempt 1', 'attempt 2']);
      for (const c of chats) {
        expect(c.attributes['gen_ai.provider.name']).toBe('openai');
        expect(c.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
        expect(c.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      }
      const jobs = spans.filter((s) => s.name === 'sandbox.execute python');
      const job1 = jobs.find((j) => parentOf(spans, j) === a1)!;
      const job2 = jobs.find((j) => parentOf(spans, j) === a2)!;
      // The first job waited for its worker (started, its tools loaded): a span of its own, which ends
      // where the job starts. Before, the attempt had a second or more with no span under it there.
      const waits = named('sandbox.acquire python');
      const wait1 = waits.find((w) => parentOf(spans, w) === a1);
      expect(wait1, 'attempt 1 has its wait for a worker').toBeDefined();
      expect(Math.abs(wait1!.endMs - job1.startMs)).toBeLessThanOrEqual(1);
      expect(wait1!.attributes['toolsmith.sandbox.wait_ms']).toBeGreaterThan(0);
      expect(
        Math.abs(wait1!.endMs - wait1!.startMs - Number(wait1!.attributes['toolsmith.sandbox.wait_ms'])),
      ).toBeLessThanOrEqual(1);
      const validate1 = spans.find((s) => s.name === 'validate python' && parentOf(spans, s) === a1)!;
      expect(wait1!.startMs).toBeGreaterThanOrEqual(validate1.endMs - 1);
      expect(job1.status.code).toBe(2);
      expect(job1.attributes).toMatchObject({
        'error.type': 'KeyError',
        'toolsmith.sandbox.exit_reason': 'error',
      });
      expect(job1.events.find((e) => e.name === 'exception')?.attributes['exception.message']).toContain(
        '[redacted]',
      );
      expect(a1.status.code).toBe(2);
      expect(job2.status.code).toBe(0);
      expect(['docker', 'gvisor', 'process']).toContain(job2.attributes['toolsmith.sandbox.isolation']);
      const tool = one('execute_tool get_user');
      expect(parentOf(spans, tool)).toBe(job2);
      expect(tool.attributes).toMatchObject({
        'gen_ai.tool.name': 'get_user',
        'toolsmith.tool.status': 'ok',
      });
      expect(tool.attributes['toolsmith.tool.args_bytes']).toBe(JSON.stringify({ user_id: 'u4' }).length);
      for (const s of spans) {
        const p = parentOf(spans, s);
        if (p) expect(s.endMs).toBeLessThanOrEqual(p.endMs);
      }

      // Later, by hand, to a URL given on the command line (live export off): the same trace.
      const again = await cliProcess(fx.ws, fx.data, [
        'runs',
        'export',
        rec.id,
        '--otlp',
        `${receiver.base}/v1/traces`,
      ]).done;
      expect(again.code).toBe(0);
      expect(again.out).toMatch(
        new RegExp(
          `^sent run ${rec.id} as trace ${root.traceId} \\(${spans.length} spans\\) to ${receiver.base}/v1/traces\\n$`,
        ),
      );
      expect(receiver.requests).toHaveLength(2);
      expect(
        receiver.spans
          .slice(spans.length)
          .map((s) => s.name)
          .sort(),
      ).toEqual(spans.map((s) => s.name).sort());

      // Credentials in the URL go to the collector as basic auth, and are never printed.
      const withCredentials = receiver.base.replace('http://', 'http://ingest:tok3n@');
      const authed = await cliProcess(fx.ws, fx.data, [
        'runs',
        'export',
        rec.id,
        '--otlp',
        `${withCredentials}/v1/traces`,
      ]).done;
      expect(authed.code, authed.err).toBe(0);
      expect(authed.out).toBe(
        `sent run ${rec.id} as trace ${root.traceId} (${spans.length} spans) to ${receiver.base.replace('http://', 'http://[redacted]@')}/v1/traces\n`,
      );
      expect(receiver.requests[2]!.headers['authorization']).toBe(
        `Basic ${Buffer.from('ingest:tok3n').toString('base64')}`,
      );

      // A collector that refuses: the verb fails and says so.
      receiver.failWith = 503;
      const refused = await cliProcess(
        fx.ws,
        fx.data,
        ['runs', 'export', rec.id, '--otlp', `${receiver.base}/v1/traces`],
        {
          OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '3000',
        },
      ).done;
      expect(refused.code).toBe(3);
      expect(refused.err).toContain(`the OTLP endpoint ${receiver.base}/v1/traces did not take the trace`);
    } finally {
      await receiver.close();
    }
  }, 240_000);
});

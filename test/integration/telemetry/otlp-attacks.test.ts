/**
 * Run traces as the attacker would use them: a script (the LLM's output, through the scripted LLM
 * server) that throws a credential it read, throws an error of megabytes, and emits values shaped like
 * span attributes; and a person who sends a past run to a collector of their choosing. Real containers,
 * the CLI as a process, real OTLP/HTTP receivers.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { OtlpReceiver, ReceivedSpan } from '../../support/otlp-receiver.ts';
import { cliProcess } from '../faults/support/processes.ts';

const fx = useScriptedWorkspace({ docker: true });
const SHOP_TOKEN = 'shop-token-5b1e0c2f9a';
const OTLP_AUTH = 'Bearer otlp-ingest-key-3c9d7e21';
let configured: OtlpReceiver;
let other: OtlpReceiver;

beforeAll(async () => {
  configured = await startOtlpReceiver();
  other = await startOtlpReceiver();
  // More tool calls recorded than the spans a job gets (limits.tool_calls, default 1000 like the spans'
  // bound), so the span bound is what cuts them below.
  const config = join(fx.ws, '.toolsmith/config.toml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(/^\[limits\]\n/m, '[limits]\ntool_calls = 2000\n'),
  );
  // The person's collector, with its key in their environment (the file names the variable only).
  appendFileSync(
    join(fx.ws, '.toolsmith/config.toml'),
    `\n[telemetry]\nenabled = true\nendpoint = "${configured.base}"\nheaders = { authorization = "env:QA_OTLP_AUTH" }\n`,
  );
});
afterAll(async () => {
  await configured?.close();
  await other?.close();
});

const env = { QA_OTLP_AUTH: OTLP_AUTH, TOOLSMITH_SHOP_TOKEN: SHOP_TOKEN };

/** Runs a task whose one attempt is `script` (no retry), the trace sent live; the run's id and spans. */
async function tracedRun(script: string): Promise<{ id: string; spans: ReceivedSpan[]; body: Buffer }> {
  fx.llm.push(`\`\`\`python\n${script}\n\`\`\``);
  const before = configured.requests.length;
  const spansBefore = configured.spans.length;
  const run = await cliProcess(
    fx.ws,
    fx.data,
    ['run', 'Whatever the LLM wants', '--sandbox', 'ecommerce', '--max-retries', '0', '--json'],
    env,
  ).done;
  const rec = JSON.parse(run.out) as { id: string };
  expect(configured.requests.length, run.err).toBe(before + 1);
  return { id: rec.id, spans: configured.spans.slice(spansBefore), body: configured.requests.at(-1)!.body };
}

const allText = (spans: readonly ReceivedSpan[]): string => JSON.stringify(spans);

describe('run traces under attack', () => {
  it('a credential the script read and raised, whole or as the error, never reaches the collector', async () => {
    const r = await tracedRun(
      'token = credential("shop_api_token")\nif len(token) > 1000:\n    emit_result(0)\nraise ValueError(token + " was refused")',
    );
    expect(r.body.includes(Buffer.from(SHOP_TOKEN))).toBe(false);
    expect(r.body.includes(Buffer.from(OTLP_AUTH.split(' ')[1]!))).toBe(false);
    const job = r.spans.find((s) => s.name === 'sandbox.execute python')!;
    expect(job.attributes['error.type']).toBe('ValueError');
    expect(job.events.find((e) => e.name === 'exception')?.attributes['exception.message']).toBe(
      // The worker masks a credential it handed out; the redactor would too.
      '*** was refused',
    );
    expect(configured.requests.at(-1)!.headers['authorization']).toBe(OTLP_AUTH);
  }, 180_000);

  it("values a script emits shaped like span attributes or another run's ids change no attribute", async () => {
    const forged = 'r-00000000-forged';
    const r = await tracedRun(
      `emit_intermediate({"toolsmith.run.id": "${forged}", "gen_ai.conversation.id": "${forged}"})\nemit_log("traceparent: 00-${'f'.repeat(32)}-${'e'.repeat(16)}-01")\nemit_result({"toolsmith.run.status": "succeeded", "trace_id": "${'f'.repeat(32)}"})`,
    );
    const root = r.spans.find((s) => s.name === 'invoke_agent toolsmith')!;
    expect(root.attributes['toolsmith.run.id']).toBe(r.id);
    expect(root.attributes['gen_ai.conversation.id']).toBe(r.id);
    expect(new Set(r.spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    expect(root.traceId).not.toBe('f'.repeat(32));
    // Contents never leave: not the forged id, not the log line.
    expect(allText(r.spans)).not.toContain(forged);
    expect(allText(r.spans)).not.toContain('traceparent');
  }, 180_000);

  it('an error of megabytes is sent cut to a bounded size, saying how much was left out', async () => {
    const r = await tracedRun('if len("a") > 5:\n    emit_result(0)\nraise ValueError("x" * 3000000)');
    // Each copy of the message (span status, exception event; job, attempt and run) is bounded.
    expect(r.body.length).toBeLessThan(200_000);
    const job = r.spans.find((s) => s.name === 'sandbox.execute python')!;
    const shown = job.events.find((e) => e.name === 'exception')?.attributes['exception.message'] as string;
    expect(shown.startsWith('xxxx')).toBe(true);
    // The sandbox cut it to the output limit (50 KB here) already; the trace cuts it again, to 4,096.
    expect(shown).toMatch(/^x{4096}… \(4\d,\d{3} more characters\)$/);
    expect(job.status.message).toBe(shown);
  }, 180_000);

  it('a script looping over a tool gets a bounded number of tool spans; the job says how many were left out', async () => {
    const r = await tracedRun(
      'n = 0\nfor i in range(1500):\n    n += len(get_user(user_id="u1").data)\nemit_result(n)',
    );
    const job = r.spans.find((s) => s.name === 'sandbox.execute python')!;
    expect(job.attributes['toolsmith.sandbox.tool_calls']).toBe(1500);
    expect(job.attributes['toolsmith.sandbox.tool_spans_dropped']).toBe(500);
    expect(job.attributes['toolsmith.sandbox.tool_calls_not_recorded']).toBeUndefined();
    const tools = r.spans.filter((s) => s.name === 'execute_tool get_user');
    expect(tools).toHaveLength(1000);
    expect(tools.map((t) => t.attributes['gen_ai.tool.call.id'])).toContain('1.1000');
  }, 180_000);

  it('runs export --otlp to a URL of its own sends none of the configured collector headers', async () => {
    const r = await tracedRun('emit_result(1)');
    const sent = await cliProcess(
      fx.ws,
      fx.data,
      ['runs', 'export', r.id, '--otlp', `${other.base}/v1/traces`],
      { ...env, OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=otlp-env-key-8f2a61' },
    ).done;
    expect(sent.code, sent.err).toBe(0);
    expect(other.requests).toHaveLength(1);
    const headers = other.requests[0]!.headers;
    expect(headers['authorization']).toBeUndefined();
    expect(headers['x-api-key']).toBeUndefined();
    // The person is told, naming the headers and why.
    expect(sent.err).toContain(
      `warning: the configured OTLP headers (authorization, x-api-key) are for ${configured.base}/v1/traces; they are not sent to ${other.base}/v1/traces`,
    );

    // The configured collector, by default or typed out, still gets them.
    for (const args of [[], [`${configured.base}/v1/traces`]]) {
      const n = configured.requests.length;
      const again = await cliProcess(fx.ws, fx.data, ['runs', 'export', r.id, '--otlp', ...args], env).done;
      expect(again.code, again.err).toBe(0);
      expect(again.err).toBe('');
      expect(configured.requests).toHaveLength(n + 1);
      expect(configured.requests[n]!.headers['authorization']).toBe(OTLP_AUTH);
    }
  }, 180_000);
});

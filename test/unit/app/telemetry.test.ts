/**
 * Run traces: a recorded run's events become GenAI spans sent over OTLP/HTTP to a real receiver started
 * here (protobuf and JSON decoded), with real timestamps, parent links, error statuses and secrets redacted; and
 * where traces go, from config.toml and the OTEL_* variables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src-main/app/config.ts';
import {
  learnOtelEnvSecrets,
  otlpTarget,
  parseOtelHeaders,
  sendRunTrace,
  telemetrySettings,
} from '../../../src-main/app/telemetry.ts';
import type { EventPayloads, EventType, RunEvent } from '../../../src-main/core/records/events.ts';
import type { ToolCallTrace } from '../../../src-main/core/sandbox/execution.ts';
import { knownSecrets, Redactor } from '../../../src-main/core/records/redact.ts';
import { exportRunTrace, traceIdOf } from '../../../src-main/infra/telemetry/run-trace.ts';
import { parentOf, startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { OtlpReceiver, ReceivedSpan } from '../../support/otlp-receiver.ts';

const SECRET = 'sk-otel-test-4f9a8b7c6d5e';
const T0 = 1_800_000_000_000;

/** A run of three attempts: an invalid script, a script that raised, then one that called two tools. */
function recordedRun(runId: string): RunEvent[] {
  const events: RunEvent[] = [];
  const add = <T extends EventType>(type: T, at: number, data: EventPayloads[T]) =>
    events.push({ v: 1, runId, seq: events.length, ts: T0 + at, type, data } as RunEvent);
  const llm = (n: number, at: number, latency: number) =>
    add('llm_response', at, {
      n,
      text: '```python\n...\n```',
      promptTokens: 100 * n,
      completionTokens: 10 * n,
      model: 'gpt-test',
      provider: 'local',
      latencyMs: latency,
      retries: n === 2 ? [{ attempt: 1, reason: '429 Too Many Requests', waitMs: 50 }] : [],
    });
  const script = (n: number, at: number) =>
    add('script', at, { n, code: 'x', body: 'x', bodyStartLine: 1, language: 'python', source: 'llm' });
  add('run_started', 0, {
    task: 'count the stock',
    sandbox: 'ecommerce',
    mode: 'plan',
    language: 'python',
    provider: 'local',
    model: 'gpt-test',
    maxRetries: 3,
    maxSteps: 0,
  });
  add('tier', 1, { n: 1, tier: 'llm', provider: 'local' });
  llm(1, 1001, 1000);
  script(1, 1002);
  add('validation', 1010, {
    n: 1,
    valid: false,
    violations: [
      { rule: 'import', message: 'imports are not allowed', line: 1, column: 0, endLine: 1, endColumn: 9 },
    ],
  });
  add('tier', 1011, { n: 2, tier: 'llm', provider: 'local' });
  llm(2, 2011, 900);
  script(2, 2012);
  add('validation', 2020, { n: 2, valid: true, violations: [] });
  add('execution', 2520, {
    n: 2,
    result: {
      success: false,
      intermediates: [],
      logs: [],
      toolCalls: [],
      error: { type: 'KeyError', message: `'${SECRET}'`, frames: [{ line: 2, name: '<script>' }] },
      exitReason: 'error',
      isolation: 'docker',
      durationMs: 400,
      runtime: 'python',
    },
  });
  add('tier', 2521, { n: 3, tier: 'llm', provider: 'local' });
  llm(3, 3521, 1000);
  script(3, 3522);
  add('validation', 3530, { n: 3, valid: true, violations: [] });
  const calls: ToolCallTrace[] = [
    {
      name: 'check_inventory',
      args: { product_id: 'p3' },
      result: { success: true, data: { in_stock: 4 } },
      ms: 30,
      location: 'sandbox',
    },
    {
      name: 'send_email',
      args: { to: 'a@example.com' },
      ms: 20,
      location: 'sandbox',
      error: 'ConnectionError: refused',
    },
  ];
  add('tool_call', 3600, { n: 3, trace: calls[0]! });
  add('approval', 3620, {
    n: 3,
    tool: 'send_email',
    args: { to: 'a@example.com' },
    line: 2,
    approved: true,
    via: 'workbench',
    waitedMs: 15,
  });
  add('tool_call', 3650, { n: 3, trace: calls[1]! });
  add('execution', 3700, {
    n: 3,
    result: {
      success: true,
      data: 4,
      intermediates: [],
      logs: [],
      toolCalls: calls,
      exitReason: 'ok',
      isolation: 'gvisor',
      durationMs: 150,
      runtime: 'python',
    },
  });
  add('run_finished', 3710, { status: 'succeeded', result: 4 });
  return events;
}

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

const byName = (spans: ReceivedSpan[], name: string) => {
  const s = spans.find((x) => x.name === name);
  if (!s) throw new Error(`no span ${name} in ${spans.map((x) => x.name).join(', ')}`);
  return s;
};

describe('a run as an OpenTelemetry trace', () => {
  it('sends GenAI spans with real times, parent links, statuses and no secret to an OTLP receiver', async () => {
    const redactor = new Redactor();
    redactor.add(SECRET);
    receiver.spans = [];
    receiver.requests = [];
    const sent = await exportRunTrace(
      recordedRun('run-otel-1'),
      {
        url: `${receiver.base}/v1/traces`,
        headers: { authorization: `Bearer ${SECRET}` },
        serviceName: 'ts-test',
      },
      { configuredProviders: { local: { kind: 'openai' } }, redactor },
    );
    const spans = receiver.spans;
    expect(spans).toHaveLength(sent);
    // One request, protobuf, carrying the configured header.
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.contentType).toBe('application/x-protobuf');
    expect(receiver.requests[0]!.headers['authorization']).toBe(`Bearer ${SECRET}`);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf('run-otel-1')]));
    expect(spans.every((s) => s.resource['service.name'] === 'ts-test' && s.scope === 'toolsmith')).toBe(
      true,
    );
    expect(spans.map((s) => s.name).sort()).toEqual(
      [
        'invoke_agent toolsmith',
        'attempt 1',
        'attempt 2',
        'attempt 3',
        'chat gpt-test',
        'chat gpt-test',
        'chat gpt-test',
        'validate python',
        'validate python',
        'validate python',
        'sandbox.execute python',
        'sandbox.execute python',
        'execute_tool check_inventory',
        'execute_tool send_email',
      ].sort(),
    );

    const run = byName(spans, 'invoke_agent toolsmith');
    expect(run.parentSpanId).toBe('');
    expect(run.startMs).toBe(T0);
    expect(run.endMs).toBe(T0 + 3710);
    expect(run.status.code).toBe(0);
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': 'run-otel-1',
      'toolsmith.run.status': 'succeeded',
      'gen_ai.usage.input_tokens': 600,
      'gen_ai.usage.output_tokens': 60,
    });

    // Attempts under the run; chat, validation and sandbox spans under their attempt.
    for (const n of [1, 2, 3]) expect(parentOf(spans, byName(spans, `attempt ${n}`))).toBe(run);
    const attempt = (n: number) => byName(spans, `attempt ${n}`);
    const chats = spans.filter((s) => s.name === 'chat gpt-test');
    expect(chats.map((c) => parentOf(spans, c)?.name).sort()).toEqual([
      'attempt 1',
      'attempt 2',
      'attempt 3',
    ]);
    const chat2 = chats.find((c) => parentOf(spans, c) === attempt(2))!;
    expect(chat2.kind).toBe(3); // CLIENT
    expect(chat2.startMs).toBe(T0 + 2011 - 900);
    expect(chat2.endMs).toBe(T0 + 2011);
    expect(chat2.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'toolsmith.provider.id': 'local',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.response.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 200,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(chat2.events.map((e) => e.name)).toEqual(['retry']);

    // An invalid script: the validation span and its attempt are errors, with the violation as an event.
    const v1 = spans.find((s) => s.name === 'validate python' && parentOf(spans, s) === attempt(1))!;
    expect(v1.status.code).toBe(2);
    expect(v1.attributes['toolsmith.validation.valid']).toBe(false);
    expect(v1.events.map((e) => e.name)).toEqual(['violation', 'exception']);
    expect(attempt(1).status).toEqual({ code: 2, message: 'line 1: imports are not allowed' });

    // A script that raised: the sandbox span is an error with the exception, its message redacted.
    const job2 = spans.find((s) => s.name === 'sandbox.execute python' && parentOf(spans, s) === attempt(2))!;
    expect(job2.status.code).toBe(2);
    expect(job2.attributes).toMatchObject({
      'toolsmith.sandbox.isolation': 'docker',
      'toolsmith.sandbox.exit_reason': 'error',
      'error.type': 'KeyError',
    });
    expect(job2.startMs).toBe(T0 + 2520 - 400);
    const exc = job2.events.find((e) => e.name === 'exception')!;
    expect(exc.attributes).toEqual({ 'exception.type': 'KeyError', 'exception.message': "'[redacted]'" });
    expect(attempt(2).status.code).toBe(2);

    // Tool calls under the sandbox job of attempt 3, timed by their live events.
    const job3 = spans.find((s) => s.name === 'sandbox.execute python' && parentOf(spans, s) === attempt(3))!;
    expect(job3.attributes['toolsmith.sandbox.isolation']).toBe('gvisor');
    expect(job3.status.code).toBe(0);
    expect(attempt(3).status.code).toBe(0);
    const inv = byName(spans, 'execute_tool check_inventory');
    const mail = byName(spans, 'execute_tool send_email');
    expect(parentOf(spans, inv)).toBe(job3);
    expect(parentOf(spans, mail)).toBe(job3);
    expect([inv.startMs, inv.endMs]).toEqual([T0 + 3570, T0 + 3600]);
    expect(inv.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'check_inventory',
      'toolsmith.tool.status': 'ok',
      'toolsmith.tool.args_bytes': JSON.stringify({ product_id: 'p3' }).length,
      'toolsmith.tool.result_bytes': JSON.stringify({ success: true, data: { in_stock: 4 } }).length,
    });
    expect(mail.status).toEqual({ code: 2, message: 'ConnectionError: refused' });
    expect(mail.attributes['toolsmith.tool.status']).toBe('error');
    // A person's answer is an event of the job, at its time, with sizes and names only.
    const approval = job3.events.find((e) => e.name === 'toolsmith.approval')!;
    expect(approval.attributes).toEqual({
      'gen_ai.tool.name': 'send_email',
      'toolsmith.approval.approved': true,
      'toolsmith.approval.via': 'workbench',
      'toolsmith.approval.waited_ms': 15,
    });
    expect(approval.timeMs).toBe(T0 + 3620);

    // Children lie within their parents.
    for (const s of spans) {
      const p = parentOf(spans, s);
      if (!p) continue;
      expect(s.startMs).toBeGreaterThanOrEqual(p.startMs);
      expect(s.endMs).toBeLessThanOrEqual(p.endMs);
    }
    // No secret anywhere in what was sent.
    expect(receiver.requests[0]!.body.includes(Buffer.from(SECRET))).toBe(false);
  });

  it('a run a template served (no LLM call) names no request model; its attempt names the template', async () => {
    const events: RunEvent[] = [];
    const runId = 'run-otel-template';
    const add = <T extends EventType>(type: T, at: number, data: EventPayloads[T]) =>
      events.push({ v: 1, runId, seq: events.length, ts: T0 + at, type, data } as RunEvent);
    add('run_started', 0, {
      task: 'tier of user u3',
      sandbox: 'ecommerce',
      mode: 'plan',
      language: 'python',
      provider: 'local',
      model: 'gpt-test',
      maxRetries: 3,
      maxSteps: 0,
    });
    add('tier', 1, { n: 1, tier: 'template', template: 'tiers' });
    add('script', 2, {
      n: 1,
      code: 'x',
      body: 'x',
      bodyStartLine: 1,
      language: 'python',
      source: 'template',
    });
    add('validation', 3, { n: 1, valid: true, violations: [] });
    add('execution', 40, {
      n: 1,
      result: {
        success: true,
        data: 'gold',
        intermediates: [],
        logs: [],
        toolCalls: [],
        exitReason: 'ok',
        isolation: 'docker',
        durationMs: 30,
        runtime: 'python',
      },
    });
    add('run_finished', 41, { status: 'succeeded', result: 'gold' });
    receiver.spans = [];
    await exportRunTrace(events, { url: `${receiver.base}/v1/traces`, headers: {}, serviceName: 'ts-test' });
    const root = byName(receiver.spans, 'invoke_agent toolsmith');
    expect(root.attributes['gen_ai.usage.input_tokens']).toBe(0);
    expect(root.attributes).not.toHaveProperty('gen_ai.request.model');
    expect(byName(receiver.spans, 'attempt 1').attributes).toMatchObject({
      'toolsmith.attempt.tier': 'template',
      'toolsmith.attempt.template': 'tiers',
    });
    expect(receiver.spans.some((s) => s.name.startsWith('chat '))).toBe(false);
  });

  it("an answer that is not the model's text: its chat span names the kind, never the words", async () => {
    // (the kind as recorded with the answer, never read off its words: a function named "bypass content
    // filter" read as `content_filter`; a run recorded before the kind was kept says `unknown`)
    const kinds: [string, EventPayloads['llm_response']['withheldKind'], string][] = [
      [`the model refused ("${SECRET} is not something I share")`, 'refusal', 'refusal'],
      [
        "the provider's content filter stopped the answer (finish_reason: content_filter)",
        'content_filter',
        'content_filter',
      ],
      [
        'the model called a function (bypass content filter) instead of answering with text (finish reason tool_calls; ...)',
        'function_call',
        'function_call',
      ],
      [
        "the provider's content filter stopped the answer (finish_reason: content_filter)",
        undefined,
        'unknown',
      ],
    ];
    for (const [i, [withheld, recorded, kind]] of kinds.entries()) {
      const events: RunEvent[] = [];
      const runId = `run-otel-withheld-${i}`;
      const add = <T extends EventType>(type: T, at: number, data: EventPayloads[T]) =>
        events.push({ v: 1, runId, seq: events.length, ts: T0 + at, type, data } as RunEvent);
      add('run_started', 0, {
        task: 'count',
        sandbox: 'ecommerce',
        mode: 'plan',
        language: 'python',
        provider: 'local',
        model: 'gpt-test',
        maxRetries: 0,
        maxSteps: 0,
      });
      add('tier', 1, { n: 1, tier: 'llm', provider: 'local' });
      add('llm_response', 50, {
        n: 1,
        text: '',
        promptTokens: 10,
        completionTokens: 1,
        model: 'gpt-test',
        provider: 'local',
        latencyMs: 40,
        retries: [],
        finishReason: 'stop',
        withheld,
        ...(recorded ? { withheldKind: recorded } : {}),
      });
      add('run_finished', 60, { status: 'failed', error: 'rejected' });
      receiver.spans = [];
      await exportRunTrace(events, {
        url: `${receiver.base}/v1/traces`,
        headers: {},
        serviceName: 'ts-test',
      });
      const chat = byName(receiver.spans, 'chat gpt-test');
      expect(chat.attributes['toolsmith.llm.withheld']).toBe(kind);
      expect(JSON.stringify(receiver.spans)).not.toContain(SECRET);
    }
  });

  it('http/json: the same spans, ids, parents, times and attributes reach the receiver as JSON', async () => {
    const target = {
      url: `${receiver.base}/v1/traces`,
      headers: { 'x-tenant': 't1' },
      serviceName: 'ts-test',
    };
    const redactor = new Redactor();
    redactor.add(SECRET);
    // Span ids are random per export (the trace id is the run's): spans are compared by their parent's name.
    const shape = (all: ReceivedSpan[]) =>
      all
        .map(({ spanId: _s, parentSpanId: _p, ...x }) => ({
          ...x,
          parent:
            parentOf(
              all,
              all.find((y) => y.spanId === _s)!,
            )?.name ?? null,
        }))
        .sort((a, b) => `${a.name} ${a.startMs}`.localeCompare(`${b.name} ${b.startMs}`));
    receiver.spans = [];
    receiver.requests = [];
    await exportRunTrace(recordedRun('run-otel-json'), target, {
      configuredProviders: { local: { kind: 'openai' } },
      redactor,
    });
    const proto = shape(receiver.spans);
    expect(receiver.requests[0]!.contentType).toBe('application/x-protobuf');
    receiver.spans = [];
    receiver.requests = [];
    const sent = await exportRunTrace(
      recordedRun('run-otel-json'),
      { ...target, protocol: 'http/json' },
      { configuredProviders: { local: { kind: 'openai' } }, redactor },
    );
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.contentType).toBe('application/json');
    expect(receiver.requests[0]!.headers['x-tenant']).toBe('t1');
    // OTLP's JSON mapping: hex ids, not base64.
    const body = JSON.parse(receiver.requests[0]!.body.toString('utf8')) as {
      resourceSpans: { scopeSpans: { spans: { traceId: string; spanId: string }[] }[] }[];
    };
    const first = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    expect(first.traceId).toBe(traceIdOf('run-otel-json'));
    expect(first.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(receiver.spans).toHaveLength(sent);
    expect(sent).toBeGreaterThan(5);
    expect(new Set(receiver.spans.map((x) => x.traceId))).toEqual(new Set([traceIdOf('run-otel-json')]));
    // Every span as the protobuf request carried it: names, parent links, kinds, times, attributes,
    // events, statuses, resource and scope.
    const json = shape(receiver.spans);
    expect(json).toEqual(proto);
    expect(json.filter((x) => x.parent === null).map((x) => x.name)).toEqual(['invoke_agent toolsmith']);
    expect(json.find((x) => x.name.startsWith('execute_tool'))?.parent).toMatch(/^sandbox\.execute/);
    expect(receiver.requests[0]!.body.includes(Buffer.from(SECRET))).toBe(false);
    // Every event (LLM retries too) lies within its span: the run's recorded times, not the export's.
    const retries = json.flatMap((x) => x.events.filter((ev) => ev.name === 'retry'));
    expect(retries.length).toBeGreaterThan(0);
    for (const x of json)
      for (const ev of x.events) {
        expect(ev.timeMs).toBeGreaterThanOrEqual(x.startMs);
        expect(ev.timeMs).toBeLessThanOrEqual(x.endMs);
      }
  });

  it('http/json: a collector that refuses is named with its status', async () => {
    receiver.failWith = 503;
    try {
      await expect(
        exportRunTrace(recordedRun('run-otel-json-2'), {
          url: `${receiver.base}/v1/traces`,
          headers: {},
          serviceName: 'ts-test',
          protocol: 'http/json',
        }),
      ).rejects.toThrow(`the OTLP endpoint ${receiver.base}/v1/traces did not take the trace: HTTP 503`);
    } finally {
      receiver.failWith = undefined;
    }
    // Nothing listening: refused, named too.
    const gone = await startOtlpReceiver();
    await gone.close();
    await expect(
      exportRunTrace(recordedRun('run-otel-json-3'), {
        url: `${gone.base}/v1/traces`,
        headers: {},
        serviceName: 'ts-test',
        protocol: 'http/json',
        timeoutMs: 5000,
      }),
    ).rejects.toThrow(`the OTLP endpoint ${gone.base}/v1/traces did not take the trace: connection refused`);
  });

  it('a collector nothing listens on: one request, refused at once, never retried until the timeout', async () => {
    const gone = await startOtlpReceiver();
    await gone.close();
    for (const protocol of ['http/protobuf', 'http/json'] as const) {
      const t0 = Date.now();
      const err = await exportRunTrace(recordedRun('run-otel-gone'), {
        url: `${gone.base}/v1/traces`,
        headers: {},
        serviceName: 'ts-test',
        protocol,
        timeoutMs: 10_000,
      }).catch((e: unknown) => e);
      // OpenTelemetry's exporter retried a refused connection with backoff until the timeout (10 s).
      expect(Date.now() - t0, protocol).toBeLessThan(5_000);
      expect(err).toMatchObject({
        name: 'OtlpExportError',
        url: `${gone.base}/v1/traces`,
        reason: 'connection refused',
      });
    }
  });

  it('a collector that refuses: the export rejects naming the endpoint', async () => {
    receiver.failWith = 400;
    try {
      await expect(
        exportRunTrace(recordedRun('run-otel-2'), {
          url: `${receiver.base}/v1/traces`,
          headers: {},
          serviceName: 'ts-test',
          timeoutMs: 5000,
        }),
      ).rejects.toThrow(`the OTLP endpoint ${receiver.base}/v1/traces did not take the trace`);
    } finally {
      receiver.failWith = undefined;
    }
  });
});

describe('the provider of a run recorded before runs kept its kind and endpoint', () => {
  const chatsOf = async (runId: string, providers: unknown[]) => {
    receiver.spans = [];
    await sendRunTrace(recordedRun(runId), parseConfig({ providers }), {
      url: `${receiver.base}/v1/traces`,
      headers: {},
      serviceName: 'ts-test',
    });
    return receiver.spans.filter((s) => s.name.startsWith('chat '));
  };

  it("is looked up in the config: its kind, and the vendor's server when it has no base_url", async () => {
    const chats = await chatsOf('run-otel-legacy-1', [{ id: 'local', kind: 'anthropic', model: 'claude-x' }]);
    expect(chats).toHaveLength(3); // two answers and a failed call
    for (const c of chats)
      expect(c.attributes).toMatchObject({
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.system': 'anthropic',
        'server.address': 'api.anthropic.com',
        'server.port': 443,
      });
    const viaUrl = await chatsOf('run-otel-legacy-2', [
      { id: 'local', kind: 'openai', model: 'm', base_url: 'http://[::1]:11434/v1' },
    ]);
    expect(viaUrl[0]?.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'server.address': '::1',
      'server.port': 11434,
    });
  });

  it('is _OTHER (not its id) when the config does not know the id either, with no server', async () => {
    const chats = await chatsOf('run-otel-legacy-3', [{ id: 'other', kind: 'openai', model: 'm' }]);
    expect(chats).toHaveLength(3); // two answers and a failed call
    for (const c of chats) {
      expect(c.attributes['gen_ai.provider.name']).toBe('_OTHER');
      expect(c.attributes['toolsmith.provider.id']).toBe('local');
      expect(c.attributes['server.address']).toBeUndefined();
    }
  });
});

describe('where run traces go', () => {
  it('is off by default, on with OTEL_TRACES_EXPORTER=otlp and an endpoint', () => {
    expect(telemetrySettings(parseConfig({}), {})).toMatchObject({ enabled: false });
    const on = telemetrySettings(parseConfig({}), {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
    });
    expect(on).toMatchObject({
      enabled: true,
      url: 'http://collector:4318/v1/traces',
      serviceName: 'toolsmith',
      headers: {},
      timeoutMs: 10_000,
      warnings: [],
    });
  });

  it('config.toml turns it on; the OTEL_* variables win over it', () => {
    const c = parseConfig({
      telemetry: {
        enabled: true,
        endpoint: 'http://from-config:4318',
        headers: { 'x-api-key': 'env:TS_TEST_OTEL_KEY' },
        service_name: 'from-config',
      },
    });
    expect(telemetrySettings(c, { TS_TEST_OTEL_KEY: 'k-123456789' })).toMatchObject({
      enabled: true,
      url: 'http://from-config:4318/v1/traces',
      headers: { 'x-api-key': 'k-123456789' },
      serviceName: 'from-config',
    });
    expect(
      telemetrySettings(c, {
        TS_TEST_OTEL_KEY: 'k-123456789',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-tenant=t1',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=t2',
        OTEL_SERVICE_NAME: 'from-env',
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '2500',
      }),
    ).toMatchObject({
      url: 'http://traces:9999/custom',
      headers: { 'x-api-key': 'k-123456789', authorization: 'Bearer abc', 'x-tenant': 't2' },
      serviceName: 'from-env',
      timeoutMs: 2500,
    });
    expect(telemetrySettings(c, { OTEL_SDK_DISABLED: 'true' })).toEqual({
      enabled: false,
      why: 'OTEL_SDK_DISABLED=true',
    });
    expect(telemetrySettings(c, { OTEL_TRACES_EXPORTER: 'none' })).toMatchObject({ enabled: false });
    // A header variable that is not set is named; an unsupported protocol is told, protobuf is sent.
    const warned = telemetrySettings(c, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(warned.enabled && warned.warnings).toEqual([
      'OTLP protocol grpc is not supported (http/protobuf and http/json are): traces are sent as http/protobuf',
      '[telemetry] header x-api-key: TS_TEST_OTEL_KEY is not set',
    ]);
  });

  it('the protocol: http/protobuf by default, http/json from config.toml or OTEL_EXPORTER_OTLP_PROTOCOL', () => {
    const on = { OTEL_TRACES_EXPORTER: 'otlp' };
    expect(telemetrySettings(parseConfig({}), on)).toMatchObject({ protocol: 'http/protobuf' });
    expect(
      telemetrySettings(parseConfig({}), { ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
    ).toMatchObject({ protocol: 'http/json', warnings: [] });
    const json = parseConfig({ telemetry: { enabled: true, protocol: 'http/json' } });
    expect(telemetrySettings(json, {})).toMatchObject({ protocol: 'http/json' });
    // The traces-specific variable wins over the general one, which wins over the file.
    expect(
      telemetrySettings(json, {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toMatchObject({ protocol: 'http/protobuf' });
    // grpc is named and the file's protocol kept; a protocol the file does not know is a config error.
    const grpc = telemetrySettings(json, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(grpc).toMatchObject({ protocol: 'http/json' });
    expect(grpc.enabled && grpc.warnings).toEqual([
      'OTLP protocol grpc is not supported (http/protobuf and http/json are): traces are sent as http/json',
    ]);
    expect(() => parseConfig({ telemetry: { protocol: 'grpc' } })).toThrow();
  });

  it('an explicit export uses the same endpoint whether or not live export is on', () => {
    expect(otlpTarget(parseConfig({}), { OTEL_SDK_DISABLED: 'true' }).url).toBe(
      'http://localhost:4318/v1/traces',
    );
    expect(parseOtelHeaders('a=1, b = x%3Dy ,bad,=v')).toEqual({ a: '1', b: 'x=y' });
  });

  it('header values are secrets, whole and the credential after their scheme', () => {
    learnOtelEnvSecrets({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20tok-5e6f7a8b9c0d' });
    expect(knownSecrets.text('key tok-5e6f7a8b9c0d and Bearer tok-5e6f7a8b9c0d')).toBe(
      'key [redacted] and [redacted]',
    );
  });

  it('an endpoint without http:// or https://: config.toml refuses it; an OTEL_* variable is warned about and ignored', () => {
    // `localhost:4318` parses as a URL whose scheme is `localhost:`: it was accepted, then every export failed.
    expect(() => parseConfig({ telemetry: { endpoint: 'localhost:4318' } })).toThrow(
      'telemetry.endpoint: expected an http:// or https:// URL with a host and port, such as http://localhost:4318, got "localhost:4318"',
    );
    expect(() => parseConfig({ telemetry: { traces_endpoint: '127.0.0.1:4318/v1/traces' } })).toThrow(
      /telemetry\.traces_endpoint: expected an http:\/\/ or https:\/\/ URL .*, got "127\.0\.0\.1:4318\/v1\/traces"/,
    );
    expect(() => parseConfig({ telemetry: { endpoint: 'ftp://collector:4318' } })).toThrow(
      /telemetry\.endpoint/,
    );
    // Credentials typed before the host are not quoted back (as an OTEL_* variable's, below).
    const withToken = () => parseConfig({ telemetry: { endpoint: 'ingest:tok-1a2b3c@collector:4318' } });
    expect(withToken).toThrow(/telemetry\.endpoint: .*, got "\[redacted\]@collector:4318"/);
    expect(withToken).not.toThrow(/tok-1a2b3c/);
    expect(parseConfig({ telemetry: { endpoint: 'https://collector:4318' } }).telemetry.endpoint).toBe(
      'https://collector:4318',
    );

    // The specification: the OTLP/HTTP endpoint is an http(s) URL; an invalid value is warned about and
    // treated as not set (the next source is used); an empty one is unset.
    const c = parseConfig({ telemetry: { enabled: true, endpoint: 'http://from-config:4318' } });
    const base = telemetrySettings(c, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' });
    expect(base).toMatchObject({ enabled: true, url: 'http://from-config:4318/v1/traces' });
    expect(base.enabled && base.warnings).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318" is ignored: an OTLP/HTTP endpoint is an http:// or https:// URL with a host and port, such as http://localhost:4318; traces go to http://from-config:4318/v1/traces',
    ]);
    // The traces variable falls back to the base variable; its credentials are not quoted.
    const traces = telemetrySettings(c, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ingest:tok-1a2b3c@collector:4318/v1/traces',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
    });
    expect(traces).toMatchObject({ url: 'http://base:4318/v1/traces' });
    expect(traces.enabled && traces.warnings.join('\n')).toMatch(
      /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="\[redacted\]@collector:4318\/v1\/traces" is ignored: .*; traces go to http:\/\/base:4318\/v1\/traces$/,
    );
    // Without config: the specification's default, still said.
    const dflt = otlpTarget(parseConfig({}), {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'localhost:4318/v1/traces',
    });
    expect(dflt.url).toBe('http://localhost:4318/v1/traces');
    expect(dflt.warnings).toHaveLength(1);
    // Empty or blank is unset: no warning.
    expect(telemetrySettings(c, { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toMatchObject({
      url: 'http://from-config:4318/v1/traces',
      warnings: [],
    });
  });

  it('config.toml refuses a header written in the clear', () => {
    expect(() => parseConfig({ telemetry: { headers: { authorization: 'Bearer abc' } } })).toThrow(
      /telemetry\.headers\.authorization: use "env:VARIABLE"/,
    );
  });
});

/**
 * A recorded run as an OpenTelemetry trace, following the GenAI semantic conventions: the run's events
 * (the store's truth) are folded into spans with their real timestamps, so the same code exports a run
 * live when it ends and a past run (`toolsmith runs export --otlp`). docs/telemetry.md lists the spans
 * and attributes.
 *
 * Spans: `invoke_agent toolsmith` (the run) > `attempt N` / `step N` > `chat <model>` (each LLM answer or
 * failed call), `validate <language>`, `sandbox.acquire <runtime>` (the wait for a worker, when there was one),
 * `sandbox.execute <runtime>` > `skill <name>` (each skill call,
 * nested as the calls were) and `execute_tool <name>` (each tool call, under the skill call that made it). Errors are span status ERROR with an `exception` event. Every string passes
 * through the process's redactor (the store's), so keys and credentials are never exported.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { ClientRequest, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { IdGenerator, ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { EventOf, RunEvent } from '../../core/records/events.ts';
import type { ExecutionResult, ToolCallTrace } from '../../core/sandbox/execution.ts';
import { knownSecrets, urlWithoutCredentials } from '../../core/records/redact.ts';
import type { Redactor } from '../../core/records/redact.ts';
import {
  proxyAuthorization,
  proxyConnectFailure,
  proxyFor,
  proxyWords,
  tunnelRefused,
  tunnelNoHandshake,
  tunnelUnanswered,
} from '../net/proxy-env.ts';

/**
 * GenAI attribute names (semantic conventions for generative AI; the constants moved out of
 * `@opentelemetry/semantic-conventions` to their own repository, so they are spelled here).
 */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  /** The older name of gen_ai.provider.name, still read by Langfuse and Phoenix. */
  system: 'gen_ai.system',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const;

/** A provider as a chat span names it: the API it speaks and where its requests went. */
export interface ProviderFacts {
  kind: string;
  endpoint?: string;
}

/**
 * gen_ai.provider.name when the provider's API is not known (a run recorded before runs kept it, whose
 * provider id today's config does not have): the conventions' value for "none of the known ones".
 */
export const UNKNOWN_PROVIDER = '_OTHER';

/**
 * The chat span's provider attributes. gen_ai.provider.name is the API the provider speaks, the
 * conventions' "telemetry flavor": `openai` for every OpenAI-compatible endpoint (Ollama, vLLM, a
 * gateway...), `anthropic` for the Messages API; server.address and server.port (the scheme's default
 * when the URL names none) say which server actually answered.
 */
export function providerAttributes(facts: ProviderFacts | undefined): Attributes {
  const kind = facts?.kind ?? UNKNOWN_PROVIDER;
  const attrs: Attributes = { [GEN_AI.provider]: kind, [GEN_AI.system]: kind };
  if (!facts?.endpoint) return attrs;
  try {
    const u = new URL(facts.endpoint);
    const port = u.port
      ? Number(u.port)
      : u.protocol === 'https:'
        ? 443
        : u.protocol === 'http:'
          ? 80
          : undefined;
    attrs[GEN_AI.serverAddress] = u.hostname.replace(/^\[(.*)\]$/, '$1');
    if (port !== undefined) attrs[GEN_AI.serverPort] = port;
  } catch {
    // An endpoint that is not a URL names no server.
  }
  return attrs;
}

/** The instrumentation scope of Toolsmith's spans. */
export const SCOPE = 'toolsmith';

export interface RunTraceOptions {
  /**
   * The configured providers by id (app/telemetry.ts), for runs recorded before a run kept each
   * provider's kind and endpoint in its `run_started`; what the run recorded wins.
   */
  configuredProviders?: Readonly<Record<string, ProviderFacts>>;
  /** Redacts every string (default: the process's known secrets, as the store does). */
  redactor?: Redactor;
  /** Ends the request (a stopping process that waited long enough); its reason is the failure's. */
  signal?: AbortSignal;
  /** More attributes of the trace's resource (OTEL_RESOURCE_ATTRIBUTES); `service.name` is always the service's. */
  resourceAttributes?: Readonly<Record<string, string>>;
}

/** Where and how to send traces (resolved from config.toml and the OTEL_* variables by app/telemetry.ts). */
export interface OtlpTarget {
  /** The traces URL (`.../v1/traces`). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  /** The resource's other attributes (OTEL_RESOURCE_ATTRIBUTES: `deployment.environment.name`...). */
  resourceAttributes?: Record<string, string>;
  timeoutMs?: number;
  /** The body's encoding: protobuf (the default) or OTLP's JSON mapping. */
  protocol?: OtlpProtocol;
  /** `gzip`: the body is sent gzipped (`content-encoding: gzip`); unset, as it is. */
  compression?: 'gzip';
  /**
   * TLS for an https endpoint (PEM text): `ca`, the certificates that verify the collector's (else the
   * system's); `cert` and `key`, the client certificate a collector that asks for one (mTLS) gets.
   */
  tls?: { ca?: string; cert?: string; key?: string };
}

/** The OTLP transports Toolsmith sends (gRPC needs OpenTelemetry's gRPC exporter, not a dependency). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** The trace id of a run: derived from its id, so a run exported twice is one trace. */
export const traceIdOf = (runId: string): string =>
  createHash('sha256').update(`toolsmith-run:${runId}`).digest('hex').slice(0, 32);

class RunIdGenerator implements IdGenerator {
  private readonly traceId: string;
  constructor(traceId: string) {
    this.traceId = traceId;
  }
  generateTraceId(): string {
    return this.traceId;
  }
  generateSpanId(): string {
    return randomBytes(8).toString('hex');
  }
}

/**
 * The longest text a span carries (an error message, a reason), in characters. A script's error is its
 * own to size: a 3 MB message made an 18 MB request (the message on the job's, attempt's and run's
 * status and exception event), which collectors refuse (4 MiB is a common limit), losing the whole
 * trace. Longer text is cut, saying how much was left out.
 */
export const MAX_SPAN_TEXT = 4096;

/**
 * The most `execute_tool` spans a job gets; the job span counts every call (`tool_calls`) and the calls
 * left out (`tool_spans_dropped`). A script loops over tools as it likes: 20,000 calls of a sandbox tool
 * took 12 s here, so a job of its 300 s could have made one request of about half a million spans.
 */
export const MAX_TOOL_SPANS = 1000;

/** The most `skill` spans a job gets (the first calls that started; the job span counts the rest). */
export const MAX_SKILL_SPANS = 1000;

const bounded = (v: string): string =>
  v.length <= MAX_SPAN_TEXT
    ? v
    : `${v.slice(0, MAX_SPAN_TEXT)}… (${(v.length - MAX_SPAN_TEXT).toLocaleString('en-US')} more characters)`;

const bytes = (v: unknown): number => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v) ?? ''));

/**
 * Builds a finished run's spans from its events (in sequence order, first `run_started`) and hands them
 * to `exporter` through the SDK (real start and end times from the events). Returns how many spans.
 */
export function buildRunSpans(
  events: readonly RunEvent[],
  exporter: SpanExporter,
  serviceName: string,
  opts: RunTraceOptions = {},
): number {
  const first = events[0];
  if (!first || first.type !== 'run_started') throw new Error('a run starts with a run_started event');
  const red = opts.redactor ?? knownSecrets;
  const s = (v: string) => bounded(red.text(v));
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...opts.resourceAttributes, 'service.name': serviceName }),
    idGenerator: new RunIdGenerator(traceIdOf(first.runId)),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer(SCOPE);
  let count = 0;
  const start = (name: string, at: number, parent: Context, attrs: Attributes, kind = SpanKind.INTERNAL) => {
    count++;
    return tracer.startSpan(name, { startTime: at, attributes: attrs, kind }, parent);
  };
  const under = (span: Span) => trace.setSpan(ROOT_CONTEXT, span);
  const fail = (span: Span, type: string, message: string, at: number) => {
    span.setStatus({ code: SpanStatusCode.ERROR, message: s(message) });
    span.setAttribute(GEN_AI.errorType, s(type));
    span.addEvent('exception', { 'exception.type': s(type), 'exception.message': s(message) }, at);
  };
  const started = first.data;
  // What the run recorded of each provider (kind and endpoint), else what the config says of its id.
  const providerOf = (id: string): ProviderFacts | undefined => {
    const recorded = started.providers?.find((p) => p.id === id);
    if (recorded?.kind)
      return { kind: recorded.kind, ...(recorded.endpoint ? { endpoint: recorded.endpoint } : {}) };
    return opts.configuredProviders?.[id];
  };
  // What the provider's requests sent (recorded with the run; older runs have none).
  const requestOf = (id: string): Attributes => {
    const recorded = started.providers?.find((p) => p.id === id);
    return {
      ...(recorded?.maxTokens !== undefined ? { [GEN_AI.requestMaxTokens]: recorded.maxTokens } : {}),
      ...(recorded?.temperature !== undefined ? { [GEN_AI.requestTemperature]: recorded.temperature } : {}),
    };
  };
  const last = events[events.length - 1] as RunEvent;
  const finished = events.find((e): e is EventOf<'run_finished'> => e.type === 'run_finished');
  const runSpan = start(`invoke_agent ${SCOPE}`, first.ts, ROOT_CONTEXT, {
    [GEN_AI.operation]: 'invoke_agent',
    [GEN_AI.agentName]: SCOPE,
    [GEN_AI.conversationId]: first.runId,
    'toolsmith.run.id': first.runId,
    'toolsmith.run.mode': started.mode,
    'toolsmith.run.kind': started.kind ?? 'run',
    'toolsmith.run.sandbox': s(started.sandbox),
    ...(started.kit ? { 'toolsmith.run.kit': s(started.kit) } : {}),
    'toolsmith.run.language': started.language,
    'toolsmith.run.task_chars': started.task.length,
    // The model the run's requests asked for, when it made any: a run a template or rule served made
    // none (it was named the configured model, read as an LLM call that never happened).
    ...(started.model && events.some((e) => e.type === 'llm_response' || e.type === 'llm_error')
      ? { [GEN_AI.requestModel]: started.model }
      : {}),
    ...(started.origin ? { 'toolsmith.run.origin': `${started.origin.kind}:${started.origin.runId}` } : {}),
  });
  const runCtx = under(runSpan);

  // The events of each attempt (PLAN) or step (INTERACTIVE), in order.
  const byN = new Map<number, RunEvent[]>();
  for (const e of events) {
    const n = 'n' in e.data && typeof e.data.n === 'number' ? e.data.n : undefined;
    if (n === undefined) continue;
    const list = byN.get(n) ?? [];
    list.push(e);
    byN.set(n, list);
  }
  let tokensIn = 0;
  let tokensOut = 0;
  for (const [n, list] of [...byN.entries()].sort((a, b) => a[0] - b[0])) {
    const t0 = (list[0] as RunEvent).ts;
    const tier = list.find((e): e is EventOf<'tier'> => e.type === 'tier');
    const execution = list.find((e): e is EventOf<'execution'> => e.type === 'execution');
    // An attempt starts at its first event, or earlier when its LLM call or sandbox job did.
    let begin = t0;
    for (const e of list) {
      if (e.type === 'llm_response') begin = Math.min(begin, e.ts - e.data.latencyMs);
      if (e.type === 'execution')
        begin = Math.min(begin, e.ts - e.data.result.durationMs - (e.data.result.waitMs ?? 0));
    }
    const attemptSpan = start(`${started.mode === 'interactive' ? 'step' : 'attempt'} ${n}`, begin, runCtx, {
      'toolsmith.attempt.n': n,
      ...(tier ? { 'toolsmith.attempt.tier': tier.data.tier } : {}),
      ...(tier?.data.template ? { 'toolsmith.attempt.template': s(tier.data.template) } : {}),
      ...(tier?.data.provider ? { 'toolsmith.attempt.provider': tier.data.provider } : {}),
    });
    const attemptCtx = under(attemptSpan);
    let attemptError: { type: string; message: string; at: number } | undefined;
    let prevTs = begin;
    let scriptTs: number | undefined;
    for (const e of list) {
      switch (e.type) {
        case 'script':
          scriptTs = e.ts;
          break;
        case 'llm_response': {
          const d = e.data;
          // The model asked for (the run's record of the provider) and the one the answer named, which a
          // server may spell otherwise (`gpt-4o` answered as `gpt-4o-2024-08-06`); older runs: the answer's.
          const asked = started.providers?.find((p) => p.id === d.provider)?.model ?? d.model;
          const span = start(
            `chat ${asked}`,
            e.ts - d.latencyMs,
            attemptCtx,
            {
              [GEN_AI.operation]: 'chat',
              ...providerAttributes(providerOf(d.provider)),
              'toolsmith.provider.id': d.provider,
              [GEN_AI.requestModel]: asked,
              ...requestOf(d.provider),
              [GEN_AI.responseModel]: d.model,
              ...(d.responseId ? { [GEN_AI.responseId]: s(d.responseId) } : {}),
              [GEN_AI.inputTokens]: d.promptTokens,
              [GEN_AI.outputTokens]: d.completionTokens,
              // As the API said it; Toolsmith keeps an answer only when it ended whole (a cut at
              // max_tokens is an llm_error), so a run recorded before reads `stop`.
              [GEN_AI.finishReasons]: [d.finishReason ? s(d.finishReason) : 'stop'],
              'toolsmith.llm.retries': d.retries.length,
              'toolsmith.llm.correction': d.correction === true,
              'toolsmith.llm.answer_chars': d.text.length,
              // An answer that is not the model's text, by kind only (the words may quote the model).
              // (as the provider said it; a run recorded before the kind was kept: `unknown`, never a
              // kind guessed from words that may quote the model)
              ...(d.withheld ? { 'toolsmith.llm.withheld': d.withheldKind ?? 'unknown' } : {}),
            },
            SpanKind.CLIENT,
          );
          // Retries carry no time of their own: each is placed inside the call, after the waits before
          // it (never at the time of the export, which for a past run is long after the call).
          let waited = e.ts - d.latencyMs;
          for (const r of d.retries) {
            span.addEvent(
              'retry',
              { 'toolsmith.retry.reason': s(r.reason), 'toolsmith.retry.wait_ms': r.waitMs },
              Math.min(waited, e.ts),
            );
            waited += r.waitMs;
          }
          span.end(e.ts);
          tokensIn += d.promptTokens;
          tokensOut += d.completionTokens;
          break;
        }
        case 'llm_error': {
          const d = e.data;
          const span = start(
            `chat ${tier?.data.provider === d.provider ? (started.providers?.find((p) => p.id === d.provider)?.model ?? d.provider) : d.provider}`,
            Math.max(prevTs, begin),
            attemptCtx,
            {
              [GEN_AI.operation]: 'chat',
              ...providerAttributes(providerOf(d.provider)),
              'toolsmith.provider.id': d.provider,
              ...requestOf(d.provider),
              ...(/max_tokens/.test(d.message) ? { [GEN_AI.finishReasons]: ['length'] } : {}),
              'toolsmith.llm.retries': d.retries.length,
            },
            SpanKind.CLIENT,
          );
          fail(span, 'llm_error', d.message, e.ts);
          span.end(e.ts);
          attemptError = { type: 'llm_error', message: d.message, at: e.ts };
          break;
        }
        case 'validation': {
          const d = e.data;
          const span = start(`validate ${started.language}`, scriptTs ?? prevTs, attemptCtx, {
            'toolsmith.validation.valid': d.valid,
            'toolsmith.validation.violations': d.violations.length,
          });
          for (const v of d.violations)
            span.addEvent(
              'violation',
              {
                'toolsmith.violation.rule': v.rule,
                'toolsmith.violation.message': s(v.message),
                'toolsmith.violation.line': v.line,
              },
              e.ts,
            );
          if (!d.valid) {
            const msg =
              d.violations.map((v) => `line ${v.line}: ${v.message}`).join('; ') || 'invalid script';
            fail(span, 'validation', msg, e.ts);
            attemptError = { type: 'validation', message: msg, at: e.ts };
          }
          span.end(e.ts);
          break;
        }
        case 'execution':
          attemptError = sandboxSpans(e, list, attemptCtx) ?? attemptError;
          if (e.data.result.success) attemptError = undefined;
          break;
      }
      prevTs = e.ts;
    }
    const end = Math.max(prevTs, execution?.ts ?? 0);
    if (attemptError) fail(attemptSpan, attemptError.type, attemptError.message, attemptError.at);
    attemptSpan.end(end);
  }

  function sandboxSpans(
    e: EventOf<'execution'>,
    list: readonly RunEvent[],
    parent: Context,
  ): { type: string; message: string; at: number } | undefined {
    const r: ExecutionResult = e.data.result;
    const jobStart = e.ts - r.durationMs;
    // The wait for a worker before the job was sent (the first job of a sandbox starts its worker and
    // loads its tools: a second or two in which the attempt had no span).
    if (r.waitMs)
      start(`sandbox.acquire ${r.runtime}`, jobStart - r.waitMs, parent, {
        'toolsmith.sandbox.runtime': r.runtime,
        'toolsmith.sandbox.wait_ms': r.waitMs,
      }).end(jobStart);
    const job = start(`sandbox.execute ${r.runtime}`, jobStart, parent, {
      'toolsmith.sandbox.isolation': r.isolation,
      ...(r.isolationReason ? { 'toolsmith.sandbox.isolation_reason': s(r.isolationReason) } : {}),
      'toolsmith.sandbox.exit_reason': r.exitReason,
      'toolsmith.sandbox.runtime': r.runtime,
      'toolsmith.sandbox.duration_ms': r.durationMs,
      'toolsmith.sandbox.tool_calls': r.toolCalls.length,
      // Calls past the bound of recorded ones (limits.tool_calls): counted, no span of their own.
      ...(r.toolCallsNotRecorded
        ? { 'toolsmith.sandbox.tool_calls_not_recorded': r.toolCallsNotRecorded }
        : {}),
      // Calls that needed approval past the job's bound of requests (limits.approvals): refused unasked.
      ...(r.approvalsNotAsked ? { 'toolsmith.sandbox.approvals_not_asked': r.approvalsNotAsked } : {}),
      // Intermediates past the job's bound (limits.intermediates): counted, not recorded.
      ...(r.intermediatesNotRecorded
        ? { 'toolsmith.sandbox.intermediates_not_recorded': r.intermediatesNotRecorded }
        : {}),
      'toolsmith.sandbox.logs': r.logs.length,
      'toolsmith.sandbox.result_bytes': bytes(r.data),
      ...(r.toolCalls.length > MAX_TOOL_SPANS
        ? { 'toolsmith.sandbox.tool_spans_dropped': r.toolCalls.length - MAX_TOOL_SPANS }
        : {}),
      ...(r.skillCalls?.length ? { 'toolsmith.sandbox.skill_calls': r.skillCalls.length } : {}),
      ...(r.skillCallsNotRecorded
        ? { 'toolsmith.sandbox.skill_calls_not_recorded': r.skillCallsNotRecorded }
        : {}),
      ...((r.skillCalls?.length ?? 0) > MAX_SKILL_SPANS
        ? { 'toolsmith.sandbox.skill_spans_dropped': (r.skillCalls?.length ?? 0) - MAX_SKILL_SPANS }
        : {}),
    });
    const jobCtx = under(job);
    // Each skill call (docs/skills.md), under the skill call that made it: from its start (the host's
    // time of its start line) for as long as the worker measured it, within its parent (the two clocks
    // differ by the lines' way to the host: a call is never drawn outside the call that made it).
    const skillSpans = new Map<number, { ctx: Context; from: number; to: number }>();
    for (const sc of (r.skillCalls ?? []).slice(0, MAX_SKILL_SPANS)) {
      const parent = sc.parent !== undefined ? skillSpans.get(sc.parent) : undefined;
      const lo = parent?.from ?? jobStart;
      const hi = Math.min(parent?.to ?? e.ts, e.ts);
      const from = Math.min(Math.max(jobStart + sc.at, lo), hi);
      const to = Math.min(from + sc.ms, hi);
      const span = start(`skill ${sc.name}`, from, parent?.ctx ?? jobCtx, {
        'toolsmith.skill.name': s(sc.name),
        'code.function.name': s(sc.name),
        'toolsmith.skill.call.id': `${e.data.n}.s${sc.id}`,
        'toolsmith.skill.args_bytes': bytes(sc.args),
        'toolsmith.skill.tool_calls': r.toolCalls.filter((c) => c.skillCall === sc.id).length,
        'toolsmith.skill.status': sc.unfinished ? 'unfinished' : sc.error ? 'error' : 'ok',
      });
      if (sc.error) fail(span, sc.error.type, sc.error.message, to);
      else if (sc.unfinished)
        fail(span, 'unfinished', `still running when the job ended (${r.exitReason})`, to);
      span.end(to);
      skillSpans.set(sc.id, { ctx: under(span), from, to });
    }
    // Each tool call ended when its live tool_call event was recorded; the final trace is the truth.
    const live = list.filter((x): x is EventOf<'tool_call'> => x.type === 'tool_call');
    let cursor = jobStart;
    r.toolCalls.slice(0, MAX_TOOL_SPANS).forEach((c: ToolCallTrace, i) => {
      const skill = c.skillCall !== undefined ? skillSpans.get(c.skillCall) : undefined;
      const endAt = Math.max(
        Math.min(live[i]?.data.trace.name === c.name ? live[i].ts : cursor + c.ms, skill?.to ?? e.ts, e.ts),
        skill?.from ?? jobStart,
      );
      const from = Math.min(Math.max(jobStart, skill?.from ?? jobStart, endAt - c.ms), endAt);
      const span = start(`execute_tool ${c.name}`, from, skill?.ctx ?? jobCtx, {
        [GEN_AI.operation]: 'execute_tool',
        [GEN_AI.toolName]: s(c.name),
        [GEN_AI.toolType]: 'function',
        [GEN_AI.toolCallId]: `${e.data.n}.${i + 1}`,
        'toolsmith.tool.location': c.location,
        // A call made inside a skill (docs/skills.md): the skill that made it, as the run view shows it.
        ...(c.skill ? { 'toolsmith.tool.skill': s(c.skill) } : {}),
        'toolsmith.tool.args_bytes': bytes(c.args),
        'toolsmith.tool.result_bytes': bytes(c.result),
        'toolsmith.tool.status': c.refused
          ? 'refused'
          : c.error
            ? 'error'
            : c.result && !c.result.success
              ? 'failure'
              : 'ok',
        ...(c.egress?.length ? { 'toolsmith.tool.egress_requests': c.egress.length } : {}),
      });
      if (c.refused) fail(span, 'refused', c.error ?? `${c.name} is outside the kit`, endAt);
      else if (c.error) fail(span, 'tool_error', c.error, endAt);
      else if (c.result && !c.result.success)
        fail(span, 'tool_failure', c.result.message ?? 'the tool failed', endAt);
      span.end(endAt);
      cursor = endAt;
    });
    // A person's answers to calls that needed approval: events of the job, at the time of the answer.
    for (const x of list)
      if (x.type === 'approval')
        job.addEvent(
          'toolsmith.approval',
          {
            [GEN_AI.toolName]: s(x.data.tool),
            'toolsmith.approval.approved': x.data.approved,
            'toolsmith.approval.via': x.data.via,
            'toolsmith.approval.waited_ms': x.data.waitedMs,
          },
          Math.min(Math.max(x.ts, jobStart), e.ts),
        );
    let error: { type: string; message: string; at: number } | undefined;
    if (!r.success) {
      const type = r.error?.type ?? r.exitReason;
      const message = r.error?.message ?? `the script ended with ${r.exitReason}`;
      fail(job, type, message, e.ts);
      const frame = r.error?.frames.at(-1);
      if (frame) job.setAttribute('toolsmith.sandbox.error_line', frame.line);
      // A line of a skill's source (or of tools.py), not of the script: say whose.
      if (frame?.skill) job.setAttribute('toolsmith.sandbox.error_skill', frame.skill);
      if (frame?.file) job.setAttribute('toolsmith.sandbox.error_file', frame.file);
      error = { type, message, at: e.ts };
    }
    job.end(e.ts);
    return error;
  }

  runSpan.setAttributes({ [GEN_AI.inputTokens]: tokensIn, [GEN_AI.outputTokens]: tokensOut });
  const status = finished?.data.status ?? 'interrupted';
  runSpan.setAttribute('toolsmith.run.status', status);
  if (status !== 'succeeded')
    fail(
      runSpan,
      status,
      finished?.data.error ?? `the run ${status === 'interrupted' ? 'was interrupted' : status}`,
      last.ts,
    );
  runSpan.end(finished?.ts ?? last.ts);
  return count;
}

/** The spans of a run as the SDK makes them (tests and `runs export --otlp` count them). */
export function runSpans(
  events: readonly RunEvent[],
  serviceName: string,
  opts: RunTraceOptions = {},
): ReadableSpan[] {
  const mem = new InMemorySpanExporter();
  buildRunSpans(events, mem, serviceName, opts);
  return mem.getFinishedSpans();
}

/** A collector that did not take a trace: which endpoint, and why (redacted), said in one line. */
export class OtlpExportError extends Error {
  override name = 'OtlpExportError';
  readonly url: string;
  readonly reason: string;
  /**
   * A failure the OTLP specification calls transient (no connection, a reset, HTTP 429, 502, 503, 504:
   * a collector restarting or overloaded), which the same request may pass later.
   */
  readonly transient: boolean;
  constructor(url: string, reason: string, transient = false) {
    // The URL's credentials (user:token@) are sent as basic auth, never shown or logged.
    const shown = urlWithoutCredentials(url);
    super(`the OTLP endpoint ${shown} did not take the trace: ${reason}`);
    this.url = shown;
    this.reason = reason;
    this.transient = transient;
  }
}

/**
 * Sends a finished run's trace to an OTLP/HTTP endpoint in one request, its body encoded by
 * OpenTelemetry's own serializers (`http/protobuf`, or OTLP's JSON mapping for `http/json`: hex ids,
 * enums as numbers, 64-bit times as strings). Resolves with the number of spans sent; rejects with an
 * `OtlpExportError` naming the endpoint and what it answered or why it could not be reached.
 *
 * One request, never retried: OpenTelemetry's exporter retries a refused or unreachable collector with
 * backoff until its timeout (10 s), which every process that ends after a run waited out in full.
 */
export async function exportRunTrace(
  events: readonly RunEvent[],
  target: OtlpTarget,
  opts: RunTraceOptions = {},
): Promise<number> {
  const spans = runSpans(events, target.serviceName, {
    ...(target.resourceAttributes ? { resourceAttributes: target.resourceAttributes } : {}),
    ...opts,
  });
  const json = target.protocol === 'http/json';
  const body = json
    ? JsonTraceSerializer.serializeRequest(spans)
    : ProtobufTraceSerializer.serializeRequest(spans);
  if (!body) throw new Error(`the trace could not be encoded as OTLP ${json ? 'JSON' : 'protobuf'}`);
  const gzip = target.compression === 'gzip';
  const redactor = opts.redactor ?? knownSecrets;
  const timeoutMs = target.timeoutMs ?? 10_000;
  let answer: { status: number; type: string; text: string };
  try {
    answer = await post(
      target.url,
      {
        ...target.headers,
        'content-type': json ? 'application/json' : 'application/x-protobuf',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      },
      gzip ? gzipSync(body) : body,
      timeoutMs,
      opts.signal,
      target.tls,
    );
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    throw new OtlpExportError(
      target.url,
      redactor.text(networkReason(e, timeoutMs)),
      !!code && TRANSIENT_CODES.has(code),
    );
  }
  if (answer.status < 200 || answer.status > 299) {
    // A protobuf answer (google.rpc.Status) is not shown as text.
    const said = /json|text/.test(answer.type) ? answer.text.trim().slice(0, 300) : '';
    // An http:// collector's answer came from the proxy: it may be the proxy's own (a 502, a 403).
    const proxy = target.url.startsWith('http:') ? proxyFor(target.url) : undefined;
    const via = proxy ? ` (the answer came through ${proxyWords(proxy)}, and may be its own)` : '';
    throw new OtlpExportError(
      target.url,
      redactor.text(`HTTP ${answer.status}${said ? `: ${said}` : ''}${via}`),
      TRANSIENT_STATUSES.has(answer.status),
    );
  }
  return spans.length;
}

/** The answers the OTLP/HTTP specification says to retry (the collector is restarting or overloaded). */
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);
/** No collector answering now: one restarting refuses or resets connections for a moment. */
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EAI_AGAIN', 'EPIPE']);

/** Why a request never got an answer, in words (`connection refused`), with the system's code. */
function networkReason(e: unknown, timeoutMs: number): string {
  if (e instanceof PostTimeout) return e.message || `no answer within ${timeoutMs} ms`;
  if (e instanceof PostAborted || e instanceof ProxyRefused) return e.message;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const said: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
  };
  if (code && said[code]) return said[code];
  // A collector whose certificate is not trusted here: the variable that names its CA.
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code))
    return `${e instanceof Error ? e.message : code}: the collector's certificate is not trusted; give its CA's PEM file in OTEL_EXPORTER_OTLP_CERTIFICATE`;
  return e instanceof Error ? e.message : String(e);
}

class PostTimeout extends Error {}
class PostAborted extends Error {}
/** The proxy in front of the collector failed the request (refused, asked for credentials, silent). */
class ProxyRefused extends Error {}

/**
 * One POST over node:http(s); resolves with the answer whatever its status, rejects when there is none.
 * Behind the environment's proxy (the same choice as fetch's for LLM calls: `proxyFor`, so under
 * NODE_USE_ENV_PROXY, and never for a NO_PROXY host such as the loopback names) the request goes through
 * it: an http:// collector's as an absolute-form request to the proxy, an https:// one's through a tunnel
 * (CONNECT) asked here, under the same deadline, so a proxy that never answers fails the request at its
 * timeout instead of holding the process (Node's own proxy agent did not end an unanswered tunnel when
 * the request was destroyed). A failure of the proxy names it and the variable it came from.
 */
function post(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array | string,
  timeoutMs: number,
  signal?: AbortSignal,
  tls?: OtlpTarget['tls'],
): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const aborted = () =>
      new PostAborted(typeof signal?.reason === 'string' ? signal.reason : 'the request was cancelled');
    if (signal?.aborted) {
      reject(aborted());
      return;
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      reject(new Error(`not a URL: ${urlWithoutCredentials(url)}`));
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      reject(new Error(`not an http(s) URL: ${urlWithoutCredentials(url)}`));
      return;
    }
    const https = parsed.protocol === 'https:';
    const proxy = proxyFor(parsed.href);
    const port = Number(parsed.port) || (https ? 443 : 80);
    const data = typeof body === 'string' ? Buffer.from(body) : body;
    /** The request in flight (the CONNECT, then the POST) and the tunnel, ended together. */
    let current: ClientRequest | undefined;
    let tunnel: Socket | undefined;
    /** Whether the proxy answered: its tunnel is up, or (http://) the POST's answer began. */
    let proxyAnswered = false;
    /** Through a tunnel: the TLS handshake with the collector inside it is done. */
    let secured = false;
    /** The POST's answer began (its status and headers came). */
    let answerBegan = false;
    let settled = false;
    const finish = (e: Error | undefined, answer?: { status: number; type: string; text: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (e) {
        current?.destroy(e);
        tunnel?.destroy();
        reject(e);
      } else resolve(answer!);
    };
    const timer = setTimeout(() => {
      const tunnelTo = `${parsed.hostname}:${port}`;
      // What was being waited for, through which proxy: the tunnel, the TLS handshake in it, the answer,
      // or the rest of an answer that began.
      finish(
        new PostTimeout(
          !proxy
            ? ''
            : answerBegan
              ? `the answer began and did not end within ${timeoutMs} ms (it came through ${proxyWords(proxy)})`
              : !https
                ? proxyAnswered
                  ? `no answer within ${timeoutMs} ms (its requests go through ${proxyWords(proxy)})`
                  : `${proxyWords(proxy)}, which its requests go through, did not answer within ${timeoutMs} ms`
                : !proxyAnswered
                  ? `${tunnelUnanswered(proxy, tunnelTo)} within ${timeoutMs} ms`
                  : !secured
                    ? `${tunnelNoHandshake(proxy, tunnelTo)} within ${timeoutMs} ms`
                    : `no answer within ${timeoutMs} ms to the request sent to ${tunnelTo} through the tunnel ${proxyWords(proxy)} opened (the TLS handshake with it was done)`,
        ),
      );
    }, timeoutMs);
    // A pending request holds its process open (its socket and timer) for as long as its timeout.
    const onAbort = () => finish(aborted());
    signal?.addEventListener('abort', onAbort, { once: true });
    /** A socket error of a request that went to the proxy itself: its words when it is the proxy's. */
    const viaProxy = (e: unknown): Error => {
      const code = (e as NodeJS.ErrnoException | undefined)?.code;
      const failure = proxy && !proxyAnswered && code ? proxyConnectFailure(code, proxy) : undefined;
      return failure ? new ProxyRefused(failure.reason) : (e as Error);
    };
    const proxyAuth = proxy ? proxyAuthorization(proxy) : undefined;

    const sendPost = (createConnection?: () => Socket) => {
      const options: RequestOptions = {
        method: 'POST',
        headers: { ...headers, 'content-length': String(data.length) },
        // No keep-alive: the process may end right after (a CLI verb), with no socket left to wait for.
        ...(createConnection ? { createConnection } : { agent: false }),
        ...(https ? tls : {}),
      };
      let req: ClientRequest;
      if (proxy && !https) {
        // Absolute-form to the proxy; the collector's own credentials (user:token@) still as basic auth.
        const target = new URL(parsed.href);
        target.username = target.password = '';
        req = httpRequest({
          ...options,
          host: proxy.host,
          port: proxy.port,
          path: target.href,
          headers: {
            ...options.headers,
            host: parsed.host,
            ...(proxyAuth ? { 'proxy-authorization': proxyAuth } : {}),
          },
          ...(parsed.username || parsed.password
            ? { auth: `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}` }
            : {}),
        });
      } else req = (https ? httpsRequest : httpRequest)(parsed, options);
      current = req;
      req.on('response', (res) => {
        proxyAnswered = true;
        answerBegan = true;
        if (proxy && !https && res.statusCode === 407) {
          res.resume();
          finish(new ProxyRefused(tunnelRefused(407, proxy).reason));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          // Only the start of an answer is ever shown.
          if (size < 64 * 1024) chunks.push(c);
          size += c.length;
        });
        res.on('end', () =>
          finish(undefined, {
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (e) => finish(e));
      });
      req.on('error', (e) => finish(proxy && !https ? viaProxy(e) : e));
      req.end(data);
    };

    if (!proxy || !https) {
      sendPost();
      return;
    }
    // https:// through the proxy: the tunnel first, then TLS to the collector inside it.
    const authority = `${parsed.hostname}:${port}`;
    const connect = httpRequest({
      host: proxy.host,
      port: proxy.port,
      method: 'CONNECT',
      path: authority,
      agent: false,
      headers: { host: authority, ...(proxyAuth ? { 'proxy-authorization': proxyAuth } : {}) },
    });
    current = connect;
    connect.on('connect', (res, socket) => {
      if (settled) {
        socket.destroy();
        return;
      }
      if (res.statusCode !== 200) {
        socket.destroy();
        finish(new ProxyRefused(tunnelRefused(res.statusCode ?? 0, proxy).reason));
        return;
      }
      proxyAnswered = true;
      tunnel = socket;
      const servername = parsed.hostname.replace(/^\[|\]$/g, '');
      sendPost(() => {
        const secure = tlsConnect({ ...tls, socket, ...(isIP(servername) ? {} : { servername }) });
        secure.once('secureConnect', () => (secured = true));
        return secure;
      });
    });
    connect.on('error', (e) => finish(viaProxy(e)));
    connect.end();
  });
}

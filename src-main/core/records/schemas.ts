/**
 * Run events as zod schemas: the one definition of what an event may hold, used wherever events come
 * from outside this process (an imported export file) and checked against the event types of events.ts
 * at compile time (a schema whose output is not a valid event does not build). Objects accept fields
 * they do not know (a later version may add some) but every field they know must have its type.
 */
import { z } from 'zod';
import { EVENT_VERSION, RUN_MODES, RUN_STATUSES, TIERS } from './events.ts';
import type { EventPayloads, EventType, RunEvent } from './events.ts';
import type { JsonValue } from '../tools/model.ts';

const obj = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

const n = z.number().int().min(0);
const language = z.enum(['python', 'js', 'ts']);
const tier = z.enum(TIERS);
const retry = obj({ attempt: z.number(), reason: z.string(), waitMs: z.number() });
const violation = obj({
  rule: z.string(),
  message: z.string(),
  line: z.number(),
  column: z.number(),
  endLine: z.number(),
  endColumn: z.number(),
});
const toolResponse = obj({
  success: z.boolean(),
  message: z.string().optional(),
  data: jsonValueSchema.optional(),
});
const egress = obj({
  host: z.string(),
  port: z.number(),
  method: z.string(),
  allowed: z.boolean(),
  bytesOut: z.number(),
  bytesIn: z.number(),
  ms: z.number(),
  status: z.number().optional(),
  error: z.string().optional(),
  open: z.boolean().optional(),
});
const toolCall = obj({
  name: z.string(),
  args: z.record(z.string(), jsonValueSchema),
  result: toolResponse.optional(),
  ms: z.number(),
  error: z.string().optional(),
  location: z.union([z.enum(['sandbox', 'host', 'mcp']), z.templateLiteral(['mcp:', z.string()])]),
  refused: z.boolean().optional(),
  egress: z.array(egress).optional(),
});
const execution = obj({
  success: z.boolean(),
  data: jsonValueSchema.optional(),
  intermediates: z.array(jsonValueSchema),
  logs: z.array(z.string()),
  toolCalls: z.array(toolCall),
  error: obj({
    type: z.string(),
    message: z.string(),
    frames: z.array(
      obj({
        line: z.number(),
        file: z.literal('tools.py').optional(),
        name: z.string(),
        text: z.string().optional(),
      }),
    ),
  }).optional(),
  exitReason: z.enum(['ok', 'error', 'timeout', 'oom', 'output_limit', 'crashed', 'rejected', 'infra']),
  isolation: z.enum(['docker', 'gvisor', 'bubblewrap', 'process', 'none']),
  isolationReason: z.string().optional(),
  durationMs: z.number(),
  runtime: z.string(),
  egress: z.array(egress).optional(),
});

/** One schema per event type: its `data`. */
export const eventPayloadSchemas = {
  run_started: obj({
    task: z.string().min(1),
    sandbox: z.string().min(1),
    kit: z.string().optional(),
    mode: z.enum(RUN_MODES),
    language,
    provider: z.string().optional(),
    model: z.string().optional(),
    providers: z.array(obj({ id: z.string(), model: z.string() })).optional(),
    maxRetries: n,
    maxSteps: n,
    origin: obj({
      runId: z.string(),
      attempt: z.number().optional(),
      kind: z.enum(['replay', 'edit', 'continue', 'test']),
    }).optional(),
  }),
  tier: obj({ n, tier, provider: z.string().optional(), template: z.string().optional() }),
  prompt: obj({
    n,
    kind: z.enum(['first', 'retry', 'step', 'final']),
    system: z.string(),
    user: z.string(),
    sections: z.array(obj({ title: z.string(), text: z.string() })),
    hints: z.array(z.string()),
    correction: z.boolean().optional(),
  }),
  llm_response: obj({
    n,
    text: z.string(),
    promptTokens: z.number().min(0),
    completionTokens: z.number().min(0),
    model: z.string(),
    provider: z.string(),
    latencyMs: z.number().min(0),
    retries: z.array(retry),
    correction: z.boolean().optional(),
  }),
  llm_error: obj({ n, provider: z.string(), message: z.string(), retries: z.array(retry) }),
  llm_retry: obj({
    n,
    provider: z.string(),
    model: z.string().optional(),
    attempt: z.number(),
    reason: z.string(),
    waitMs: z.number(),
  }),
  script: obj({
    n,
    code: z.string(),
    body: z.string(),
    bodyStartLine: z.number().int().min(1),
    language,
    source: tier,
  }),
  validation: obj({ n, valid: z.boolean(), violations: z.array(violation) }),
  tool_call: obj({ n, trace: toolCall }),
  emit: obj({ n, kind: z.enum(['intermediate', 'log']), data: jsonValueSchema }),
  execution: obj({ n, result: execution }),
  step: obj({
    n,
    summary: z.string(),
    data: jsonValueSchema.optional(),
    stagnant: z.boolean(),
    final: z.boolean(),
  }),
  template_miss: obj({
    n,
    reason: z.string(),
    template: z.string().optional(),
    pattern: z.string().optional(),
    position: z.number().optional(),
    expected: z.string().optional(),
    found: z.string().optional(),
  }),
  run_finished: obj({
    status: z.enum(
      RUN_STATUSES.filter((s) => s !== 'running' && s !== 'interrupted') as [
        'succeeded',
        'failed',
        'cancelled',
      ],
    ),
    result: jsonValueSchema.optional(),
    error: z.string().optional(),
  }),
} satisfies { [K in EventType]: z.ZodType<EventPayloads[K]> };

export const EVENT_TYPES = Object.keys(eventPayloadSchemas) as EventType[];

/** The envelope of an event (its `data` is checked by its type's schema). */
export const eventEnvelopeSchema = obj({
  v: z.number().int().min(1).max(EVENT_VERSION),
  runId: z.string().min(1),
  seq: z.number().int().min(0),
  ts: z.number().min(0),
  type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]),
  data: z.unknown(),
});

/** One event, checked whole: its envelope, then its data by its type. */
export const runEventSchema: z.ZodType<RunEvent> = eventEnvelopeSchema.superRefine((e, ctx) => {
  const r = eventPayloadSchemas[e.type].safeParse(e.data);
  if (!r.success) for (const i of r.error.issues) ctx.addIssue({ ...i, path: ['data', ...i.path] });
}) as unknown as z.ZodType<RunEvent>;

/** A run export file (`toolsmith runs export`). */
export const runExportSchema = obj({
  format: z.literal('toolsmith-run'),
  version: z.number().int().min(1).max(EVENT_VERSION),
  exportedAt: z.number().optional(),
  events: z.array(z.unknown()).min(1),
});

/**
 * Checks every event of an export before anything is written: the first is run_started, all carry the
 * same run id, sequence numbers increase, at most one run_finished and it comes last. Returns the events
 * or the first problem in words: the run, the event's index and type, and the field at fault.
 */
export function checkRunExport(doc: unknown): { events: RunEvent[] } | { error: string } {
  const version = (doc as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > EVENT_VERSION)
    return {
      error: `export version ${version} is newer than this Toolsmith supports (${EVENT_VERSION}): upgrade Toolsmith to import it`,
    };
  const head = runExportSchema.safeParse(doc);
  if (!head.success) {
    const i = head.error.issues[0]!;
    return {
      error: `not a toolsmith-run export: ${i.path.join('.') || '(root)'}: ${i.message} (expected {"format": "toolsmith-run", "version": ${EVENT_VERSION}, "events": [...]})`,
    };
  }
  const raw = head.data.events;
  const first = raw[0] as { runId?: unknown } | undefined;
  const run = typeof first?.runId === 'string' ? first.runId : '(unknown run)';
  const events: RunEvent[] = [];
  for (let i = 0; i < raw.length; i++) {
    const r = runEventSchema.safeParse(raw[i]);
    const type = (raw[i] as { type?: unknown } | null)?.type;
    const at = `run ${run}, event ${i}${typeof type === 'string' ? ` (${type})` : ''}`;
    if (!r.success) {
      const issue = r.error.issues[0]!;
      return { error: `${at}: ${issue.path.join('.') || '(event)'}: ${issue.message}` };
    }
    const e = r.data;
    if (i === 0 && e.type !== 'run_started')
      return { error: `${at}: type: the first event must be run_started` };
    if (i > 0 && e.type === 'run_started') return { error: `${at}: type: run_started may only come first` };
    if (e.runId !== run) return { error: `${at}: runId: ${e.runId} is not the run's id ${run}` };
    const prev = events.at(-1);
    if (prev && e.seq <= prev.seq)
      return { error: `${at}: seq: ${e.seq} does not follow ${prev.seq} (events must be in order)` };
    if (prev?.type === 'run_finished') return { error: `${at}: type: an event after run_finished` };
    events.push(e);
  }
  return { events };
}

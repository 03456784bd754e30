/**
 * The messages a sandbox worker sends the host (docs/protocol.md), as one zod discriminated union on
 * `type`, parsed once per line by parseWorkerLine. Every line is untrusted, and the host has always read
 * the fields of a known message leniently (a missing name is '', a missing error is {}, anything but
 * "host" is a sandbox location...): the schemas do exactly that, so a message of a known type always
 * parses, already normalized. A line that is not JSON, not an object, or of an unknown type is ignored.
 * Payloads (`data`, `args`, `result`, `tools`, `frames`) are passed through as they are, never walked.
 */
import { z } from 'zod';
import type { ExecutionError, ToolCallTrace } from '../../core/sandbox/execution.ts';
import type { JsonValue, ToolResponse } from '../../core/tools/model.ts';

export interface ToolDescriptor {
  name: string;
  description: string;
  parameters: unknown[];
  location: string;
  grade?: { w: number; d: number };
  returns?: string;
}

/** Any value, or none (a missing key). */
const any = z.unknown().optional();
/** String(v), with a missing value as ''. */
const text = any.transform((v) => String(v ?? ''));
/** The value itself, with a missing one as `fallback`. */
const or = <T>(fallback: T) => any.transform((v) => (v ?? fallback) as T);
/** A JSON object (arguments), anything else as {}. */
const record = any.transform(
  (v) => (typeof v === 'object' && v !== null ? v : {}) as Record<string, JsonValue>,
);
/** An array, anything else as []. */
const list = <T>() => any.transform((v) => (Array.isArray(v) ? (v as T[]) : []));

const hello = z.object({
  type: z.literal('hello'),
  protocol: any,
  runtime: text,
  version: text,
});

const ready = z.object({
  type: z.literal('ready'),
  runtime: text,
  version: text,
  tools: list<ToolDescriptor>(),
  /** The Python worker: whether it is a child subreaper (only where its jobs have no pid namespace). */
  subreaper: any.transform((v) => (typeof v === 'boolean' ? v : undefined)),
});

const loadError = z.object({
  type: z.literal('load_error'),
  error: or<{ type?: string; message?: string; line?: number }>({}),
});

const pong = z.object({ type: z.literal('pong'), busy: any });

/**
 * The worker's next job's process is made and ready (its walls in place), once the job named `after`
 * (null: before any job) is over and cleaned up. Only a hint for the pool's choice of worker.
 */
const nextReady = z.object({
  type: z.literal('next_ready'),
  after: any.transform((v) => (typeof v === 'string' ? v : null)),
});

/**
 * The worker stops between jobs, after the job named `after` (its `done` came first), and starts no job
 * from now on (the node worker: its last job's sweep failed or its launcher had to be killed). A job the
 * host sent it since never ran: the pool may send it to another worker. `reason` is the worker's words.
 */
const stopping = z.object({
  type: z.literal('stopping'),
  after: any.transform((v) => (typeof v === 'string' ? v : null)),
  reason: any.transform((v) => String(v ?? '').slice(0, 1000)),
});

const emit = z.object({
  type: z.literal('emit'),
  id: any,
  kind: any,
  data: or<JsonValue>(null),
});

/** A skill's name as the worker reports it: an identifier, else nothing (the worker is untrusted). */
const skillName = any.transform((v) =>
  typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(v) ? v : undefined,
);

/** A skill call's number as the worker reports it: a positive integer, else nothing. */
const callNumber = any.transform((v) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined,
);

const trace = z.object({
  type: z.literal('trace'),
  id: any,
  name: text,
  args: or<Record<string, JsonValue>>({}),
  ms: any.transform((v) => Number(v ?? 0)),
  location: any.transform((v): ToolCallTrace['location'] => (v === 'host' ? 'host' : 'sandbox')),
  result: any.transform((v) => v as ToolResponse | undefined),
  error: any.transform((v) => (v !== undefined ? String(v) : undefined)),
  refused: any.transform((v) => Boolean(v)),
  /** The skill whose code made the call (the innermost on the script's stack), when one did. */
  skill: skillName,
  /** That skill's call (the number of its `skill` start line), when the worker knows it. */
  skill_call: callNumber,
});

const toolCall = z.object({
  type: z.literal('tool_call'),
  id: any,
  call_id: text,
  name: text,
  args: record,
  skill: skillName,
  skill_call: callNumber,
  /** The name the script called the tool by (a kit alias), shown when a person is asked. */
  alias: any.transform((v) => (typeof v === 'string' && v.length <= 128 ? v : undefined)),
  /** A sandbox tool asking the host's approval before it runs in the worker (core/tools/approval.ts). */
  gate: any.transform((v) => v === true),
  /** The script line of the call (in the assembled script), when the worker knows it. */
  line: any.transform((v) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined)),
});

/**
 * A skill call's start (its number, name, arguments and the call that made it) or end (its number, how
 * long it ran on the worker's clock, and the exception it ended with). docs/protocol.md, "Skill calls".
 */
const skill = z.object({
  type: z.literal('skill'),
  id: any,
  phase: any.transform((v) => (v === 'start' || v === 'end' ? v : undefined)),
  call: callNumber,
  parent: callNumber,
  name: skillName,
  args: record,
  /** When the call started: ms after the job reached the worker, on the worker's clock. */
  at: any.transform((v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined)),
  ms: any.transform((v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0)),
  error: any.transform((v) => {
    if (typeof v !== 'object' || v === null) return undefined;
    const e = v as { type?: unknown; message?: unknown };
    return { type: String(e.type ?? 'Error'), message: String(e.message ?? '') };
  }),
});

const done = z.object({
  type: z.literal('done'),
  id: any,
  ok: any.transform((v) => v === true),
  reason: any,
  error: any.transform((v): ExecutionError => {
    const e = (v ?? {}) as Partial<ExecutionError>;
    return {
      type: String(e.type ?? 'Error'),
      message: String(e.message ?? ''),
      frames: Array.isArray(e.frames) ? e.frames : [],
    };
  }),
  /** Trace lines of the job past its bound (`max_tool_calls`) that the worker counted and did not relay. */
  traces_over: any.transform((v) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0)),
  /** Skill calls of the job past its bound that the worker counted and did not relay. */
  skills_over: any.transform((v) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0)),
});

export const WorkerMessage = z.discriminatedUnion('type', [
  hello,
  ready,
  loadError,
  pong,
  nextReady,
  stopping,
  emit,
  trace,
  toolCall,
  skill,
  done,
]);
export type WorkerMessage = z.output<typeof WorkerMessage>;

/**
 * The worker's own messages, never about a job: none carries an `id`. A job's line that its worker relays
 * always does (the worker stamps the job's), so one of these with an `id` is a job's forgery that got past
 * its worker's wall (docs/protocol.md, "What a job's process may send"), and is ignored.
 */
const WORKER_OWN: ReadonlySet<unknown> = new Set([
  'hello',
  'ready',
  'load_error',
  'pong',
  'next_ready',
  'stopping',
]);

/** The message a worker's line holds, or undefined for a line to ignore (not JSON, not a known message). */
export function parseWorkerLine(line: string): WorkerMessage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined; // not JSON: ignored, never trusted
  }
  if (
    typeof raw === 'object' &&
    raw !== null &&
    'id' in raw &&
    WORKER_OWN.has((raw as { type?: unknown }).type)
  )
    return undefined;
  const r = WorkerMessage.safeParse(raw);
  return r.success ? r.data : undefined;
}

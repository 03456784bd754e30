/**
 * A run's history: an append-only list of typed, versioned events keyed by run id and sequence number.
 * Records (RunRecord, AttemptRecord, StepRecord) are derived from these events, never stored twice.
 * `n` is the attempt number in PLAN mode and the step number in INTERACTIVE mode.
 */
import type { Violation, ScriptLanguage } from '../lang/violation.ts';
import type { ExecutionResult, ToolCallTrace } from '../sandbox/execution.ts';
import type { JsonValue } from '../tools/model.ts';
import type { LlmRetry } from '../ports/llm.ts';
import type { PromptSection } from '../script/generator.ts';

export const EVENT_VERSION = 1;

/**
 * The longest task a run accepts, in characters, on every way in (CLI, MCP delegate and code, web,
 * desktop IPC, suite cases): a task is an instruction, not a data channel (data belongs in tools).
 */
export const MAX_TASK_CHARS = 20_000;

/** Why a task is refused for its size (undefined when it fits), naming the limit. */
export function taskTooLong(task: string): string | undefined {
  return task.length > MAX_TASK_CHARS
    ? `the task is ${task.length} characters long; the limit is ${MAX_TASK_CHARS} characters: shorten it (data a script needs belongs in a tool, not in the task)`
    : undefined;
}

/** The refusal as a zod message (request schemas), when the length is not known there. */
export const TASK_LIMIT_MESSAGE = `the task is longer than the limit of ${MAX_TASK_CHARS} characters: shorten it (data a script needs belongs in a tool, not in the task)`;

/** The literal lists behind these types, shared with the contract's request schemas. */
export const RUN_MODES = ['plan', 'interactive'] as const;
export const TIERS = ['template', 'rule', 'llm', 'replay', 'edit'] as const;
export const RUN_STATUSES = ['running', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const;
export type RunMode = (typeof RUN_MODES)[number];
export type Tier = (typeof TIERS)[number];
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface RunStartedData {
  task: string;
  sandbox: string;
  kit?: string;
  mode: RunMode;
  language: ScriptLanguage;
  /** The first provider asked and its model (the chain's head; which one answered is per attempt). */
  provider?: string;
  model?: string;
  /** Every provider the run may ask, in order, with its model. */
  providers?: { id: string; model: string }[];
  maxRetries: number;
  maxSteps: number;
  /** The run (and attempt) this one was replayed, edited or continued from, or whose template it tests. */
  origin?: { runId: string; attempt?: number; kind: 'replay' | 'edit' | 'continue' | 'test' };
}

export interface EventPayloads {
  run_started: RunStartedData;
  tier: { n: number; tier: Tier; provider?: string; template?: string };
  prompt: {
    n: number;
    kind: 'first' | 'retry' | 'step' | 'final';
    system: string;
    user: string;
    sections: PromptSection[];
    hints: string[];
    /** The corrective prompt a provider gets after an invalid script (same attempt, same tier). */
    correction?: boolean;
  };
  llm_response: {
    n: number;
    text: string;
    promptTokens: number;
    completionTokens: number;
    model: string;
    provider: string;
    latencyMs: number;
    retries: LlmRetry[];
    /** A provider's corrective retry after an invalid script (same tier). */
    correction?: boolean;
  };
  llm_error: { n: number; provider: string; message: string; retries: LlmRetry[] };
  /** A provider's call failed for a transient cause and is tried again after `waitMs` (told live). */
  llm_retry: { n: number; provider: string; model?: string } & LlmRetry;
  script: {
    n: number;
    code: string;
    body: string;
    bodyStartLine: number;
    language: ScriptLanguage;
    source: Tier;
  };
  validation: { n: number; valid: boolean; violations: Violation[] };
  tool_call: { n: number; trace: ToolCallTrace };
  emit: { n: number; kind: 'intermediate' | 'log'; data: JsonValue };
  execution: { n: number; result: ExecutionResult };
  step: { n: number; summary: string; data?: JsonValue; stagnant: boolean; final: boolean };
  /** Why no template served the task: the nearest template and where the task parts from its pattern. */
  template_miss: {
    n: number;
    reason: string;
    template?: string;
    pattern?: string;
    position?: number;
    expected?: string;
    found?: string;
  };
  run_finished: { status: Exclude<RunStatus, 'running' | 'interrupted'>; result?: JsonValue; error?: string };
}

export type EventType = keyof EventPayloads;

export type RunEvent = {
  [T in EventType]: { v: number; runId: string; seq: number; ts: number; type: T; data: EventPayloads[T] };
}[EventType];

export type EventOf<T extends EventType> = Extract<RunEvent, { type: T }>;

/** Upgrades an event written by an older version to the current shape (none yet: v1 is the first). */
export function upgradeEvent(e: RunEvent): RunEvent {
  return e.v === EVENT_VERSION ? e : { ...e, v: EVENT_VERSION };
}

/** RunRecord / AttemptRecord / StepRecord, derived from a run's events. */
import type { Violation } from '../lang/violation.ts';
import type { ExecutionError, ExecutionResult, ToolCallTrace } from '../sandbox/execution.ts';
import type { JsonValue } from '../tools/model.ts';
import type { EventPayloads, RunEvent, RunStartedData, RunStatus, Tier } from './events.ts';
import { modelAfterTier } from './vocabulary.ts';

export interface AttemptRecord {
  n: number;
  tier?: Tier;
  /**
   * The provider (and model) whose answer is the attempt's script; while no script has come, the
   * provider being asked. Unset for a template, rule or edited script.
   */
  provider?: string;
  model?: string;
  /** The template that served this attempt (tier `template`). */
  template?: string;
  /** The values of the template's slots the task matched with. */
  slots?: Record<string, JsonValue>;
  prompt?: EventPayloads['prompt'];
  llm?: EventPayloads['llm_response'];
  /** Corrective LLM answers within the same tier (after an invalid script). */
  corrections: EventPayloads['llm_response'][];
  llmErrors: EventPayloads['llm_error'][];
  /** Each wait before a provider's retry, recorded as it started (a 429, a 5xx, a stall, a cut stream). */
  retries: EventPayloads['llm_retry'][];
  script?: EventPayloads['script'];
  validation?: { valid: boolean; violations: Violation[] };
  /** Earlier candidates of this attempt that failed validation (a provider's first try, another tier). */
  rejected: { script: EventPayloads['script']; violations: Violation[] }[];
  execution?: ExecutionResult;
  toolCalls: ToolCallTrace[];
  /** A person's answers to the attempt's calls that needed approval (absent when none did). */
  approvals?: EventPayloads['approval'][];
  emits: EventPayloads['emit'][];
  step?: EventPayloads['step'];
  tokens: { prompt: number; completion: number };
  llmLatencyMs: number;
}

/** In INTERACTIVE mode an attempt is a step. */
export type StepRecord = AttemptRecord;

export interface RunRecord {
  id: string;
  started: RunStartedData;
  status: RunStatus;
  startedAt: number;
  endedAt?: number;
  attempts: AttemptRecord[];
  tokens: { prompt: number; completion: number; total: number };
  result?: JsonValue;
  error?: string;
  model?: string;
  tier?: Tier;
  /** The template that served the run's last attempt (tier `template`). */
  template?: string;
  events: number;
  /** Why no template served the run (the templates tier ran and proposed nothing). */
  templateMiss?: EventPayloads['template_miss'];
}

function attempt(rec: RunRecord, n: number): AttemptRecord {
  let a = rec.attempts.find((x) => x.n === n);
  if (!a) {
    a = {
      n,
      corrections: [],
      rejected: [],
      llmErrors: [],
      retries: [],
      toolCalls: [],
      emits: [],
      tokens: { prompt: 0, completion: 0 },
      llmLatencyMs: 0,
    };
    rec.attempts.push(a);
    rec.attempts.sort((x, y) => x.n - y.n);
  }
  return a;
}

/** An attempt's prompt after one more prompt event: its first, or the latest that is not a correction. */
function keptPrompt(
  kept: EventPayloads['prompt'] | undefined,
  next: EventPayloads['prompt'],
): EventPayloads['prompt'] {
  return !kept || !next.correction ? next : kept;
}

/**
 * Attempt `n`'s prompt from the run's prompt events alone (in order), as the whole record would have it:
 * `runs.prompt` reads only those.
 */
export function attemptPrompt(
  prompts: readonly { data: EventPayloads['prompt'] }[],
  n: number,
): EventPayloads['prompt'] | undefined {
  let kept: EventPayloads['prompt'] | undefined;
  for (const { data } of prompts) if (data.n === n) kept = keptPrompt(kept, data);
  return kept;
}

/** A run's record before any event past `run_started` is folded in. */
function startRecord(first: RunEvent): RunRecord {
  if (first.type !== 'run_started') throw new Error('a run starts with a run_started event');
  const rec: RunRecord = {
    id: first.runId,
    started: first.data,
    status: 'running',
    startedAt: first.ts,
    attempts: [],
    tokens: { prompt: 0, completion: 0, total: 0 },
    events: 0,
  };
  if (first.data.model) rec.model = first.data.model;
  return rec;
}

/** Folds one event into `rec` in place (the record's own arrays and attempts are mutated). */
function applyEvent(rec: RunRecord, e: RunEvent): void {
  switch (e.type) {
    case 'run_started':
      break;
    case 'tier': {
      const a = attempt(rec, e.data.n);
      a.tier = e.data.tier;
      if (e.data.provider && !a.script) a.provider = e.data.provider;
      if (e.data.template) a.template = e.data.template;
      if (e.data.slots) a.slots = e.data.slots;
      else delete a.slots;
      rec.tier = e.data.tier;
      if (e.data.tier === 'template' && e.data.template) rec.template = e.data.template;
      else delete rec.template;
      // A run served by a template, a rule or an edited script used no model; an LLM tier after one
      // (the template's script was invalid) brings the configured model back until its answer names one.
      const model = modelAfterTier(e.data.tier, rec.model, () => rec.started.model);
      if (model) rec.model = model;
      else delete rec.model;
      break;
    }
    case 'prompt': {
      const a = attempt(rec, e.data.n);
      a.prompt = keptPrompt(a.prompt, e.data);
      break;
    }
    case 'llm_response': {
      const a = attempt(rec, e.data.n);
      if (e.data.correction || a.llm) a.corrections.push(e.data);
      else a.llm = e.data;
      a.tokens.prompt += e.data.promptTokens;
      a.tokens.completion += e.data.completionTokens;
      a.llmLatencyMs += e.data.latencyMs;
      rec.tokens.prompt += e.data.promptTokens;
      rec.tokens.completion += e.data.completionTokens;
      rec.model = e.data.model;
      break;
    }
    case 'llm_error':
      attempt(rec, e.data.n).llmErrors.push(e.data);
      break;
    case 'llm_retry':
      attempt(rec, e.data.n).retries.push(e.data);
      break;
    case 'script': {
      const a = attempt(rec, e.data.n);
      if (a.script && a.validation && !a.validation.valid)
        a.rejected.push({ script: a.script, violations: a.validation.violations });
      a.script = e.data;
      delete a.validation;
      // The script's producer: the latest answer of this attempt (its first, then its corrections).
      const answer = e.data.source === 'llm' ? (a.corrections[a.corrections.length - 1] ?? a.llm) : undefined;
      if (answer) {
        a.provider = answer.provider;
        a.model = answer.model;
      } else {
        delete a.provider;
        delete a.model;
      }
      break;
    }
    case 'validation':
      attempt(rec, e.data.n).validation = { valid: e.data.valid, violations: e.data.violations };
      break;
    case 'tool_call':
      attempt(rec, e.data.n).toolCalls.push(e.data.trace);
      break;
    case 'emit':
      attempt(rec, e.data.n).emits.push(e.data);
      break;
    case 'approval': {
      const a = attempt(rec, e.data.n);
      (a.approvals ??= []).push(e.data);
      break;
    }
    case 'execution': {
      const a = attempt(rec, e.data.n);
      a.execution = e.data.result;
      // The execution result carries the full trace; live tool_call events were a preview.
      a.toolCalls = e.data.result.toolCalls;
      break;
    }
    case 'step':
      attempt(rec, e.data.n).step = e.data;
      break;
    case 'template_miss':
      rec.templateMiss = e.data;
      break;
    case 'run_finished':
      rec.status = e.data.status;
      rec.endedAt = e.ts;
      if (e.data.result !== undefined) rec.result = e.data.result;
      if (e.data.error !== undefined) rec.error = e.data.error;
      break;
  }
  rec.events++;
  rec.tokens.total = rec.tokens.prompt + rec.tokens.completion;
}

/** Folds events (in sequence order) into a RunRecord. `live` says whether a process still owns the run. */
export function deriveRun(events: readonly RunEvent[], live = false): RunRecord {
  const first = events[0];
  if (!first) throw new Error('a run starts with a run_started event');
  const rec = startRecord(first);
  for (const e of events) applyEvent(rec, e);
  if (rec.status === 'running' && !live) rec.status = 'interrupted';
  return rec;
}

/**
 * Folds one more event into a run's record without touching the given record: a new record that shares
 * every attempt but the one the event changes (a live view folds pushed events one by one). Folding a
 * run's events one by one from `run_started` gives what `deriveRun(events, true)` gives.
 * A record that is not a run's yet (`undefined`) takes the `run_started` event.
 */
export function foldEvent(rec: RunRecord | undefined, e: RunEvent): RunRecord {
  if (!rec) {
    const fresh = startRecord(e);
    applyEvent(fresh, e);
    return fresh;
  }
  const n = 'n' in e.data && typeof e.data.n === 'number' ? e.data.n : undefined;
  const next: RunRecord = { ...rec, tokens: { ...rec.tokens }, attempts: rec.attempts.slice() };
  if (n !== undefined) {
    const i = next.attempts.findIndex((a) => a.n === n);
    const a = next.attempts[i];
    if (a)
      next.attempts[i] = {
        ...a,
        corrections: a.corrections.slice(),
        rejected: a.rejected.slice(),
        llmErrors: a.llmErrors.slice(),
        retries: a.retries.slice(),
        toolCalls: a.toolCalls.slice(),
        emits: a.emits.slice(),
        ...(a.approvals ? { approvals: a.approvals.slice() } : {}),
        tokens: { ...a.tokens },
      };
  }
  applyEvent(next, e);
  return next;
}

/** The last runtime error of a run, with its frames (what a person opens first on a failed run). */
export function lastTraceback(rec: RunRecord): (ExecutionError & { attempt: number }) | undefined {
  for (let i = rec.attempts.length - 1; i >= 0; i--) {
    const a = rec.attempts[i] as AttemptRecord;
    if (a.execution?.error) return { ...a.execution.error, attempt: a.n };
  }
  return undefined;
}

/** Wall time of a run (to now when it is still running). */
export const runDuration = (rec: RunRecord, now: number): number => (rec.endedAt ?? now) - rec.startedAt;

/**
 * The providers a run's answers came from, as it ran: the one that wrote attempt `from` first, then
 * every other that answered, in order, each with the model it answered with. Empty when no provider
 * answered (a template, a rule, an edited script); then the run's configured chain is all there is.
 */
export function providerChain(rec: RunRecord, from?: number): { id: string; model: string }[] {
  const out: { id: string; model: string }[] = [];
  const add = (id: string | undefined, model: string | undefined) => {
    if (!id || !model || id === 'replay' || out.some((p) => p.id === id && p.model === model)) return;
    out.push({ id, model });
  };
  const start = rec.attempts.find((a) => a.n === from);
  add(start?.provider, start?.model);
  for (const a of rec.attempts)
    for (const r of [...(a.llm ? [a.llm] : []), ...a.corrections]) add(r.provider, r.model);
  return out;
}

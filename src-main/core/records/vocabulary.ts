/**
 * The words of a run's record: the event version, the task limit and the literal lists behind the run's
 * mode, tier, status and kind. Shared by the event types (events.ts), their schemas (schemas.ts) and the
 * contract's request schemas; imports nothing, so neither of those needs the other to name them.
 */

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

/**
 * The longest script the MCP tools take (`code`, `execute_code`, `validate`), in characters: the most
 * a sandbox worker reads as one job message (1 MB, infra/sandbox/connection.ts MAX_HOST_LINE; a
 * character is at least a byte there), so a longer one could never run. Refused at once: validating a
 * 7 MB script took 20 s and held up the server's other answers, then the worker refused it all the same.
 */
export const MAX_SCRIPT_CHARS = 1024 * 1024;

/** The refusal as a zod message (the MCP tools' input schemas). */
export const SCRIPT_LIMIT_MESSAGE = `the script is longer than the ${MAX_SCRIPT_CHARS} characters (1 MB) a sandbox worker reads, so it could never run: a script this large holds data, which belongs in a tool or a file the tools read`;

/**
 * A run's budgets and their bounds, the same on every way in (CLI `--max-retries`/`--max-steps`, MCP
 * `delegate`'s `max_retries`/`max_steps`, the workbench, suite defaults): PLAN retries after the first
 * attempt, INTERACTIVE steps. The defaults (when a request names none) are the orchestrator's.
 */
export const RUN_BUDGETS = {
  maxRetries: { min: 0, max: 20, default: 3 },
  maxSteps: { min: 1, max: 50, default: 8 },
} as const;

/** Why a whole-number argument is refused: its name, the range it must be in and what was given. */
export const integerRangeMessage = (name: string, min: number, max: number, got: unknown): string =>
  `${name} must be an integer from ${min} to ${max}, got ${got === undefined ? 'nothing' : JSON.stringify(got)}`;

/** The literal lists behind these types, shared with the contract's request schemas. */
export const RUN_MODES = ['plan', 'interactive'] as const;
export const TIERS = ['template', 'rule', 'llm', 'replay', 'edit'] as const;
export const RUN_STATUSES = ['running', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const;
export type RunMode = (typeof RUN_MODES)[number];
export type Tier = (typeof TIERS)[number];
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What a run's `n` counts, in words: a PLAN run's attempts, an INTERACTIVE run's steps. */
export const unitOf = (mode: RunMode): 'attempt' | 'step' => (mode === 'interactive' ? 'step' : 'attempt');

/** Tiers that use no model: a run served by one shows neither model nor provider. */
export const NO_MODEL_TIERS: readonly Tier[] = ['template', 'rule', 'edit'];

/**
 * The run's model once a tier starts, the one rule of the run's record (records.ts) and its summary row
 * (summary.ts): none while a template, rule or edited script serves; an LLM tier keeps the model of the
 * last answer, or (after a tier that used none) brings back the model the run started with.
 */
export function modelAfterTier(
  tier: Tier,
  model: string | undefined,
  startedModel: () => string | undefined,
): string | undefined {
  return NO_MODEL_TIERS.includes(tier) ? undefined : (model ?? startedModel());
}

/**
 * What a run is for: `run`, a task or script someone ran; `template_test`, a template run against its
 * saved examples (the Templates view's test, `toolsmith template test`). The run list hides template
 * tests unless asked (they are checks of a template, not work). Runs recorded before kinds are `run`.
 */
export const RUN_KINDS = ['run', 'template_test', 'skill_test'] as const;
export type RunKind = (typeof RUN_KINDS)[number];
/** The kinds the run list shows when no kind is asked for. */
export const DEFAULT_RUN_KINDS: readonly RunKind[] = ['run'];

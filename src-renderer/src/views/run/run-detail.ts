/**
 * The single-run view's state as data (pure, tested in node): the live event fold, which attempt is
 * selected and how selection follows a live run, stepping through the history, and what the run's and
 * an attempt's actions allow. `store/run.ts` keeps the state and calls these; `useRunDetail.ts` binds
 * them to React; `RunDetailParts.tsx` draws them.
 */
import type { AttemptView, RunEventView, RunRecordView } from '../../../../src-main/contract/api.ts';
import type { RunEvent } from '../../../../src-main/core/records/events.ts';
import { foldEvent } from '../../../../src-main/core/records/records.ts';
import type { RunRecord } from '../../../../src-main/core/records/records.ts';

/**
 * Folds one pushed event into the open run's record. A prompt event carries its prompt's head, as the
 * attempts of `runs.get` do; the fold only stores a prompt, whatever its shape.
 */
export const foldView = (run: RunRecordView, e: RunEventView): RunRecordView =>
  foldEvent(run as unknown as RunRecord, e as unknown as RunEvent);

/** What folding a batch of pushed events gives: the new record, and the events kept for after a catch-up. */
export interface Folded {
  run: RunRecordView;
  /** Events after a gap (in sequence order), kept to fold once the missing ones have been fetched. */
  held: RunEventView[];
  /** Whether a gap was found: the missing events must be fetched (`runs.events` after the last). */
  gap: boolean;
}

/**
 * Folds the queued events of the open run into its record, in sequence order. The record holds
 * `run.events` events (sequence numbers 0..events-1): older events are already in it and are dropped,
 * as are other runs' events; a later one than the next expected means events were missed: it and the
 * ones after it are held, and `gap` asks for a catch-up.
 */
export function foldQueued(run: RunRecordView, queued: readonly RunEventView[]): Folded {
  const events = [...queued].sort((a, b) => a.seq - b.seq);
  let next = run;
  for (const [i, e] of events.entries()) {
    if (e.runId !== next.id || e.seq < next.events) continue;
    if (e.seq > next.events) return { run: next, held: events.slice(i), gap: true };
    next = foldView(next, e);
  }
  return { run: next, held: [], gap: false };
}

/**
 * Folds the events a catch-up fetched (`runs.events` after the record's last): each one in sequence,
 * none twice. A run no process owns any more (`live` false) that never finished was interrupted.
 */
export function foldCaughtUp(
  run: RunRecordView,
  events: readonly RunEventView[],
  live: boolean,
): RunRecordView {
  let next = run;
  for (const e of events) if (e.runId === next.id && e.seq === next.events) next = foldView(next, e);
  if (!live && next.status === 'running') next = { ...next, status: 'interrupted' };
  return next;
}

const lastN = (run: RunRecordView | undefined): number | undefined =>
  run?.attempts[run.attempts.length - 1]?.n;

/**
 * The attempt selected after the record changed from `prev` to `run`: a live run is followed (when
 * nothing or the last attempt was selected, the newest is selected); any other selection stays.
 */
export function followSelection(
  prev: RunRecordView | undefined,
  run: RunRecordView,
  selected: number | undefined,
): number | undefined {
  const last = lastN(run);
  const following = selected === undefined || selected === lastN(prev);
  return following && last !== undefined ? last : selected;
}

/** The attempt the view shows: the selected one, else the last. */
export function selectedAttempt(
  run: RunRecordView | undefined,
  n: number | undefined,
): AttemptView | undefined {
  return run?.attempts.find((a) => a.n === n) ?? run?.attempts[run.attempts.length - 1];
}

/** The attempt one step before or after the selected one in the history, clamped to its ends. */
export function stepSelection(
  run: RunRecordView | undefined,
  n: number | undefined,
  delta: 1 | -1,
): number | undefined {
  if (!run || run.attempts.length === 0) return undefined;
  const i = run.attempts.findIndex((a) => a.n === n);
  const at = Math.min(run.attempts.length - 1, Math.max(0, (i < 0 ? 0 : i) + delta));
  return run.attempts[at]?.n;
}

/**
 * The edited scripts of a page session, per run and attempt: an edit outlives selecting another attempt
 * (a click, j/k, a live run moving on to its next attempt) and leaving the run, as a tools.py draft
 * does; Reset, or an edit back to the recorded text, drops it.
 */
export interface AttemptDrafts {
  get(runId: string, n: number): string | undefined;
  /** Keeps `text` as the draft, or drops it when it is the recorded script again. */
  set(runId: string, n: number, text: string, original: string): void;
  drop(runId: string, n: number): void;
  /** How many drafts are kept. */
  size(): number;
}

export function attemptDrafts(drafts: Map<string, string> = new Map()): AttemptDrafts {
  const key = (runId: string, n: number) => `${runId}#${n}`;
  return {
    get: (runId, n) => drafts.get(key(runId, n)),
    set: (runId, n, text, original) => {
      if (text === original) drafts.delete(key(runId, n));
      else drafts.set(key(runId, n), text);
    },
    drop: (runId, n) => void drafts.delete(key(runId, n)),
    size: () => drafts.size,
  };
}

/** Where the run came from, as its link reads: "replay of 1a2b3c4d #2". */
export function originLabel(origin: NonNullable<RunRecordView['started']['origin']>): string {
  return `${origin.kind} of ${origin.runId.slice(0, 8)}${origin.attempt ? ` #${origin.attempt}` : ''}`;
}

/** What the run's head allows. */
export interface RunActions {
  cancel: boolean;
  /** Replay needs recorded LLM outputs and a run that ended. */
  replay: boolean;
  /**
   * Why Replay is off for a run that ended, said beside it: the run has no LLM output to replay (a
   * template served it, or its script was run directly). Undefined when Replay is on, while the run runs
   * (Cancel is there) and while an action waits for its answer.
   */
  replayWhy?: string;
  delete: boolean;
}

/**
 * `sending` names a run action the service has not answered yet (store/run.ts): none other is allowed
 * until it has (a double click made two replays).
 */
export function runActions(
  run: Pick<RunRecordView, 'status' | 'attempts'> & Partial<Pick<RunRecordView, 'template' | 'tier'>>,
  sending?: string,
): RunActions {
  const running = run.status === 'running';
  const idle = sending === undefined;
  const recorded = run.attempts.some((a) => a.llm);
  // (The button was only greyed out: a template-served or directly run script's run said nothing of why.)
  const replayWhy =
    running || !idle || recorded
      ? undefined
      : run.template
        ? `Nothing to replay: the template ${run.template} served this run, no LLM output was recorded.`
        : run.tier === 'edit'
          ? 'Nothing to replay: this script was run directly, no LLM output was recorded; Run script runs it again.'
          : 'Nothing to replay: no attempt of this run recorded an LLM output.';
  return {
    cancel: running && idle,
    replay: !running && idle && recorded,
    ...(replayWhy ? { replayWhy } : {}),
    delete: !running && idle,
  };
}

/**
 * A Send trace the collector did not take ("the OTLP endpoint ... did not take the trace: connection
 * refused") with what to do about it: the message named the address and the failure, not the way out.
 * Other messages, and a proxy's failure (the message names the proxy), are returned as they are.
 */
export function withTraceFix(message: string): string {
  if (!message.includes('did not take the trace')) return message;
  // A proxy that failed ("cannot connect to the proxy http://... (from $http_proxy): connection refused")
  // is named by the message: the collector was never reached, and "no collector answers there" was wrong.
  // (named as `the proxy URL (from $VARIABLE)`: a collector whose own address says proxy is no proxy)
  if (/\bthe proxy \S+ \(from \$/.test(message)) return message;
  if (/HTTP 40[13]\b/.test(message))
    return `${message}. The collector asks for credentials: set [telemetry] headers (or OTEL_EXPORTER_OTLP_HEADERS), or put them in the endpoint's URL (https://user:token@host).`;
  if (/refused|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo|timed out|timeout|unreachable/i.test(message))
    return `${message}. No collector answers there: start one (an OpenTelemetry collector or Jaeger, OTLP/HTTP on port 4318), or set its address in Settings, Run traces (Collector endpoint).`;
  return `${message}. The collector's address is set in Settings, Run traces (Collector endpoint).`;
}

/**
 * What to do about an execution that hit a limit the error names without a way out: "the script ran
 * past its 3 s time limit", "the sandbox ran out of memory" (an output limit's error says its own).
 * Shown under the error; undefined for any other end.
 */
export function executionFix(exitReason: string | undefined): string | undefined {
  if (exitReason === 'timeout')
    return 'To give it more time: raise "Timeout (s)" in New run (up to 600 s), or [limits] timeout_s in .toolsmith/config.toml for every run; or have the script do less (fewer tool calls, no waiting, no loop without an end).';
  if (exitReason === 'oom')
    return 'To give it more memory: raise [limits] memory_mb in .toolsmith/config.toml; or have the script hold less (the fields it needs from each tool response, not whole lists).';
  return undefined;
}

/** What the run's outcome panel says: its result, its error, an interruption, or nothing yet. */
export type RunOutcome =
  | { kind: 'result'; value: unknown }
  | { kind: 'error'; label: 'Error' | 'Interrupted'; message: string }
  | { kind: 'interrupted' }
  | { kind: 'none' };

export function runOutcome(run: Pick<RunRecordView, 'status' | 'error' | 'result'>): RunOutcome {
  if (run.status === 'succeeded') return { kind: 'result', value: run.result };
  if (run.error)
    return {
      kind: 'error',
      label: run.status === 'interrupted' ? 'Interrupted' : 'Error',
      message: run.error,
    };
  if (run.status === 'interrupted') return { kind: 'interrupted' };
  return { kind: 'none' };
}

/**
 * What an attempt's script toolbar shows and allows, given the edited text, any streamed tokens and the
 * run action being sent (none can start until it is answered).
 */
export interface AttemptState {
  unit: 'attempt' | 'step';
  /** The LLM is still writing this attempt's script (no script yet, tokens arriving). */
  streaming: boolean;
  /** The editor's text differs from the recorded script. */
  dirty: boolean;
  /** The editor's caption: "script (python, from llm) · edited". */
  caption: string;
  canRun: boolean;
  /** Continue from here: PLAN runs only, and not while the run is running. */
  canContinue: boolean | undefined;
  /** Promote to template: only a script that succeeded. */
  canPromote: boolean;
  /** Why Promote to template is disabled, said beside it (a tooltip alone is missed, and never read by touch or keyboard). */
  promoteWhy: string | undefined;
  /** Make a skill from lines of the script: a script that succeeded (a skill in its language). */
  canMakeSkill: boolean;
  /**
   * Why Make a skill waits, said in its place: the script is edited, and a skill is made of lines of the
   * recorded script (lines chosen in the edited text named other lines of it).
   */
  makeSkillWhy: string | undefined;
  /** The text the editor shows. */
  text: string;
}

export function attemptState(
  run: Pick<RunRecordView, 'status' | 'started'> & Partial<Pick<RunRecordView, 'template'>>,
  a: Pick<AttemptView, 'script' | 'execution'>,
  edited: string,
  live: string | undefined,
  sending?: string,
): AttemptState {
  const original = a.script?.body ?? '';
  // Tokens left over from a stream that ended without a script (the run was cancelled, the LLM call
  // failed) are not "streaming" any more: the attempt reads as the recorded one does after a reload.
  const streaming = !a.script && !!live && run.status === 'running';
  const dirty = edited !== original && edited.trim() !== '';
  const has = edited.trim() !== '';
  const head = streaming
    ? 'Streaming from the LLM…'
    : a.script
      ? `script (${a.script.language}, from ${a.script.source})`
      : 'no script';
  const unit = run.started.mode === 'interactive' ? 'step' : 'attempt';
  return {
    unit,
    streaming,
    dirty,
    caption: head + (dirty ? ' · edited' : ''),
    canRun: has && !streaming && sending === undefined,
    canContinue:
      run.started.mode === 'plan'
        ? has && !streaming && run.status !== 'running' && sending === undefined
        : undefined,
    // A run a template served is that template's script already: promoting it made a second template
    // of the same pattern and body.
    canPromote: !!a.execution?.success && a.script?.source !== 'template',
    promoteWhy:
      a.script?.source === 'template'
        ? `Already a template: ${run.template ? `the template ${run.template}` : 'a template'} served this ${unit}; change it in Templates.`
        : a.execution?.success
          ? undefined
          : `Not a template: ${
              a.execution
                ? `this ${unit}'s script failed`
                : a.script
                  ? `this ${unit}'s script has not run${run.status === 'running' ? ' yet' : ''}`
                  : `this ${unit} has no script`
            }; only a script that succeeded can be promoted.`,
    canMakeSkill: !!a.execution?.success && !!a.script,
    makeSkillWhy:
      a.execution?.success && a.script && dirty
        ? `A skill is made of lines of the recorded script: Reset the edits to choose them.`
        : undefined,
    text: streaming ? (live ?? '') : edited,
  };
}

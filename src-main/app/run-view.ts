/**
 * Runs as front ends receive them: prompts are large (the tools manual in every attempt), so records,
 * pushed events and `runs.events` carry a prompt's head; `runs.prompt` fetches one prompt whole.
 */
import type { EventPayloads, RunEvent } from '../core/records/events.ts';
import type { PromptHead, Response, RunEventView } from '../contract/api.ts';
import type { RunRecord } from '../core/records/records.ts';
import type { SuiteStore } from '../infra/store/suite-store.ts';

/** An attempt's prompt without its text: what a timeline needs. */
export function promptHead(p: EventPayloads['prompt'] | PromptHead): PromptHead {
  if (!('sections' in p)) return p;
  const { n, kind, hints, correction, sections, user } = p;
  return {
    n,
    kind,
    hints,
    ...(correction === undefined ? {} : { correction }),
    titles: sections.map((x) => x.title),
    chars: user.length,
  };
}

/** A retry in words for every front end's progress: why, and how long the wait before it is. */
export const retryLine = (r: { reason: string; waitMs: number }): string =>
  `${r.reason}; retrying in ${r.waitMs >= 1000 ? `${Math.round(r.waitMs / 100) / 10} s` : `${r.waitMs} ms`}`;

/** A run event as pushed: a prompt event carries its prompt's head. */
export const eventView = (e: RunEvent): RunEventView =>
  e.type === 'prompt' ? { ...e, data: promptHead(e.data) } : e;

/**
 * A run as the detail view loads it: prompts as heads unless asked for whole, and a case of a suite run
 * linked back to its suite run.
 */
export function runDetail(
  runs: {
    get(runId: string): RunRecord;
    store: { summary(runId: string): { suiteRun: string | null } | undefined };
    streamedText?(runId: string): { n: number; text: string } | undefined;
  },
  suiteRuns: SuiteStore,
  runId: string,
  prompts: boolean | undefined,
): Response<'runs.get'> {
  const rec = runs.get(runId);
  const suiteRun = runs.store.summary(rec.id)?.suiteRun;
  const row = suiteRun ? suiteRuns.get(suiteRun) : undefined;
  const suite = row ? { suite: { id: row.id, name: row.suite } } : {};
  const text = runs.streamedText?.(rec.id);
  const streaming = text ? { streaming: text } : {};
  if (prompts) return { ...rec, ...suite, ...streaming };
  return {
    ...rec,
    ...suite,
    ...streaming,
    attempts: rec.attempts.map((a) => (a.prompt ? { ...a, prompt: promptHead(a.prompt) } : a)),
  };
}

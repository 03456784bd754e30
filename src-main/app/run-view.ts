/**
 * Runs as front ends receive them: prompts are large (the tools manual in every attempt), so records,
 * pushed events and `runs.events` carry a prompt's head; `runs.prompt` fetches one prompt whole.
 */
import type { EventPayloads, RunEvent } from '../core/records/events.ts';
import type { PromptHead, RunEventView } from '../contract/api.ts';

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

/** A run event as pushed: a prompt event carries its prompt's head. */
export const eventView = (e: RunEvent): RunEventView =>
  e.type === 'prompt' ? { ...e, data: promptHead(e.data) } : e;

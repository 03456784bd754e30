/**
 * A run's history: an append-only list of typed, versioned events keyed by run id and sequence number.
 * Records (RunRecord, AttemptRecord, StepRecord) are derived from these events, never stored twice.
 * `n` is the attempt number in PLAN mode and the step number in INTERACTIVE mode.
 */
import type { EventPayloads, EventType, RunEvent, runStartedSchema } from './schemas.ts';
import type { z } from 'zod';
import { EVENT_VERSION } from './vocabulary.ts';

export * from './vocabulary.ts';
export type { EventPayloads, EventType, RunEvent };

// The types below are the schemas' outputs (schemas.ts): one definition of what an event holds. Type
// imports only, so this module (and the renderer that imports it) loads no zod at run time.
export type RunStartedData = z.output<typeof runStartedSchema>;

export type EventOf<T extends EventType> = Extract<RunEvent, { type: T }>;

/** Upgrades an event written by an older version to the current shape (none yet: v1 is the first). */
export function upgradeEvent(e: RunEvent): RunEvent {
  return e.v === EVENT_VERSION ? e : { ...e, v: EVENT_VERSION };
}

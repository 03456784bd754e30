/**
 * Bytes a front end receives while it follows a live run (bench:ui's `live_run_bytes_200`), computed
 * from the run's recorded events exactly as the service serializes them (web transport: one JSON text
 * per pushed event, `{ok, value}` per API answer). Streamed tokens are left out: the same either way.
 * - before: each pushed event (prompts whole) made the view re-fetch the whole run (`runs.get`, prompts as
 *   heads), the record as it stood after that event. The old renderer coalesced pushes that came within
 *   120 ms, so it fetched between once per attempt (lower bound: attempts are an LLM call apart) and
 *   once per event (upper bound); both are printed;
 * - after: one `runs.get` when the view opens (at the run's start) and the pushed events, prompts as heads,
 *   folded in the page (no `runs.events` needed while the connection holds).
 */
import { eventView, promptHead } from '../src-main/app/run-view.ts';
import type { RunEvent } from '../src-main/core/records/events.ts';
import { foldEvent } from '../src-main/core/records/records.ts';
import type { RunRecord } from '../src-main/core/records/records.ts';

const view = (rec: RunRecord) => ({
  ...rec,
  attempts: rec.attempts.map((a) => (a.prompt ? { ...a, prompt: promptHead(a.prompt) } : a)),
});
const answer = (value: unknown) => Buffer.byteLength(JSON.stringify({ ok: true, value }));
const push = (e: unknown) => Buffer.byteLength(JSON.stringify({ type: 'run_event', event: e }));

export function liveRunBytes(events: readonly RunEvent[]) {
  let rec: RunRecord | undefined;
  let refetch = 0;
  let pushedFull = 0;
  let pushedHeads = 0;
  let perAttempt = 0;
  let openBytes = 0;
  for (const [i, e] of events.entries()) {
    rec = foldEvent(rec, e);
    if (i === 0) openBytes = answer(view(rec));
    pushedFull += push(e);
    pushedHeads += push(eventView(e));
    const size = answer(view(rec));
    refetch += size;
    // The last event of an attempt (the next one starts another attempt, or the run ends).
    const n = (e.data as { n?: number }).n;
    const next = events[i + 1];
    if (n !== undefined && (!next || (next.data as { n?: number }).n !== n)) perAttempt += size;
  }
  const mb = (b: number) => Number((b / 1024 / 1024).toFixed(2));
  const after = openBytes + pushedHeads;
  return {
    events: events.length,
    attempts: rec?.attempts.length ?? 0,
    before_mb: {
      refetch_per_attempt: mb(pushedFull + perAttempt),
      refetch_per_event: mb(pushedFull + refetch),
    },
    before_breakdown_mb: {
      pushed_events_prompts_whole: mb(pushedFull),
      runs_get_once_per_attempt: mb(perAttempt),
      runs_get_once_per_event: mb(refetch),
    },
    after_mb: mb(after),
    after_breakdown_mb: { runs_get_at_open: mb(openBytes), pushed_events_prompt_heads: mb(pushedHeads) },
    ratio_at_least: Number(((pushedFull + perAttempt) / after).toFixed(1)),
    note: 'tokens excluded; before = the old view re-fetching runs.get on pushes (coalesced within 120 ms: between once per attempt and once per event), after = open once + fold pushed events',
  };
}

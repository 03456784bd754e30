/** What the ParallelValidator (parallel.ts) and its threads (thread.ts) share. */
import type { PythonChunk } from '../../core/lang/python/split.ts';
import type { PythonPart } from '../../core/lang/python/validate.ts';
import type { ValidateOptions } from '../../core/lang/violation.ts';

/**
 * Int32 slots of the validator's shared memory. NEXT holds the current job's generation (16 bits) and the
 * index of the next piece to take (16 bits): whoever takes a piece (the caller or a thread) swaps it to
 * index + 1 with a compare-and-swap that fails once a newer job has begun, so no one works on a piece of
 * an old job. SIGNAL is bumped by a thread after each answer it posts (the caller waits on it). Slot
 * READY + i is 1 once thread i has loaded and warmed up the validator.
 */
export const NEXT = 0;
export const SIGNAL = 1;
export const READY = 2;

/** Takes the next piece of job `generation` (of `count`), or returns -1 when none is left or the job is over. */
export function takePiece(state: Int32Array, generation: number, count: number): number {
  for (;;) {
    const v = Atomics.load(state, NEXT);
    if (v >>> 16 !== generation) return -1;
    const index = v & 0xffff;
    if (index >= count) return -1;
    if (Atomics.compareExchange(state, NEXT, v, v + 1) === v) return index;
  }
}

export interface JobRequest {
  id: number;
  /** `id` as stored in NEXT (16 bits). */
  generation: number;
  pieces: PythonChunk[];
  options: ValidateOptions;
}

export type PieceReply =
  { id: number; index: number; part: PythonPart } | { id: number; index: number; error: string };

/** A few hundred lines of typical script code, validated by each new thread before it takes jobs. */
export function warmUpScript(): string {
  const unit = `def summarize_{i}(user_id, limit=10):
    r = get_orders()
    if not r.success:
        return {"error": r.message}
    rows = [o for o in r.data if o["user_id"] == user_id and o.get("total", 0) > {i}]
    rows = sorted(rows, key=lambda o: o["total"], reverse=True)[:limit]
    text = f"{len(rows)} orders, {sum(o['total'] for o in rows):.2f} in all"
    try:
        best = max(rows, key=lambda o: o["total"]) if rows else None
    except (KeyError, TypeError) as e:
        best = str(e)
    return {"rows": rows, "text": text, "best": best, "tags": {t: 1 for t in ("a", "b")}}
`;
  let out = '';
  for (let i = 0; i < 30; i++) out += unit.replaceAll('{i}', String(i));
  return out + 'emit_result(summarize_0("u1"))\n';
}

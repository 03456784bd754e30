/**
 * Time as a record needs it: epoch milliseconds that never go back, and whether the process was
 * suspended.
 *
 * - `steadyNow()`: the wall clock, except that it never steps back (a clock set back by hand or by a
 *   time sync: a run's events keep their order and its duration is never negative). It follows the
 *   wall clock forward (a machine that slept: the time asleep is counted), and after a step back it
 *   goes on from where it was, at the pace of the monotonic clock.
 * - `suspendedWithin(from, to)`: how long, within that span of `steadyNow()` time, the process was not
 *   running (SIGSTOP, a laptop asleep, a VM paused), from a heartbeat that sees its own timer fire far
 *   too late while the process used no CPU time meanwhile (a busy event loop uses CPU: it is not a
 *   suspension). A deadline that passed while the process was not running says so instead of blaming
 *   the slow side.
 */
let offset = Date.now() - performance.now();
let last = 0;

export function steadyNow(): number {
  const mono = performance.now();
  const wall = Date.now();
  // Forward jumps of the wall clock (sleep, a sync forward) are followed; steps back are not.
  if (wall > offset + mono) offset = wall - mono;
  const t = Math.round(offset + mono);
  last = Math.max(last, t);
  return last;
}

/** The heartbeat's period, and how late a beat must be (with no CPU used) to count as a suspension. */
const BEAT_MS = 500;
const LATE_MS = 2_000;

const spans: { from: number; to: number }[] = [];
let beat: ReturnType<typeof setInterval> | undefined;
let at = 0;
let cpu: NodeJS.CpuUsage | undefined;

/**
 * One beat: a gap since the last beat far longer than the period, with (almost) no CPU time used
 * meanwhile, is recorded as a suspension. Called by the heartbeat and by a deadline about to fire (its
 * timer may run before the heartbeat's after a resume).
 */
export function beatNow(): void {
  if (!cpu) return;
  const now = performance.now();
  const used = process.cpuUsage(cpu);
  const late = now - at - BEAT_MS;
  if (late > LATE_MS && (used.user + used.system) / 1000 < late / 4) {
    const to = steadyNow();
    spans.push({ from: to - Math.round(late), to });
    if (spans.length > 64) spans.shift();
  }
  at = now;
  cpu = process.cpuUsage();
}

/** Starts the heartbeat (idempotent; unref'd: it never keeps the process alive). */
export function watchSuspension(): void {
  if (beat) return;
  at = performance.now();
  cpu = process.cpuUsage();
  beat = setInterval(beatNow, BEAT_MS);
  beat.unref();
}

/** Milliseconds of `[from, to]` (steadyNow time) during which the process was suspended. */
export function suspendedWithin(from: number, to: number): number {
  let ms = 0;
  for (const s of spans) ms += Math.max(0, Math.min(to, s.to) - Math.max(from, s.from));
  return ms;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * A synchronous pause a test asks for through the environment variable `variable`, in milliseconds
 * (nothing when it is unset or not a positive number), so that a test's other process meets a window
 * every time: TOOLSMITH_LOCK_TAKEOVER_PAUSE_MS and TOOLSMITH_LOCK_CLAIM_PAUSE_MS (a skills lock's
 * takeover, infra/workspace/file-lock.ts), TOOLSMITH_RECOVER_PAUSE_MS (`runs recover`'s renames,
 * infra/store/recover.ts).
 */
export function testPause(variable: string): void {
  const ms = Number(process.env[variable] ?? 0);
  if (ms > 0) Atomics.wait(pause, 0, 0, ms);
}

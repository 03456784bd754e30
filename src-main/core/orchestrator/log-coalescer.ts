/**
 * A job's log lines as run events: consecutive lines are coalesced into one `emit` event of kind `log`
 * (the lines joined by "\n", `lines` saying how many), so that a script printing 20,000 short lines adds
 * a few dozen events to its run, not 20,000 (each was a row in the run store, a push to every window and
 * a progress notification over MCP). No byte is dropped: the events together hold every line the host
 * received, in order (the job's output limit, `limits.output_kb`, bounds them in all).
 *
 * A chunk is written as an event when:
 * - it reaches `maxChars` characters (a size flush);
 * - any other event of the job is about to be recorded (a tool call, an intermediate, an approval, the
 *   execution): `flush()` first, so the events keep the order the script wrote them in;
 * - `waitMs` after its first line (a timed flush), so a live view sees a slow script's lines as they come.
 *   After `maxTimed` timed flushes the wait doubles with each further one, up to `maxWaitMs`: a script
 *   printing a line every `waitMs` for its whole timeout (at most 600 s) adds at most `maxTimed` + its
 *   duration / `maxWaitMs` timed events (~160), and a live view still sees its lines within `maxWaitMs`.
 *
 * The events of one job's logs are thus at most those timed ones + (its output / `maxChars`) + one per
 * other event of the job (themselves bounded: tool calls by `limits.tool_calls`, approvals by
 * `limits.approvals`). Pure but for the timer (no I/O).
 */
export interface LogChunk {
  /** The lines, joined by "\n". */
  text: string;
  /** How many lines `text` holds. */
  lines: number;
}

export const LOG_EVENT_CHARS = 16_384;
export const LOG_EVENT_WAIT_MS = 250;
export const LOG_TIMED_FLUSHES = 40;
export const LOG_EVENT_MAX_WAIT_MS = 5_000;

export class LogCoalescer {
  private buf: string[] = [];
  private chars = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timed = 0;
  private readonly write: (chunk: LogChunk) => void;
  private readonly opts: { maxChars: number; waitMs: number; maxTimed: number; maxWaitMs: number };

  constructor(
    write: (chunk: LogChunk) => void,
    opts: { maxChars?: number; waitMs?: number; maxTimed?: number; maxWaitMs?: number } = {},
  ) {
    this.write = write;
    this.opts = {
      maxChars: opts.maxChars ?? LOG_EVENT_CHARS,
      waitMs: opts.waitMs ?? LOG_EVENT_WAIT_MS,
      maxTimed: opts.maxTimed ?? LOG_TIMED_FLUSHES,
      maxWaitMs: opts.maxWaitMs ?? LOG_EVENT_MAX_WAIT_MS,
    };
  }

  /** The wait before the next timed flush: `waitMs`, doubling past `maxTimed` flushes up to `maxWaitMs`. */
  private wait(): number {
    const { waitMs, maxTimed, maxWaitMs } = this.opts;
    const past = this.timed - maxTimed + 1;
    return past <= 0 ? waitMs : Math.max(waitMs, Math.min(maxWaitMs, waitMs * 2 ** Math.min(past, 30)));
  }

  /** One more line of the job's log. */
  add(line: string): void {
    this.buf.push(line);
    this.chars += line.length + 1;
    if (this.chars >= this.opts.maxChars) return this.flush();
    if (this.timer === undefined)
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.timed++;
        try {
          this.flush();
        } catch {
          // The writer records the event and may throw (the store closed as its process stops): a timer's
          // exception would end the process. The job's own result still holds every line.
        }
      }, this.wait());
  }

  /** Writes the lines held so far as one event (nothing when none is held). */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.buf.length) return;
    const chunk = { text: this.buf.join('\n'), lines: this.buf.length };
    this.buf = [];
    this.chars = 0;
    this.write(chunk);
  }
}

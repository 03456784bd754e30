/**
 * The last lines a worker wrote to its stderr (not part of the protocol), kept so that an infra error of
 * that worker (it died while loading tools, closed its output, failed to start) can say why. Bounded:
 * the last 4096 characters and 20 lines; credential values are blanked out and control characters
 * replaced (the text is untrusted and ends up in terminals and the workbench).
 */
import { constants as osConstants } from 'node:os';
import type { Readable } from 'node:stream';
import { secretForms } from '../../core/records/redact.ts';

export const STDERR_TAIL_CHARS = 4096;
export const STDERR_TAIL_LINES = 20;

export class StderrTail {
  private buf = '';
  private ended = false;
  private readonly waiters = new Set<() => void>();
  private readonly secrets: string[];
  /** Characters kept: the tail plus room for a secret that straddles two chunks. */
  private readonly keep: number;

  constructor(stream: Readable, secrets: string[] = []) {
    // The same rule as a job's results: values of 4 characters or more are blanked (shorter ones would
    // blank ordinary text), in every form the redactor knows (raw, inside a JSON string, Python's repr as a
    // traceback's KeyError prints it, URL-encoded: `secretForms`).
    const forms = secrets.filter((s) => s.length >= 4).flatMap(secretForms);
    this.secrets = [...new Set(forms)].sort((a, b) => b.length - a.length);
    this.keep = STDERR_TAIL_CHARS + Math.max(0, ...this.secrets.map((s) => s.length));
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.buf += chunk;
      // Redacted before it is cut, so a cut never leaves part of a secret behind.
      if (this.buf.length > 2 * this.keep) this.buf = this.redact(this.buf).slice(-this.keep);
    });
    const end = () => {
      if (this.ended) return;
      this.ended = true;
      for (const w of this.waiters) w();
      this.waiters.clear();
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
  }

  /** Resolves when the stream has ended (everything the worker wrote is in), or after `ms`. */
  settled(ms: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.add(() => done());
    });
  }

  private redact(text: string): string {
    for (const s of this.secrets) text = text.split(s).join('***');
    return text;
  }

  /**
   * `text` with the credential values blanked as the lines are: a worker's message quoting what tools.py
   * wrote to stderr (a load_error naming the last lines of the process that loaded it).
   */
  redactText(text: string): string {
    return this.redact(text);
  }

  /** The last lines, redacted and bounded. */
  lines(): string[] {
    let text = this.redact(this.buf);
    // The worker may have died in the middle of writing a secret: its beginning is blanked too.
    for (const s of this.secrets)
      for (let k = s.length - 1; k >= 4; k--)
        if (text.endsWith(s.slice(0, k))) {
          text = `${text.slice(0, -k)}***`;
          break;
        }
    if (text.length > STDERR_TAIL_CHARS) text = text.slice(-STDERR_TAIL_CHARS);
    return text
      .split(/\r?\n/)
      .map((l) => l.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?').trimEnd())
      .filter((l) => l.trim() !== '')
      .slice(-STDERR_TAIL_LINES);
  }

  /** `reason`, followed by the last stderr lines when there are any. */
  describe(reason: string): string {
    const lines = this.lines();
    if (!lines.length) return reason;
    return `${reason}; the worker's stderr ended with:\n${lines.map((l) => `  ${l}`).join('\n')}`;
  }
}

/**
 * How a worker's process ended, in words: `exit status 1`, `killed by SIGKILL` (a process's signal), or
 * for a container's status above 128 the signal it stands for (`exit status 137 (SIGKILL)`).
 */
export function exitStatusText(code: number | null | undefined, signal?: string | null): string {
  if (signal) return `killed by ${signal}`;
  if (code === null || code === undefined) return 'exit status unknown';
  const name =
    code > 128 ? Object.entries(osConstants.signals).find(([, n]) => n === code - 128)?.[0] : undefined;
  return `exit status ${code}${name ? ` (${name})` : ''}`;
}

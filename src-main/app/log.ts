/**
 * Structured logs: JSON lines (pino) in the workspace's `.toolsmith/logs/toolsmith.jsonl`, one line per
 * event, every run's lines carrying its `runId` (script_generated, script_executed, run_finished...).
 * Stacks stay here; front ends get `{code, message}`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Logger } from '../core/ports/executor.ts';
import { errnoWords } from '../core/errors.ts';
import { knownSecrets } from '../core/records/redact.ts';
import { dropGroupAndOtherBits } from '../infra/workspace/atomic.ts';

export function workspaceLogFile(dataDir: string): string {
  return join(dataDir, 'logs', 'toolsmith.jsonl');
}

/**
 * The workspace's logger. A log that cannot be opened (a read-only disk or folder, no permission, a
 * folder where the file belongs) is said once on stderr, naming the file, the cause and the fix, and
 * the process goes on without it: before, every verb (`runs list`, `runs show` of a workspace on a
 * read-only disk or mount) exited 3 with only "toolsmith.jsonl: open failed: EROFS".
 */
export function createLogger(
  dataDir: string,
  level = process.env['TOOLSMITH_LOG_LEVEL'] ?? 'info',
  warn: (line: string) => void = (line) => process.stderr.write(`toolsmith: ${line}\n`),
): Logger {
  const file = workspaceLogFile(dataDir);
  let dest: { write: (line: string) => unknown };
  try {
    mkdirSync(join(dataDir, 'logs'), { recursive: true });
    // Synchronous writes: a line is on disk when the call returns, even if the process dies next.
    // Readable by its owner only, like the run store it tells about (an existing file loses group and
    // other bits).
    dest = pino.destination({ dest: file, sync: true, mkdir: true, mode: 0o600 });
    dropGroupAndOtherBits(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw e;
    warn(
      `the log ${file} cannot be written (${errnoWords(code)}); this process goes on without writing its log lines; make ${join(dataDir, 'logs')} writable to keep them`,
    );
    dest = { write: () => true };
  }
  // Every line passes the redactor of known secrets before it reaches the file.
  const redacted = { write: (line: string) => dest.write(knownSecrets.text(line)) };
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, redacted);
}

/**
 * Structured logs: JSON lines (pino) in the workspace's `.toolsmith/logs/toolsmith.jsonl`, one line per
 * event, every run's lines carrying its `runId` (script_generated, script_executed, run_finished...).
 * Stacks stay here; front ends get `{code, message}`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Logger } from '../core/ports/executor.ts';
import { knownSecrets } from '../core/records/redact.ts';
import { dropGroupAndOtherBits } from '../infra/workspace/atomic.ts';

export function workspaceLogFile(dataDir: string): string {
  return join(dataDir, 'logs', 'toolsmith.jsonl');
}

export function createLogger(dataDir: string, level = process.env['TOOLSMITH_LOG_LEVEL'] ?? 'info'): Logger {
  const file = workspaceLogFile(dataDir);
  mkdirSync(join(dataDir, 'logs'), { recursive: true });
  // Synchronous writes: a line is on disk when the call returns, even if the process dies next.
  // Readable by its owner only, like the run store it tells about (an existing file loses group and
  // other bits).
  const dest = pino.destination({ dest: file, sync: true, mkdir: true, mode: 0o600 });
  dropGroupAndOtherBits(file);
  // Every line passes the redactor of known secrets before it reaches the file.
  const redacted = { write: (line: string) => dest.write(knownSecrets.text(line)) };
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, redacted);
}

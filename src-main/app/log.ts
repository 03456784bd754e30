/**
 * Structured logs: JSON lines (pino) in the workspace's `.toolsmith/logs/toolsmith.jsonl`, one line per
 * event, every run's lines carrying its `runId` (script_generated, script_executed, run_finished...).
 * Stacks stay here; front ends get `{code, message}`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Logger } from '../core/ports/executor.ts';

export function workspaceLogFile(dataDir: string): string {
  return join(dataDir, 'logs', 'toolsmith.jsonl');
}

export function createLogger(dataDir: string, level = process.env['TOOLSMITH_LOG_LEVEL'] ?? 'info'): Logger {
  const file = workspaceLogFile(dataDir);
  mkdirSync(join(dataDir, 'logs'), { recursive: true });
  // Synchronous writes: a line is on disk when the call returns, even if the process dies next.
  return pino(
    { level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ dest: file, sync: true, mkdir: true }),
  );
}

/**
 * The workspace's log file (`.toolsmith/logs/toolsmith.jsonl`), made ready as a process that may log opens
 * it: its folder made, the file made readable by its owner only (an existing one loses group and other
 * bits, like the run store it tells about). Apart from the logger (app/log.ts, which loads pino): a verb
 * that reads the run store and writes no log line (`runs list`, app/workspace-reader.ts) still closes a
 * world-readable log to other users, without loading pino.
 */
import { join } from 'node:path';
import { errnoWords } from '../core/errors.ts';
import { dropGroupAndOtherBits } from '../infra/workspace/atomic.ts';

// node:fs by process.getBuiltinModule, not an ES import (see infra/store/connection.ts).
const { closeSync, mkdirSync, openSync, statSync } = process.getBuiltinModule('node:fs');

export function workspaceLogFile(dataDir: string): string {
  return join(dataDir, 'logs', 'toolsmith.jsonl');
}

/**
 * Makes the log file of `dataDir` ready (see above). False, and said once on `warn`, when it cannot be
 * written: the process goes on without its log lines.
 */
export function prepareLogFile(dataDir: string, warn: (line: string) => void): boolean {
  const file = workspaceLogFile(dataDir);
  const what = notAFileAt(file);
  if (what) {
    warn(logNotAFile(file, what));
    return false;
  }
  try {
    mkdirSync(join(dataDir, 'logs'), { recursive: true });
    closeSync(openSync(file, 'a', 0o600));
    dropGroupAndOtherBits(file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw e;
    warn(logUnwritable(dataDir, code));
    return false;
  }
}

/** Where a process says its log cannot be written, unless told otherwise: its stderr. */
export const stderrWarn = (line: string): void => {
  process.stderr.write(`toolsmith: ${line}\n`);
};

/** Why the log cannot be written, and what to do. */
export function logUnwritable(dataDir: string, code: string): string {
  return `the log ${workspaceLogFile(dataDir)} cannot be written (${errnoWords(code)}); this process goes on without writing its log lines; make ${join(dataDir, 'logs')} writable to keep them`;
}

/**
 * What is at the log's path when a log cannot be opened there without waiting (a named pipe: opening it
 * for writing waits for a reader, and the process with it), else undefined.
 */
export function notAFileAt(file: string): string | undefined {
  try {
    const there = statSync(file);
    return there.isFIFO() ? 'a named pipe' : there.isSocket() ? 'a socket' : undefined;
  } catch {
    return undefined; // (nothing there: made by the caller; any other failure is the open's to name)
  }
}

/** Why the log is not opened when something else than a file is at its path, and what to do. */
export function logNotAFile(file: string, what: string): string {
  return `the log ${file} is ${what}, not a file (opening it would wait for a reader); this process goes on without writing its log lines until a file is at that path; remove it to keep them`;
}

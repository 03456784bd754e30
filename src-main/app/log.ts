/**
 * Structured logs: JSON lines (pino) in the workspace's `.toolsmith/logs/toolsmith.jsonl`, one line per
 * event, every run's lines carrying its `runId` (script_generated, script_executed, run_finished...).
 * Stacks stay here; front ends get `{code, message}`.
 */
import { existsSync, fstatSync, mkdirSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Logger } from '../core/ports/executor.ts';
import { errnoWords } from '../core/errors.ts';
import { knownSecrets } from '../core/records/redact.ts';
import { dropGroupAndOtherBits } from '../infra/workspace/atomic.ts';
import { logNotAFile, logUnwritable, notAFileAt, stderrWarn, workspaceLogFile } from './log-file.ts';

/** How often, at most, a line's write looks whether the log file is still the one at the path. */
const LOG_LOOK_MS = 1000;

/**
 * What a log holds in memory while its file cannot be written (a full disk): written in order once it
 * can be; lines past it are dropped.
 */
export const LOG_HELD_BYTES = 1 << 20;

export { workspaceLogFile };

/**
 * The workspace's logger. A log that cannot be opened (a read-only disk or folder, no permission, a
 * folder where the file belongs) is said once on stderr, naming the file, the cause and the fix, and
 * the process goes on without it: before, every verb (`runs list`, `runs show` of a workspace on a
 * read-only disk or mount) exited 3 with only "toolsmith.jsonl: open failed: EROFS".
 */
export function createLogger(
  dataDir: string,
  level = process.env['TOOLSMITH_LOG_LEVEL'] ?? 'info',
  warn: (line: string) => void = stderrWarn,
): Logger {
  const file = workspaceLogFile(dataDir);
  let dest: { write: (line: string) => unknown };
  let sonic: ReturnType<typeof pino.destination> | undefined;
  // A named pipe (or a socket) at the path is never opened: opening a pipe for writing waits for a reader,
  // and the process with it (every verb, `serve` and `mcp` hung at their start). Said once; the path is
  // looked at again as lines come, and a file put there later takes them.
  let notAFile = false;
  // A line that cannot be written (a full disk, a quota) fails nothing: sonic-boom keeps it and the lines
  // after it (up to LOG_HELD_BYTES; past that they are dropped) and writes them in order at the next line
  // once the file takes them. Said once each time writing stops, and once when lines are dropped. Before,
  // its `error` event had no listener: the ENOSPC was thrown out of the log call, and a verb ended with
  // "disk full: write failed: ENOSPC", naming no file.
  let failing = false;
  let dropping = false;
  const open = () => {
    const d = pino.destination({
      dest: file,
      sync: true,
      mkdir: true,
      mode: 0o600,
      maxLength: LOG_HELD_BYTES,
    });
    d.on('error', (e: NodeJS.ErrnoException) => {
      if (failing) return;
      failing = true;
      warn(
        `the log ${file} could not be written (${errnoWords(e.code ?? String(e))}); its lines are held in memory (up to ${LOG_HELD_BYTES >> 20} MB) and written once it can be`,
      );
    });
    d.on('drop', () => {
      if (dropping) return;
      dropping = true;
      warn(
        `the log ${file} still cannot be written: lines past ${LOG_HELD_BYTES >> 20} MB held in memory were dropped`,
      );
    });
    d.on('write', () => {
      failing = dropping = false;
    });
    return d;
  };
  try {
    const what = notAFileAt(file);
    if (what) {
      notAFile = true;
      warn(logNotAFile(file, what));
      dest = { write: () => true };
    } else {
      mkdirSync(join(dataDir, 'logs'), { recursive: true });
      // Synchronous writes: a line is on disk when the call returns, even if the process dies next.
      // Readable by its owner only, like the run store it tells about (an existing file loses group and
      // other bits).
      dest = sonic = open();
      dropGroupAndOtherBits(file);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw e;
    warn(logUnwritable(dataDir, code));
    dest = { write: () => true };
  }
  // The file deleted or replaced under the process (by hand, a cleanup, a log rotation that moves it):
  // its lines went on into the file it had open, which nobody could read any more, said nowhere. Looked
  // at when a line comes, at most every second: opened again at the path (its logs folder made again
  // while .toolsmith is there, never a ghost .toolsmith of a workspace moved away), said once.
  let lookedAt = 0;
  const follow = () => {
    const now = Date.now();
    if ((!sonic && !notAFile) || now - lookedAt < LOG_LOOK_MS) return;
    lookedAt = now;
    let there: Stats | undefined;
    try {
      there = statSync(file);
      // (sonic-boom's descriptor: its types do not name the field)
      const open = sonic && fstatSync((sonic as unknown as { fd: number }).fd);
      if (open && open.dev === there.dev && open.ino === there.ino) return;
    } catch {
      /* gone (or the descriptor is being replaced): opened again below */
    }
    if (!existsSync(dataDir)) return;
    // (a named pipe or a folder put at the path: opening a pipe for writing waits for a reader, and every
    // later line with it)
    if (there && !there.isFile()) return;
    // A new destination, not sonic-boom's reopen(): a reopen that fails (the logs folder not writable
    // now, a file in its place, a read-only mount) emits its error on the next tick, which pino's handler
    // throws again (the process ended: "Unhandled 'error' event"), and leaves a listener that closes the
    // old descriptor once per failed try when one succeeds. A destination that cannot be made throws
    // here and emits nothing: the lines go on where they went, and the path is looked at again later.
    let next: ReturnType<typeof pino.destination>;
    try {
      next = open();
    } catch {
      return;
    }
    // (a file put there by a rotation, `create 0644`, is readable by its owner only, as at the start)
    dropGroupAndOtherBits(file);
    const old = sonic;
    dest = sonic = next;
    notAFile = false;
    if (!old) {
      warn(
        `the log ${file} is a file now; this process (pid ${process.pid}) writes its lines there from here on`,
      );
      return;
    }
    try {
      old.end();
    } catch {
      /* (its descriptor is closed once; nothing is left to write in it) */
    }
    warn(
      `the log ${file} was deleted or replaced while this process (pid ${process.pid}) wrote to it; its lines go on in a new file at that path`,
    );
  };
  // Every line passes the redactor of known secrets before it reaches the file.
  const redacted = {
    write: (line: string) => {
      follow();
      return dest.write(knownSecrets.text(line));
    },
  };
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, redacted);
}

/**
 * Reading a workspace file that may not be a file. `readFileSync` of a named pipe (FIFO) waits for a
 * writer that never comes, with the whole process blocked (a `serve` stops answering, a CLI verb never
 * ends, deaf to SIGINT); a character device (`/dev/zero` linked in) never ends either. So a workspace
 * file is opened without blocking (`O_NONBLOCK`: a FIFO opens at once), checked by its descriptor (the
 * file read is the one checked, no race with a rename) and read only when it is a regular file.
 * Only node: modules here (the CLI's cache reads files with this before main loads).
 */
const { closeSync, constants, fstatSync, openSync, readFileSync, statSync } =
  process.getBuiltinModule('node:fs');

/** A path that holds something other than a regular file; `code` is errno-like (EISDIR, S_IFIFO, ...). */
export class NotAFileError extends Error {
  readonly file: string;
  readonly code: string;
  /** What is there, in words ("it is a named pipe (FIFO), not a file"). */
  readonly why: string;
  constructor(file: string, code: string, why: string) {
    super(`${file} cannot be read: ${why} (${code})`);
    this.name = 'NotAFileError';
    this.file = file;
    this.code = code;
    this.why = why;
  }
}

interface Kind {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}

function notAFile(file: string, st: Kind): NotAFileError {
  if (st.isDirectory()) return new NotAFileError(file, 'EISDIR', 'it is a folder, not a file');
  if (st.isFIFO())
    return new NotAFileError(
      file,
      'S_IFIFO',
      'it is a named pipe (FIFO), not a file: reading it would wait for a writer',
    );
  if (st.isSocket()) return new NotAFileError(file, 'S_IFSOCK', 'it is a socket, not a file');
  if (st.isCharacterDevice())
    return new NotAFileError(file, 'S_IFCHR', 'it is a character device, not a file');
  if (st.isBlockDevice()) return new NotAFileError(file, 'S_IFBLK', 'it is a block device, not a file');
  return new NotAFileError(file, 'EINVAL', 'it is not a regular file');
}

/**
 * The bytes (or text) of `file`, which must be a regular file (a symbolic link to one is followed).
 * Anything else is refused at once with a `NotAFileError` naming what is there; errors of the open
 * itself (ENOENT, EACCES, ELOOP...) are Node's, as `readFileSync` throws them.
 */
export function readRegularFile(file: string): Buffer;
export function readRegularFile(file: string, encoding: 'utf8'): string;
export function readRegularFile(file: string, encoding?: 'utf8'): Buffer | string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (e) {
    // A socket cannot be opened at all (ENXIO): say what it is.
    if ((e as NodeJS.ErrnoException).code === 'ENXIO') {
      let st: Kind | undefined;
      try {
        st = statSync(file);
      } catch {
        /* gone meanwhile: Node's error */
      }
      if (st) throw notAFile(file, st);
    }
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notAFile(file, st);
    return encoding ? readFileSync(fd, encoding) : readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The pieces of the workspace's file layer that every CLI verb needs (workspace init and the
 * recent-workspaces list use them): the workspace's errors, the atomic write, and the guards that name
 * a refused read or write in words and never recreate a workspace folder that moved. Kept apart from
 * files.ts so that importing them loads no TOML, template or Python parser: `toolsmith --help` and the
 * light verbs import this, not files.ts.
 */
import { basename, join } from 'node:path';
import { NotAFileError, readRegularFile } from './regular-file.ts';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start").
const { chmodSync, mkdirSync, openSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } =
  process.getBuiltinModule('node:fs');

export class WorkspaceError extends Error {
  override name = 'WorkspaceError';
  readonly file: string | undefined;
  constructor(message: string, file?: string) {
    super(message);
    this.file = file;
  }
}

/**
 * A file or folder of the workspace that the machine refused to write (no permission, immutable, a
 * read-only disk, a folder where a file belongs, the workspace folder gone): the message names the
 * file, the cause in words and what to do. Front ends answer it as `infra`, not as an internal error.
 */
export class WorkspaceFileError extends WorkspaceError {
  override name = 'WorkspaceFileError';
}

/** What an errno means for a file the workspace writes, in words. */
const WHY: Record<string, string> = {
  EACCES: 'permission denied: this user may not write there',
  EPERM: 'not permitted: the file or its folder is immutable, locked or owned by another user',
  EROFS: 'the disk is mounted read-only',
  EISDIR: 'a folder is where the file belongs',
  ENOTDIR: 'a part of its path is a file, not a folder',
  ENOENT: 'its folder does not exist (deleted or moved away)',
  ELOOP: 'a symbolic link loop is in its path',
};

/** The error of a failed write of `file`, in words; `e` when it is not one the machine gave. */
export function fileWriteError(file: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new WorkspaceFileError(
      `disk full: ${file} could not be written (${code === 'ENOSPC' ? 'ENOSPC: no space left on device' : 'EDQUOT: disk quota exceeded'}); the file was left as it was; free space on that disk`,
      file,
    );
  const why = WHY[code ?? ''];
  if (!why) return e as Error;
  return new WorkspaceFileError(
    `${file} could not be written: ${why} (${code}); the file was left as it was and nothing was saved; make it writable and save again`,
    file,
  );
}

/**
 * Writes through a temporary file and a rename, so a crash never leaves half a file; a failed write
 * (a full disk, no permission, a folder in the way) leaves the old file as it was, removes the
 * temporary one and says why in words, naming the file (never the temporary one).
 */
export function atomicWrite(file: string, text: string): void {
  const tmp = join(file, '..', `.${basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw fileWriteError(file, e);
  }
}

/**
 * The workspace folders this process opened, each with a descriptor kept open on it (Linux): where the
 * folder is now when it was moved, from /proc/self/fd.
 */
const heldRoots = new Map<string, number | undefined>();

/** Keeps a descriptor on the workspace folder `root`, so that a move can be followed (see below). */
export function holdWorkspaceRoot(root: string): void {
  if (heldRoots.has(root)) return;
  let fd: number | undefined;
  try {
    fd = openSync(root, 'r');
  } catch {
    fd = undefined;
  }
  heldRoots.set(root, fd);
}

/** Where the folder opened as `root` is now: a path, "deleted", or undefined when unknown. */
function whereNow(root: string): string | undefined {
  const fd = heldRoots.get(root);
  if (fd === undefined) return undefined;
  try {
    const now = readlinkSync(`/proc/self/fd/${fd}`);
    return now.endsWith(' (deleted)') ? 'deleted' : now;
  } catch {
    return undefined;
  }
}

const isFolder = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Why the workspace folder `root` cannot be used, or undefined while it is there: moved or deleted while
 * this process had it open, named with where it is now. `what` was not saved (a write) or cannot be
 * listed (a read: a list from the old path would be empty, as if the workspace had nothing).
 */
export function workspaceGone(
  root: string,
  what: string,
  doing: 'save' | 'list' | 'read',
): WorkspaceFileError | undefined {
  if (isFolder(root)) return undefined;
  const now = whereNow(root);
  const where =
    now === 'deleted'
      ? 'it was deleted'
      : now && now !== root
        ? `it was moved to ${now}`
        : 'it was moved or deleted';
  const movedTo = now && now !== 'deleted' && now !== root ? now : undefined;
  const again = doing === 'save' ? ' and save again' : '';
  return new WorkspaceFileError(
    `the workspace folder ${root} is gone: ${where} while this process (pid ${process.pid}) had it open; ` +
      (doing === 'save'
        ? `${what} was not saved, and nothing was written at the old path; `
        : `${what} cannot be ${doing === 'list' ? 'listed' : 'read'} from the old path; `) +
      (movedTo
        ? `open the workspace at ${movedTo} (or move it back)${again}`
        : `put the folder back, or open the workspace where it is now${again ? `,${again}` : ''}`),
    root,
  );
}

/**
 * Makes `dir` (a folder inside the workspace `root`) for a write of `what`, but never the workspace
 * folder itself: when the folder was moved or deleted while this process had it open, a recursive
 * mkdir made a ghost workspace at the old path (the save landed there, not in the moved workspace, and
 * moving the workspace back nested it inside). Refused instead, naming where the folder is now.
 */
export function workspaceFolder(root: string, dir: string, what: string): void {
  const gone = workspaceGone(root, what, 'save');
  if (gone) throw gone;
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new WorkspaceFileError(
        `${dir} cannot be made: a file is where this folder belongs (${code}); ${what} was not saved; move the file away and save again`,
        dir,
      );
    throw fileWriteError(dir, e);
  }
}

/**
 * Why a folder of the workspace that holds files of one kind (templates/, kits/) cannot be listed, or
 * undefined when it can (it exists and is a folder): a file in its place is named, never listed as "none".
 */
export function folderProblem(dir: string): string | undefined {
  try {
    if (statSync(dir).isDirectory()) return undefined;
    return `${dir} is a file, not a folder, so nothing in it can be listed or saved; move the file away (a folder of that name holds them)`;
  } catch {
    return undefined;
  }
}

/** What an errno means for a file the workspace reads, in words (a missing file is the caller's case). */
const READ_WHY: Record<string, string> = {
  EISDIR: 'it is a folder, not a file',
  EACCES: 'permission denied: this user may not read it',
  EPERM: 'not permitted',
  ELOOP: 'it is a symbolic link loop',
  ENOTDIR: 'a part of its path is a file, not a folder',
};

/**
 * A workspace file's text; a path that cannot be read as a file (a folder, a named pipe or a device in
 * its place, no permission) is refused naming the file and the cause in words (Node says "EISDIR: illegal operation on a
 * directory, read", without the file). A missing file throws Node's error as before.
 */
export function readWorkspaceText(file: string): string {
  try {
    return readRegularFile(file, 'utf8');
  } catch (e) {
    // A named pipe, a socket or a device in the file's place: refused at once (a FIFO's read would
    // block the whole process until a writer came).
    if (e instanceof NotAFileError && e.code !== 'EISDIR')
      throw new WorkspaceFileError(`${e.message}; move it away and put the file back`, file);
    const code = (e as NodeJS.ErrnoException).code ?? '';
    const why = READ_WHY[code];
    if (!why) throw e;
    throw new WorkspaceFileError(
      `${file} cannot be read: ${why} (${code}); ${code === 'EISDIR' ? 'move the folder away' : 'make it readable'}`,
      file,
    );
  }
}

/**
 * Takes the group and other bits off `file` (a file readable by its owner only: the run store, the
 * log); absent, or not this user's to change, it is left as it is.
 */
export function dropGroupAndOtherBits(file: string): void {
  try {
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o077) chmodSync(file, mode & 0o700);
  } catch {
    /* absent, or not ours to change */
  }
}

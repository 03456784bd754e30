/**
 * The one way to turn a caught value into words: an Error's message, a thrown object's `message`
 * string, a plain object as JSON (not `[object Object]`), else the value itself as text.
 */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'object' && e !== null) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string') return message;
    try {
      return JSON.stringify(e) ?? String(e);
    } catch {
      return String(e);
    }
  }
  return String(e);
}

/** What Node's system errors carry (node's ErrnoException, without depending on Node's types). */
interface SystemError {
  code?: unknown;
  syscall?: unknown;
  path?: string;
  dest?: string;
}

const ERRNO_WORDS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EEXIST: 'it already exists',
  ELOOP: 'a symbolic link loop',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
  EPIPE: 'the reader of the output went away',
  EFBIG: 'the file is too large',
};

/** A system error code in words (`ENOENT: no such file or folder`), or the code alone when unknown. */
export function errnoWords(code: string): string {
  return ERRNO_WORDS[code] ? `${code}: ${ERRNO_WORDS[code]}` : code;
}

/**
 * A failure of the machine (a system call refused: a missing folder, a full disk, no permission) as
 * one line naming the file and the cause, and its exit code (2: a path the user gave that cannot be
 * used; 3: the machine). Undefined for anything else (a bug keeps its stack).
 */
export function systemErrorLine(e: unknown): { line: string; exit: number } | undefined {
  const err = e as SystemError | undefined;
  if (!(e instanceof Error) || typeof err?.code !== 'string' || !(err.code in ERRNO_WORDS)) return undefined;
  const code = err.code;
  if (typeof err.syscall !== 'string' && !err.path) return undefined;
  const what = code === 'ENOSPC' || code === 'EDQUOT' ? 'disk full: ' : '';
  const file = err.path ?? err.dest;
  const call = typeof err.syscall === 'string' ? err.syscall : 'a system call';
  const line = file
    ? `${what}${file}: ${call} failed: ${code}: ${ERRNO_WORDS[code]}`
    : `${what}${call} failed: ${code}: ${ERRNO_WORDS[code]}`;
  const userPath = ['ENOENT', 'ENOTDIR', 'EISDIR', 'EEXIST', 'ELOOP', 'ENAMETOOLONG'].includes(code);
  return { line, exit: userPath ? 2 : 3 };
}

/** The CLI's output (stdout) could not be written: a full disk under a redirect, a closed pipe. */
export class OutputError extends Error {
  override name = 'OutputError';
  readonly code: string;
  constructor(code: string) {
    super(
      `${code === 'ENOSPC' || code === 'EDQUOT' ? 'disk full: ' : ''}the output could not be written (${code}: ${ERRNO_WORDS[code] ?? 'write failed'})`,
    );
    this.code = code;
  }
}

/**
 * The two pieces of the workspace's file layer that every CLI verb needs (workspace init and the
 * recent-workspaces list use them), kept apart from files.ts so that importing them loads no TOML,
 * template or Python parser: `toolsmith --help` and the light verbs import this, not files.ts.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export class WorkspaceError extends Error {
  override name = 'WorkspaceError';
  readonly file: string | undefined;
  constructor(message: string, file?: string) {
    super(message);
    this.file = file;
  }
}

/**
 * Writes through a temporary file and a rename, so a crash never leaves half a file; a failed write
 * (a full disk) leaves the old file as it was, removes the temporary one and says why in words.
 */
export function atomicWrite(file: string, text: string): void {
  const tmp = join(file, '..', `.${basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT')
      throw new Error(
        `disk full: ${file} could not be written (${code === 'ENOSPC' ? 'ENOSPC: no space left on device' : 'EDQUOT: disk quota exceeded'}); the file was left as it was; free space on that disk`,
        { cause: e },
      );
    throw e;
  }
}

/**
 * A small disk that a test fills and empties: a tmpfs mounted on a folder of its own (mounting needs root),
 * filled by one file until the file system refuses (ENOSPC), emptied by removing that file.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** The folder the tmpfs is mounted on. */
  root: string;
  /** Writes the filler until nothing is left: every later write that needs a new block fails. */
  fill(): void;
  /** Removes the filler: space returns. */
  free(): void;
  /** Unmounts the tmpfs and removes its folder. */
  remove(): void;
}

/** Mounts a tmpfs of `sizeMb` MB on a new temporary folder named after `prefix`. */
export function mountSmallDisk(prefix: string, sizeMb = 4): SmallDisk {
  if (process.getuid?.() !== 0) throw new Error('the disk-full tests mount a tmpfs: run them as root');
  const root = mkdtempSync(join(tmpdir(), prefix));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', root]);
  const filler = join(root, 'filler');
  return {
    root,
    fill() {
      // Large blocks first, then the last partial ones: nothing is left.
      for (const size of [64 * 1024, 512, 1]) {
        const fd = openSync(filler, 'a');
        try {
          for (;;) writeSync(fd, Buffer.alloc(size, 1));
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        } finally {
          closeSync(fd);
        }
      }
    },
    free: () => rmSync(filler, { force: true }),
    remove() {
      try {
        execFileSync('umount', [root]);
      } catch {
        execFileSync('umount', ['-l', root]);
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

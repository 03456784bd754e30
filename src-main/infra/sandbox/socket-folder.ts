/**
 * The folder of a Unix socket Toolsmith listens on (a tool container's egress proxy, a worker's protocol
 * socket): a new private folder in the temp folder ($TMPDIR), unless the socket's path there would not fit
 * in a socket address. A Unix socket's path holds at most 107 bytes (sun_path), and a person's $TMPDIR may
 * be long (a nested one such as `/home/me/work/scratch space/tmp`): with 40 bytes or more the egress
 * proxy's `listen` failed with "EINVAL: invalid argument", so no tool with network rules could start.
 * Such a folder is made in /tmp instead (mkdtemp, so as private as in $TMPDIR).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The longest path a Unix socket address holds on Linux (108 bytes with the terminating NUL). */
export const SOCKET_PATH_MAX = 107;

/**
 * A new folder named `prefix` + 6 random characters, in $TMPDIR when a socket path of `rest` more bytes
 * below it (the separator included) fits in SOCKET_PATH_MAX, else in /tmp.
 */
export function socketFolder(prefix: string, rest: number): string {
  const base = tmpdir();
  const fits = Buffer.byteLength(join(base, `${prefix}XXXXXX`)) + rest <= SOCKET_PATH_MAX;
  return mkdtempSync(join(fits ? base : '/tmp', prefix));
}

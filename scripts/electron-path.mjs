// Where the Electron binary is, without triggering the `electron` package's download-on-require (which
// cannot reach its host on machines like these): undefined when it is not installed.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

export function electronBinary() {
  const require = createRequire(import.meta.url);
  let dir;
  try {
    dir = dirname(require.resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  const pathFile = join(dir, 'path.txt');
  const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const bin = override ? join(override, name || 'electron') : name ? join(dir, 'dist', name) : undefined;
  return bin && existsSync(bin) ? bin : undefined;
}

/**
 * How to run this command again, for hints such as `init`'s "next:" line. Never a bare
 * `npx toolsmith`: outside this package's folder that resolves to an unrelated npm package named
 * `toolsmith` (the registry name is taken), which a non-interactive npx would install and run.
 */
import { basename, delimiter, join, resolve } from 'node:path';

// node:fs by process.getBuiltinModule, not an ES import, which builds its namespace (its lazy `promises`
// with readline and streams): `init --empty` before main loads this (init-early.ts).
const { accessSync, constants, realpathSync } = process.getBuiltinModule('node:fs');

/** `toolsmith` when that name on PATH is this very command, else `node /abs/path/bin/toolsmith.mjs`. */
export function commandHint(
  invokedAs = process.env['TOOLSMITH_INVOKED_AS'] || process.argv[1] || '',
  path = process.env['PATH'] ?? '',
): string {
  const script = invokedAs ? resolve(invokedAs) : '';
  const real = realOf(script);
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'toolsmith');
    if (real && realOf(candidate) === real && executable(candidate)) return 'toolsmith';
  }
  if (script && basename(script) !== 'toolsmith.mjs' && executable(script)) return quote(script);
  return `node ${quote(real || script || 'bin/toolsmith.mjs')}`;
}

function realOf(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const quote = (p: string) => (/^[\w@%+=:,./-]+$/.test(p) ? p : JSON.stringify(p));

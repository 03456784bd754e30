#!/usr/bin/env node
/**
 * Lints the Python under sandbox-images/ with Ruff's official wasm build (@astral-sh/ruff-wasm-nodejs):
 * PyPI is not reachable here and Debian 12 has no ruff package. The settings are sandbox-images/ruff.toml
 * (the same file a Ruff CLI would read). Prints each finding as `file:line:col code message` and exits 1
 * when there is any (2 when a file cannot be read or the settings are wrong).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PositionEncoding, Workspace } from '@astral-sh/ruff-wasm-nodejs';
import { parse } from 'smol-toml';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'sandbox-images');

/** Every .py file under dir, in a stable order (no hidden folders, no caches). */
function pythonFiles(d) {
  return readdirSync(d, { withFileTypes: true })
    .filter((e) => !e.name.startsWith('.') && e.name !== '__pycache__')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) =>
      e.isDirectory() ? pythonFiles(join(d, e.name)) : e.name.endsWith('.py') ? [join(d, e.name)] : [],
    );
}

let workspace;
try {
  workspace = new Workspace(parse(readFileSync(join(dir, 'ruff.toml'), 'utf8')), PositionEncoding.Utf32);
} catch (e) {
  console.error(`lint:py: sandbox-images/ruff.toml: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(2);
}

let findings = 0;
const files = pythonFiles(dir);
for (const file of files) {
  const name = relative(root, file);
  /** @type {import('@astral-sh/ruff-wasm-nodejs').Diagnostic[]} */
  const diagnostics = workspace.check(readFileSync(file, 'utf8'));
  for (const d of diagnostics) {
    findings++;
    console.log(
      `${name}:${d.start_location.row}:${d.start_location.column} ${d.code ?? 'syntax'} ${d.message}`,
    );
  }
}
if (findings) {
  console.log(
    `ruff ${Workspace.version()}: ${findings} finding${findings === 1 ? '' : 's'} in ${files.length} files`,
  );
  process.exit(1);
}

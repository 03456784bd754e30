// The CLI bundle's pyright (scripts/build-cli.mjs): the command uses pyright's tokenizer and parser only
// (src-main/core/lang/python/pyright.ts), whose messages are English (pyright.ts forces English
// diagnostics). The package's localization module requires the strings of 15 locales (1.4 MB of object
// literals) and defines a function for each of its ~850 messages; loading them was most of what
// `toolsmith validate` spent on its start. In the bundle:
// - every locale but en-us is an empty table, and pyright's Uri a stub (see URI below);
// - localize.js defines, and en-us holds, only the messages the bundled pyright modules use
//   (`LocMessage.x` / `LocAddendum.x` in the sources of its parser/ folder); a bundled pyright module
//   that uses a message trimmed fails the build (generateBundle), never a run;
// - the chunk that holds pyright is written without comments and whitespace (no name is changed): V8
//   reads, hashes and compiles less source at every start (the rest of the bundle stays readable).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minifySync } from 'vite';

const PKG = '/@zzzen/pyright-internal/dist/';
const LOCALE = /\/@zzzen\/pyright-internal\/dist\/localization\/package\.nls\.([\w-]+)\.json$/;
const LOCALIZE = `${PKG}localization/localize.js`;
// pyright's Uri (vscode-uri, its path and file-system helpers): the diagnostics modules the parser loads
// require it only to read diagnostics back from JSON (`fromJsonObj`), which the parser never does.
const URI = `${PKG}common/uri/uri.js`;
const URI_STUB = `exports.Uri = { fromJsonObj() { throw new Error("pyright's Uri is not in the CLI bundle (scripts/cli-pyright.mjs)"); } };`;
const USE = /\bLoc(Message|Addendum)\.(\w+)/g;
const NAMESPACE = { Message: 'Diagnostic', Addendum: 'DiagnosticAddendum' };

/** `Diagnostic.x` / `DiagnosticAddendum.x` keys a pyright module's source uses. */
function usedKeys(source) {
  const keys = new Set();
  for (const m of source.matchAll(USE)) keys.add(`${NAMESPACE[m[1]]}.${m[2]}`);
  return keys;
}

/** The keys pyright's parser modules use (dist/parser/*.js: the tokenizer, the parser and their helpers). */
function keysOfPackage(localizeId) {
  const parser = join(localizeId, '..', '..', 'parser');
  const keys = new Set();
  for (const file of readdirSync(parser).filter((f) => f.endsWith('.js')))
    for (const k of usedKeys(readFileSync(join(parser, file), 'utf8'))) keys.add(k);
  return keys;
}

/** @returns {import('vite').Plugin} */
export function pyrightParserOnly() {
  let keep;
  const keysFor = (id) => (keep ??= keysOfPackage(id));
  return {
    name: 'toolsmith-pyright-parser-only',
    enforce: 'pre',
    load(id) {
      if (id.endsWith(URI)) return URI_STUB;
      const locale = LOCALE.exec(id);
      if (!locale) return undefined;
      if (locale[1] !== 'en-us') return '{}';
      const all = JSON.parse(readFileSync(id, 'utf8'));
      const kept = {};
      for (const key of keysFor(id.replace(/package\.nls\.en-us\.json$/, 'localize.js'))) {
        const [ns, name] = key.split('.');
        if (all[ns]?.[name] === undefined) continue;
        (kept[ns] ??= {})[name] = all[ns][name];
      }
      return JSON.stringify(kept);
    },
    transform(code, id) {
      if (!id.endsWith(LOCALIZE)) return undefined;
      const keys = keysFor(id);
      // One line per message: `Diagnostic.name = () => ...;` inside its namespace's IIFE.
      const out = code
        .split('\n')
        .filter((line) => {
          const m = /^\s+(\w+)\.(\w+) = \(\) => /.exec(line);
          return !m || keys.has(`${m[1]}.${m[2]}`);
        })
        .join('\n');
      return { code: out, map: null };
    },
    generateBundle(_, bundle) {
      if (!keep) return;
      const missing = [];
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        if (chunk.moduleIds.some((id) => id.includes(PKG))) {
          const r = minifySync(chunk.fileName, chunk.code, { module: true, compress: false, mangle: false });
          if (r.errors.length) this.error(`minifying ${chunk.fileName}: ${r.errors[0].message}`);
          chunk.code = r.code;
        }
        for (const id of Object.keys(chunk.modules)) {
          if (!id.includes(PKG) || id.endsWith(LOCALIZE)) continue;
          for (const k of usedKeys(readFileSync(id, 'utf8'))) if (!keep.has(k)) missing.push(k);
        }
      }
      if (missing.length)
        this.error(`pyright messages used but trimmed from the bundle: ${[...new Set(missing)].join(', ')}`);
    },
  };
}

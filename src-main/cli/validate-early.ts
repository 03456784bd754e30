/**
 * `toolsmith validate FILE` before main loads: bin/start.mjs asks `validateBeforeMain` (verb-cache.ts)
 * once the verb cache has no answer, and a plain command line — FILE (not standard input) with at most
 * `--sandbox NAME` or `--tools A,B`, `--lang`, `--strict`, `--json` and the workspace option, each once,
 * no `--opt=value` form — whose tools the sandboxes snapshot holds (sandboxes-cache.ts) is checked
 * here, without commander and the verbs' table (main.ts). Anything else (help, `--kit`, a snapshot miss,
 * a file that cannot be read, a usage error) returns undefined and main runs the verb, which says why.
 * The commander action (commands/validate.ts) prints with the same functions, so both answer alike.
 */
import { languageOfFile } from '../core/lang/validate-lazy.ts';
import { loadCliValidator } from './validator-bundle.ts';
import type { ScriptLanguage, ValidateOptions, ValidationResult } from '../core/lang/violation.ts';
import { resolveWorkspaceDir } from '../infra/workspace/init.ts';
import { readSnapshot } from './sandboxes-cache.ts';
import { visible } from '../core/text/visible.ts';

// Builtins by process.getBuiltinModule, not ES imports: an ES import builds the module's namespace
// (node:fs's reads every export, its lazy `promises` too), ~3-5 ms of a one-shot verb's ~25 ms start
// (docs/scaling.md, "CLI start").
const { existsSync, readFileSync } = process.getBuiltinModule('node:fs');

/** The workspace folder the option (or the current folder) names; undefined when it does not exist. */
export function workspaceDirOf(option: string | undefined): string | undefined {
  return option === undefined || existsSync(option) ? resolveWorkspaceDir(option) : undefined;
}

/**
 * The names a script in `sandbox` (default: the workspace's) may call and what a call of each may pass,
 * from the snapshot; undefined on a miss.
 */
export function snapshotTools(
  workspaceOption: string | undefined,
  sandbox: string | undefined,
  language: ScriptLanguage,
  known?: { dir: string; files: string },
): Pick<ValidateOptions, 'tools' | 'shapes'> | undefined {
  const dir = workspaceDirOf(workspaceOption);
  const snap = dir ? readSnapshot(dir, known?.dir === dir ? known.files : undefined) : undefined;
  const name = sandbox ?? snap?.validate.defaultSandbox;
  const tools = name ? snap?.validate.scriptTools[name]?.[language] : undefined;
  const shapes = name ? snap?.validate.scriptShapes[name]?.[language] : undefined;
  return tools && shapes ? { tools, shapes } : undefined;
}

/** Whether a result has a call of a name the validator did not know (`x() is not defined`). */
export const hasUnknownCall = (result: ValidationResult): boolean =>
  result.violations.some((v) => v.rule === 'unknown-function');

/** What `validate` prints for a result. */
export function validationText(
  file: string,
  language: ScriptLanguage,
  result: ValidationResult,
  asJson: boolean,
): string {
  if (asJson) return JSON.stringify(result, null, 2) + '\n';
  if (result.valid) return `${file}: valid (${language})\n`;
  const n = result.violations.length;
  return (
    // A message quotes the script (a format field, a name): its control characters are shown, not sent.
    result.violations
      .map((v) => `${file}:${v.line}:${v.column}: ${v.rule}: ${visible(v.message, '  ')}\n`)
      .join('') + `${n} violation${n === 1 ? '' : 's'}\n`
  );
}

const LANGS: readonly string[] = ['python', 'js', 'ts'];
const VALUED = new Set(['-w', '--workspace', '--sandbox', '--tools', '--lang']);
const FLAGS = new Set(['--strict', '--json']);

interface Plain {
  file: string;
  workspace: string | undefined;
  values: Map<string, string>;
  flags: Set<string>;
}

/** A plain `validate FILE` command line (see above), or undefined. */
function plain(argv: string[]): Plain | undefined {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const name = a === '-w' ? '--workspace' : a;
    if (VALUED.has(a)) {
      const v = argv[++i];
      if (v === undefined || v.startsWith('-') || values.has(name)) return undefined;
      values.set(name, v);
    } else if (FLAGS.has(a) && !flags.has(a)) flags.add(a);
    else if (a.startsWith('-')) return undefined;
    else operands.push(a);
  }
  if (operands.length !== 2 || operands[0] !== 'validate') return undefined;
  if (values.has('--sandbox') && values.has('--tools')) return undefined;
  const lang = values.get('--lang');
  if (lang !== undefined && !LANGS.includes(lang)) return undefined;
  return { file: operands[1]!, workspace: values.get('--workspace'), values, flags };
}

/** The answer of a plain `validate FILE` from the snapshot: what to print and the exit code; else undefined. */
export async function validateEarly(
  argv: string[],
  /** The workspace's snapshotKey when the caller computed it already (verb-cache.ts). */
  known?: { dir: string; files: string },
): Promise<{ out: string; code: number } | undefined> {
  const p = plain(argv);
  if (!p) return undefined;
  let code: string;
  try {
    code = readFileSync(p.file, 'utf8');
  } catch {
    return undefined;
  }
  const language =
    (p.values.get('--lang') as ScriptLanguage | undefined) ?? languageOfFile(p.file) ?? 'python';
  const listed = p.values.get('--tools');
  const tools =
    listed !== undefined
      ? {
          tools: listed
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        }
      : snapshotTools(p.workspace, p.values.get('--sandbox'), language, known);
  if (!tools) return undefined;
  const result = (await loadCliValidator(language))(code, { ...tools, strict: p.flags.has('--strict') });
  // A call of a name the snapshot does not know may be a tool the script may not call or a skill it is
  // not offered: the service says which, and why.
  if (listed === undefined && hasUnknownCall(result)) return undefined;
  return { out: validationText(p.file, language, result, p.flags.has('--json')), code: result.valid ? 0 : 1 };
}

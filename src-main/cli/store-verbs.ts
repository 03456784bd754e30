/**
 * `toolsmith runs list ...` and `toolsmith template list [--json]` answered before main loads (bin/start.mjs,
 * through verb-cache.ts `storeVerbBeforeMain`): they read the run store, which changes without any file of
 * the verb cache's key changing, so they cannot be answered from it; this path opens the store and
 * prints as main's verbs do (commands/run.ts, commands/template.ts, app/workspace-reader.ts), loading
 * none of commander, main's verbs table, zod (the config's schemas and the records'), the LLM clients
 * or the parsers (`template list` of a workspace with a templates folder loads the template files'
 * modules, with pyright's and Babel's parsers, to check each template as main's does). Neither verb
 * makes a container, so neither sweeps leftover containers (no socket to the engine, no node:net): the
 * next verb that may run a sandbox does (context.ts `sweep`; docs/scaling.md "Issue 29: runs list and
 * template list").
 * The config is not parsed: what opening it says (its warnings) and learns (the variables it names for
 * secrets) comes from its digest (config-digest.ts), which main's path keeps for an unchanged workspace.
 * Anything this path does not answer as main would is left to main, before anything is printed: a
 * command line it does not read whole (another option, a value commander would refuse or that is empty,
 * `--suite-run`, a help, the workspace option after the verb), a workspace that main would refuse, no
 * digest (a config changed, invalid or missing), `--sandbox` that lists no run (main tells whether the
 * sandbox exists), an error that is not the run store's. The run store's own errors (damaged, locked,
 * being recovered, overwritten) are said as main says them: one line, exit 3, and with `--json` the
 * error object on stdout; the store is opened once (opening it may move a damaged file aside).
 * docs/scaling.md, "Issue 29: runs list and template list before main".
 */
import { join } from 'node:path';
import { RUN_KINDS } from '../core/records/vocabulary.ts';
import type { RunKind, RunMode, RunStatus, Tier } from '../core/records/vocabulary.ts';
import { RUN_SORT_KEYS } from '../core/records/sort.ts';
import type { RunSortKey } from '../core/records/sort.ts';
import { knownSecrets } from '../core/records/redact.ts';
import { visible } from '../core/text/visible.ts';
import { runsListFilter, runsListText as pageText } from './runs-list-text.ts';
import type { RunsListFilters } from './runs-list-text.ts';
import { learnSecretsNamed } from '../app/env-secrets.ts';
import { holdWorkspaceRoot } from '../infra/workspace/atomic.ts';
import { resolveWorkspaceDir, workspaceProblem } from '../infra/workspace/init.ts';
import { configDigestKey, readConfigDigest } from './config-digest.ts';
import { loadJsSha256 } from './key-parts.ts';
import { namedSecretsSet, workspaceBeforeVerb } from './verb-cache.ts';
import { configWarningLine } from './config-words.ts';
import { printEarly, writeAll } from './early-write.ts';
import { STORE_ERRORS } from './store-errors.ts';
import type { RunStoreCore } from '../infra/store/run-store-core.ts';
import type { TemplateView } from '../core/templates/template.ts';

const { existsSync } = process.getBuiltinModule('node:fs');

/** `runs list`'s filters and options, as commands/run.ts takes them. */
interface RunsListOptions extends RunsListFilters {
  since?: number;
  until?: number;
  json?: boolean;
}

interface Asked {
  workspace: string | undefined;
  verb: 'runs list' | 'template list';
  runs: RunsListOptions;
}

/** The options of `runs list` that take a value: the values each may have (undefined: any). */
const RUNS_VALUES: Record<string, readonly string[] | undefined> = {
  '--status': ['running', 'succeeded', 'failed', 'cancelled', 'interrupted'],
  '--sandbox': undefined,
  '--kind': [...RUN_KINDS, 'all'],
  '--mode': ['plan', 'interactive'],
  '--model': undefined,
  '--tier': ['template', 'rule', 'llm', 'replay', 'edit'],
  '--since': undefined,
  '--until': undefined,
  '--search': undefined,
  '--limit': undefined,
  '--sort': RUN_SORT_KEYS,
  '--dir': ['asc', 'desc'],
};

/** `--limit`'s check (context.ts `parseIntOption('--limit', 1, 10000)`): undefined when refused. */
function limitOf(v: string): number | undefined {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 10000 ? n : undefined;
}

/** A date as `--since`/`--until` take it; undefined when main refuses it. */
function dateOf(v: string): number | undefined {
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

/**
 * The command line read whole as one of the two verbs, or undefined for main to run: only what main
 * takes the same way is read (a value main would refuse, or one left empty, is main's to say).
 */
export function storeVerbAsked(argv: string[]): Asked | undefined {
  // The workspace option, once, before the verb (a value that looks like an option: main's to read).
  const before = workspaceBeforeVerb(argv);
  if (!before) return undefined;
  const { workspace } = before;
  let i = before.next;
  const verb = `${argv[i] ?? ''} ${argv[i + 1] ?? ''}`;
  if (verb !== 'runs list' && verb !== 'template list') return undefined;
  const runs: RunsListOptions = { limit: 50 };
  const given: Record<string, string> = {};
  for (i += 2; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--json') runs.json = true;
    else if (a === '--count' && verb === 'runs list') runs.count = true;
    else if (verb === 'runs list' && a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a : a.slice(0, eq);
      if (!(name in RUNS_VALUES)) return undefined;
      const v = eq < 0 ? argv[++i] : a.slice(eq + 1);
      if (v === undefined || v.trim() === '' || (eq < 0 && v.startsWith('-'))) return undefined;
      // (each occurrence checked, as commander checks each: `--limit 0 --limit 5` is refused)
      const allowed = RUNS_VALUES[name];
      if (allowed && !allowed.includes(v)) return undefined;
      if (name === '--limit' && limitOf(v) === undefined) return undefined;
      if ((name === '--since' || name === '--until') && dateOf(v) === undefined) return undefined;
      given[name] = v;
    } else return undefined;
  }
  for (const [name, v] of Object.entries(given)) {
    if (name === '--limit') {
      const n = limitOf(v);
      if (n === undefined) return undefined;
      runs.limit = n;
    } else if (name === '--since' || name === '--until') {
      const t = dateOf(v);
      if (t === undefined) return undefined;
      runs[name === '--since' ? 'since' : 'until'] = t;
    } else if (name === '--status') runs.status = v as RunStatus;
    else if (name === '--sandbox') runs.sandbox = v;
    else if (name === '--kind') runs.kind = v as RunKind | 'all';
    else if (name === '--mode') runs.mode = v as RunMode;
    else if (name === '--model') runs.model = v;
    else if (name === '--tier') runs.tier = v as Tier;
    else if (name === '--search') runs.search = v;
    else if (name === '--sort') runs.sort = v as RunSortKey;
    else if (name === '--dir') runs.dir = v as 'asc' | 'desc';
  }
  return { workspace, verb, runs };
}

const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';

/** What the verb prints, as commands/run.ts's `runs list` prints it; undefined: main's to answer. */
function runsListText(store: RunStoreCore, o: RunsListOptions): string | undefined {
  const r = store.list(runsListFilter(o, o.since, o.until));
  // (no run of a --sandbox: main says whether that sandbox exists, from the workspace's files)
  if (o.sandbox !== undefined && r.runs.length === 0) return undefined;
  if (o.json) return json(r);
  return pageText(r);
}

/** What `template list` prints (stdout, stderr), as commands/template.ts prints it. */
async function templateListText(
  root: string,
  store: RunStoreCore,
  asJson: boolean,
): Promise<{ out: string; err: string }> {
  let list: TemplateView[] = [];
  let problems: { file: string; error: string }[] = [];
  // No templates folder (infra/workspace/files.ts TemplateFiles.list: none): nothing to parse, so not
  // the template files' modules and their parsers (pyright's and Babel's); the counters are still read,
  // as templateViews reads them (a damaged store is said the same).
  if (!existsSync(join(root, 'templates'))) store.templateStats();
  else {
    const [{ TemplateFiles }, { templateProblems, templateViews }] = await Promise.all([
      import('../infra/workspace/files.ts'),
      import('../app/template-views.ts'),
    ]);
    const files = new TemplateFiles(root);
    list = templateViews(files, store);
    problems = templateProblems(files);
  }
  if (asJson) return { out: json({ templates: list, problems }), err: '' };
  let out = '';
  let err = '';
  if (list.length === 0)
    err +=
      "no templates in this workspace: promote a run's working script with `toolsmith template create NAME --from-run RUN_ID`\n";
  for (const t of list)
    out += `${t.name.padEnd(20)} ${t.sandbox.padEnd(10)} ok ${String(t.successes).padStart(3)} fail ${String(t.failures).padStart(3)}  ${t.pattern}\n`;
  for (const p of problems) err += `${visible(p.error)}\n`;
  return { out, err };
}

/**
 * bin/start.mjs's step for `runs list` and `template list`: the answer printed and its exit code, or
 * undefined (nothing printed) for main() to run.
 */
export async function answerStoreVerb(argv: string[]): Promise<number | undefined> {
  const asked = storeVerbAsked(argv);
  if (!asked) return undefined;
  let dir: string;
  try {
    dir = resolveWorkspaceDir(asked.workspace);
    if (workspaceProblem(dir, asked.workspace ?? dir) !== undefined) return undefined;
  } catch {
    return undefined;
  }
  // (for an unchanged workspace nothing is hashed but the secrets of the digest key's signature, when a
  // variable the config names is set: in JS then, not node:crypto; the verbs file's name is no SHA-256)
  if (namedSecretsSet(dir)) await loadJsSha256();
  const key = configDigestKey(dir);
  const digest = key === undefined ? undefined : readConfigDigest(dir, key);
  if (!digest) return undefined;
  const asJson = asked.runs.json === true;
  const [{ RunStoreCore }, { prepareLogFile }] = await Promise.all([
    import('../infra/store/run-store-core.ts'),
    import('../app/log-file.ts'),
  ]);
  // What opening the workspace said and learned (app/workspace-reader.ts: the config's secrets, then its
  // warnings; the workspace's folder held as WorkspaceFiles holds it).
  learnSecretsNamed(digest.secrets);
  holdWorkspaceRoot(dir);
  const configWords = digest.warnings.map(configWarningLine).join('');
  const dataDir = join(dir, '.toolsmith');
  let store: RunStoreCore | undefined;
  let logWords = '';
  let answer: { out: string; err: string };
  try {
    store = new RunStoreCore(`${dataDir}/runs.db`);
    // (its log, as app/workspace-reader.ts `runStore` prepares it; said as log-file.ts `stderrWarn` says)
    prepareLogFile(dataDir, (line) => (logWords += `toolsmith: ${line}\n`));
    if (asked.verb === 'runs list') {
      const out = runsListText(store, asked.runs);
      if (out === undefined) {
        store.close();
        return undefined;
      }
      answer = { out, err: '' };
    } else answer = await templateListText(dir, store, asked.runs.json === true);
  } catch (e) {
    try {
      store?.close();
    } catch {
      // (the error below is the one main would say)
    }
    if (!(e instanceof Error && STORE_ERRORS.has(e.name))) return undefined;
    // As main says a store's error (cli/main.ts): one line on stderr (exit 3); with --json before any
    // `--`, the error object on stdout too.
    writeAll(2, knownSecrets.text(configWords) + logWords);
    const line = e.message;
    const out = asJson ? `${JSON.stringify({ error: { kind: 'store', message: line, exit: 3 } })}\n` : '';
    return printEarly(knownSecrets.text(out), knownSecrets.text(`toolsmith: ${visible(line)}\n`), 3);
  }
  let closeError: Error | undefined;
  try {
    store.close();
  } catch (e) {
    if (!(e instanceof Error && STORE_ERRORS.has(e.name))) return undefined;
    closeError = e;
  }
  writeAll(2, knownSecrets.text(configWords) + logWords);
  const code = printEarly(knownSecrets.text(answer.out), knownSecrets.text(answer.err), 0);
  if (code !== 0) return code;
  // (an error of the close after the answer: said on stderr only, as main says it)
  if (closeError) writeAll(2, knownSecrets.text(`toolsmith: ${visible(closeError.message)}\n`));
  return closeError ? 3 : 0;
}

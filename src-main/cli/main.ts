/**
 * The `toolsmith` command. Usage errors exit 2 with a one-line reason; `--help` works on every verb.
 * Exit codes: 0 success, 1 a negative answer (invalid script, failed run), 2 usage, 3 other errors.
 */
import { knownSecrets } from '../core/records/redact.ts';
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ToolsmithError } from '../app/errors.ts';
import { createContext, languageAlias, UsageError } from './context.ts';
import { exitOnStop, onUnhandledStop } from './signals.ts';
import type { CliContext } from './context.ts';
import { MCP_DESCRIPTION } from '../mcp/mcp-tool-names.ts';
import { cachedVerb, releaseEarlyMcp, startEarlyMcp, verbOf, writeVerbAnswer } from './verb-cache.ts';
import { OutputError, systemErrorLine } from '../core/errors.ts';
import { visible } from '../core/text/visible.ts';
import { STORE_ERRORS } from './store-errors.ts';

export { STORE_ERRORS };

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

type Register = (program: Command, ctx: CliContext) => void;

/**
 * Each verb's module, loaded only when that verb runs (all of them for the top-level help): a one-shot
 * verb pays for its own imports, not for every SDK the others use.
 */
const VERBS: [string[], () => Promise<Register>][] = [
  [['validate'], async () => (await import('./commands/validate.ts')).registerValidate],
  [['prompt'], async () => (await import('./commands/prompt.ts')).registerPrompt],
  [['tools'], async () => (await import('./commands/tools.ts')).registerTools],
  [['kit'], async () => (await import('./commands/kit.ts')).registerKit],
  [['sandboxes'], async () => (await import('./commands/sandboxes.ts')).registerSandboxes],
  [['serve'], async () => (await import('./commands/serve.ts')).registerServe],
  [['run'], async () => (await import('./commands/run.ts')).registerRun],
  [['runs'], async () => (await import('./commands/run.ts')).registerRuns],
  [['template'], async () => (await import('./commands/template.ts')).registerTemplate],
  [['skill'], async () => (await import('./commands/skill.ts')).registerSkill],
  [['mcp'], async () => (await import('./commands/mcp.ts')).registerMcp],
  [['exec', 'pool', 'tool'], async () => (await import('./commands/exec.ts')).registerExec],
  [['image'], async () => (await import('./commands/image.ts')).registerImage],
  [['init'], async () => (await import('./commands/init.ts')).registerInit],
  [['eval'], async () => (await import('./commands/eval.ts')).registerEval],
  [['mcp-servers'], async () => (await import('./commands/mcp-servers.ts')).registerMcpServers],
];

/** Verbs that open no service (or only on a slow path, loading it themselves). */
const LIGHT = new Set(['init', 'image', 'sandboxes', 'validate']);

/**
 * Listing verbs that read the workspace through `ctx.reader()` (app/workspace-reader.ts: its config and
 * files, the run store) and load none of the service's modules (the validators, pino, the suites...),
 * or load it themselves on a path that needs it (`runs list --suite-run`).
 */
const READERS = new Set(['runs list', 'template list', 'skill list', 'mcp-servers list']);

/** Whether `argv` runs a verb of READERS (`runs list`: the verb, then its subcommand). */
function readerVerb(argv: string[]): boolean {
  const verb = verbOf(argv);
  if (verb === undefined) return false;
  return READERS.has(`${verb} ${verbOf(argv.slice(argv.indexOf(verb) + 1)) ?? ''}`);
}

/**
 * The top-level help's line per verb (`toolsmith --help`, no verb, an unknown verb): printed from this
 * table without loading any verb's module. A unit test compares it with the help of the real verbs.
 */
export const VERB_SUMMARIES: [name: string, term: string, description: string][] = [
  ['validate', 'validate [options] <file>', 'check a script statically; exit 0 when valid, 1 when not'],
  ['prompt', 'prompt [options]', 'print the prompt an LLM gets for a task (first attempt, or a retry)'],
  [
    'tools',
    'tools [options]',
    "print a sandbox's tools as the LLM reads them (xml), as OpenAI function schemas, or as JSON",
  ],
  ['kit', 'kit', 'list, inspect and create kits (named subsets of tools with aliases)'],
  ['sandboxes', 'sandboxes [options]', 'list the sandboxes of the workspace'],
  [
    'serve',
    'serve [options]',
    'serve the workbench to a browser on 127.0.0.1 (prints a URL with a one-time token)',
  ],
  [
    'run',
    'run [options] <task>',
    'turn a task into a verified result: templates -> rules -> LLM, validated and run in the sandbox',
  ],
  ['runs', 'runs', 'list, inspect, export, import and replay recorded runs'],
  ['template', 'template', 'templates: verified scripts that serve a matching intent with no LLM call'],
  ['skill', 'skill', 'skills: tested functions, saved from scripts, that later scripts call'],
  ['mcp', 'mcp [options]', MCP_DESCRIPTION],
  [
    'exec',
    'exec [options] <file>',
    'run a script in a sandbox (validated first unless --no-validate); exit 0 on success, 1 otherwise',
  ],
  ['pool', 'pool', 'the sandbox pool'],
  ['tool', 'tool', 'run one tool'],
  ['image', 'image', 'sandbox images (built offline)'],
  [
    'init',
    'init [options] [dir]',
    'create a workspace in DIR (default: the current folder): a copy of the sample, or --empty',
  ],
  [
    'eval',
    'eval [options] [suite]',
    'run a test suite (suites/NAME.toml): cases x models, pass rates, tokens, cost, latency',
  ],
  [
    'mcp-servers',
    'mcp-servers',
    'the MCP servers the workspace imports tools from ([mcp_servers.NAME] in config.toml)',
  ],
];

/** Every verb that takes `--lang` also takes `--language`, and the other way round (context.ts). */
function acceptBothLanguageFlags(cmd: Command): void {
  const longs = new Set(cmd.options.map((o) => o.long));
  if (longs.has('--lang') && !longs.has('--language')) languageAlias(cmd, 'lang');
  else if (longs.has('--language') && !longs.has('--lang')) languageAlias(cmd, 'language');
  for (const sub of cmd.commands) acceptBothLanguageFlags(sub);
}

/**
 * The program with the verbs `argv` needs: the one verb it names, loaded; else (no verb, an unknown
 * one, `help`) every verb as a stub from VERB_SUMMARIES, enough for the top-level help and for
 * commander's "unknown command" error. `full` registers every real verb (tests compare the two).
 */
export async function buildProgram(ctx: CliContext, argv: string[] = [], full = false): Promise<Command> {
  const verb = verbOf(argv);
  const one = VERBS.find(([names]) => verb !== undefined && names.includes(verb));
  const help = argv.includes('--help') || argv.includes('-h');
  const reads = readerVerb(argv);
  if (one && !help && !LIGHT.has(verb ?? '') && !reads) await ctx.loadService();
  const registers =
    full || one ? await Promise.all((one && !full ? [one] : VERBS).map(([, load]) => load())) : [];
  const program = new Command('toolsmith')
    .description('Build, test and debug the tools and scripts that LLM agents run')
    .version(version)
    .option(
      '-w, --workspace <dir>',
      'workspace folder (default: the current folder when it holds .toolsmith/, else the sample workspace)',
    )
    .showHelpAfterError(false)
    .configureOutput({ writeOut: ctx.out, writeErr: ctx.err, outputError: () => {} });
  program.exitOverride();
  for (const register of registers) register(program, ctx);
  acceptBothLanguageFlags(program);
  if (!full && !one) {
    const terms = new Map<string, string>();
    for (const [name, term, description] of VERB_SUMMARIES) {
      program.command(name).description(description);
      terms.set(name, term);
    }
    program.configureHelp({
      subcommandTerm: (cmd) => terms.get(cmd.name()) ?? `${cmd.name()} [command]`,
    });
    // `help VERB`: the verb's own help, with its module loaded.
    if (verb === 'help') {
      const named = argv[argv.indexOf('help') + 1];
      if (named && VERBS.some(([names]) => names.includes(named)))
        return buildProgram(ctx, [named, '--help'], full);
    }
  }
  program.hook('preAction', (_p, action) => refuseEmptyValues(action));
  // Connects the MCP servers of the sandbox a verb uses first, so MCP tools are listed like native ones.
  program.hook('preAction', async (_p, action) => {
    // (a listing verb uses no sandbox's tools: prepareMcpForCommand has nothing to connect for it)
    if (LIGHT.has(verb ?? '') || reads) return;
    await (await import('./commands/mcp-servers.ts')).prepareMcpForCommand(ctx, action);
  });
  for (const cmd of allCommands(program)) {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: ctx.out, writeErr: ctx.err, outputError: () => {} });
  }
  return program;
}

/** Options whose empty value means something: `--description ""` is no description. */
const MAY_BE_EMPTY = new Set(['--description']);

/**
 * A value left empty, as a shell leaves an unset variable (`runs show "$ID"`, `--pattern "$P"`): a usage
 * error naming what is empty, before the verb runs. Before, `runs show ""` said "no run " and
 * `template create --file s.py --pattern ""` said "--file needs --pattern" (it was given), while
 * `--from-run ID --pattern ""` proposed a pattern of its own as if none were given.
 */
function refuseEmptyValues(action: Command): void {
  const blank = (v: unknown) =>
    (typeof v === 'string' && v.trim() === '') ||
    (Array.isArray(v) && v.some((x) => typeof x === 'string' && x.trim() === ''));
  const path: string[] = [];
  for (let c: Command | null = action; c?.parent; c = c.parent) path.unshift(c.name());
  action.registeredArguments.forEach((arg, i) => {
    if (blank(action.processedArgs[i]))
      throw new UsageError(
        `${path.join(' ')}: ${arg.name().toUpperCase()} is empty${arg.description ? ` (${arg.description})` : ''}; usage: toolsmith ${path.join(' ')} ${action.usage()}`,
      );
  });
  for (let c: Command | null = action; c; c = c.parent)
    for (const opt of c.options) {
      if (opt.isBoolean() || MAY_BE_EMPTY.has(opt.long ?? '')) continue;
      if (c.getOptionValueSource(opt.attributeName()) !== 'cli') continue;
      const flag = opt.long ?? opt.flags;
      if (blank(c.getOptionValue(opt.attributeName())))
        throw new UsageError(`${flag} is empty: give a value, or leave ${flag} out`);
    }
}

/**
 * The first required argument missing from `argv` for the command it names, as a usage message, or
 * undefined. Commander checks required options before arguments, so `toolsmith exec` alone would only
 * say `--sandbox` is missing; the missing FILE (or TASK, NAME) is what a person forgot first.
 */
export function missingArgument(program: Command, argv: string[]): string | undefined {
  let cmd = program;
  let i = 0;
  const operands: string[] = [];
  const takesValue = (c: Command, a: string) => {
    const name = a.includes('=') ? undefined : a;
    const opt = [...c.options, ...program.options].find((o) => o.long === name || o.short === name);
    return !!opt && (opt.required || opt.optional);
  };
  for (; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('-') && a !== '-') {
      if (a === '-h' || a === '--help') return undefined;
      if (takesValue(cmd, a)) i++;
      continue;
    }
    const sub =
      operands.length === 0 ? cmd.commands.find((c) => c.name() === a || c.aliases().includes(a)) : undefined;
    if (sub) {
      cmd = sub;
      continue;
    }
    operands.push(a);
  }
  if (cmd === program) return undefined;
  const needed = cmd.registeredArguments.filter((r) => r.required);
  const missing = needed[operands.length];
  if (!missing) return undefined;
  const path: string[] = [];
  for (let c: Command | null = cmd; c && c !== program; c = c.parent) path.unshift(c.name());
  const what = missing.name().toUpperCase();
  return `${path.join(' ')}: missing ${what}${missing.description ? ` (${missing.description})` : ''}; usage: toolsmith ${path.join(' ')} ${cmd.usage()}`;
}

/**
 * `toolsmith kit bogus` (or `toolsmith bogus`): commander's "unknown command 'bogus'" with the group's
 * valid subcommands, so the user sees what to type instead of reading the help.
 */
export function unknownCommandLine(program: Command, argv: string[], message: string): string {
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a.startsWith('-')) {
      // `--workspace WS kit bogus`: an option's value is not a subcommand.
      const opt = [...cmd.options, ...program.options].find((o) => o.long === a || o.short === a);
      if (opt && (opt.required || opt.optional)) i++;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!sub) break;
    cmd = sub;
  }
  const names = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
  if (names.length === 0) return message;
  const path: string[] = [];
  for (let c: Command | null = cmd; c && c !== program; c = c.parent) path.unshift(c.name());
  return `${message}; ${['toolsmith', ...path].join(' ')} commands: ${names.join(', ')}`;
}

/** The command `argv` addresses (its verb, or a group's subcommand), options and their values skipped. */
function addressed(program: Command, argv: string[]): Command {
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--') break;
    if (a.startsWith('-')) {
      const opt = [...cmd.options, ...program.options].find((o) => o.long === a || o.short === a);
      if (opt && (opt.required || opt.optional)) i++;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (sub) cmd = sub;
  }
  return cmd;
}

/**
 * commander's "unknown option '--x'" with what to type instead: its own "(Did you mean --y?)", which is
 * on a second line and was dropped, and, for a language option given to a verb that takes a runtime
 * (`exec --lang bun`) or a runtime given to one that takes a language (`run --runtime bun`), the verb's
 * own flag. Before, each said only "unknown option '--lang'".
 */
export function unknownOptionLine(program: Command, argv: string[], message: string): string {
  const [first = message, ...rest] = message.split('\n');
  const line = first.replace(/^error: /, '');
  const name = /unknown option '([^'=]+)/.exec(line)?.[1];
  const cmd = addressed(program, argv);
  // (the flag its help shows: `--lang` and `--language` are one option, the other hidden)
  const shown = (flags: string[]) =>
    cmd.options.find((o) => !o.hidden && o.long !== undefined && flags.includes(o.long))?.long;
  const path: string[] = [];
  for (let c: Command | null = cmd; c && c !== program; c = c.parent) path.unshift(c.name());
  const verb = ['toolsmith', ...path].join(' ');
  const at = argv.indexOf(name ?? '');
  const given = at >= 0 ? argv[at + 1] : undefined;
  const runtime = shown(['--runtime']);
  const language = shown(['--lang', '--language']);
  if ((name === '--lang' || name === '--language') && runtime) {
    const pick =
      given && ['python', 'node', 'bun', 'deno'].includes(given)
        ? `give ${runtime} ${given}`
        : `give ${runtime} python|node|bun|deno`;
    return `${line}: ${verb} takes no language (a script's language comes from its file name: .py, .js, .ts); to pick the runtime that runs it, ${pick}`;
  }
  if (name === '--runtime' && language)
    return `${line}: ${verb} takes a script language, ${language} python|js|ts, not a runtime (js and ts scripts run on node; toolsmith exec FILE --runtime bun|deno runs one on another)`;
  const mean = rest.map((l) => /^\(Did you mean (.+)\?\)$/.exec(l.trim())?.[1]).find((x) => x);
  return mean ? `${line}: did you mean ${mean}?` : line;
}

function allCommands(c: Command): Command[] {
  return c.commands.flatMap((s) => [s, ...allCommands(s)]);
}

const firstLine = (s: string) => s.split('\n')[0]?.replace(/^error: /, '') ?? s;

/** Options of `mcp` that mean it does not serve stdio (or fails before it would). */

export async function main(
  argv: string[],
  rawOut: (t: string) => void = (t) => process.stdout.write(t),
  rawErr: (t: string) => void = (t) => process.stderr.write(t),
): Promise<number> {
  // `mcp` on stdio answers the client's initialize before anything else loads (mcp/stdio-early.ts); an
  // HTTP-only option without --http is a usage error that Commander reports, so no early server then.
  await startEarlyMcp(argv);
  // `kit list`, `kit info`, `tools`, `prompt`, `sandboxes`, `skill list`, `mcp-servers list` and `validate
  // FILE` answer from the last answer of an unchanged workspace and script (`runs list` and `template list`
  // read the store before main: cli/store-verbs.ts), a help from the last one of the same code and
  // terminal (verb-cache.ts).
  const cached = cachedVerb(argv, version);
  if (cached?.hit) {
    rawOut(cached.hit.out);
    rawErr(cached.hit.err);
    return cached.hit.code ?? 0;
  }
  // What the CLI prints passes the redactor of known secrets (keys, credentials) like stored records.
  const out = (t: string) => {
    const shown = knownSecrets.text(t);
    if (cached) cached.out += shown;
    try {
      rawOut(shown);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw typeof code === 'string' ? new OutputError(code) : e;
    }
  };
  // A pipe's reader gone or a full disk behind an asynchronous stdout: one line, not an uncaught error.
  const onOutputError = (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    rawErr(`toolsmith: ${new OutputError(e.code ?? 'EIO').message}\n`);
    process.exit(3);
  };
  if (process.stdout.listenerCount('error') === 0) process.stdout.on('error', onOutputError);
  const err = (t: string) => {
    const shown = knownSecrets.text(t);
    if (cached) cached.err += shown;
    rawErr(shown);
  };
  const ctx = createContext(out, err);
  /** A help commander printed (exit 0): kept for the next start to print before main loads. */
  const keepHelp = () => {
    if (cached?.help) writeVerbAnswer(cached.dir, { key: cached.key, out: cached.out, err: cached.err });
  };
  // A stop signal before a command handles its own (or for a verb with nothing to cancel): close the
  // service (pools' containers removed, runs recorded) and exit 128+n, within STOP_GRACE_MS (before, a
  // Docker engine that took the connection and never answered held the close, and the process, until
  // the engine's patience ran out, or for ever).
  const offStop = onUnhandledStop((sig) => exitOnStop(sig, () => ctx.close(), err));
  let program: Command | undefined;
  // The verb ran to its end (its answer, JSON with --json, is out): an error after it (the store's close)
  // is said on stderr only, never as a second JSON document on stdout.
  let answered = false;
  try {
    program = await buildProgram(ctx, argv);
    if (argv.length === 0) {
      out(program.helpInformation());
      keepHelp();
      return 0;
    }
    const missing = missingArgument(program, argv);
    if (missing) throw new UsageError(missing);
    await program.parseAsync(argv, { from: 'user' });
    answered = true;
    // An answer is kept: a success, or `validate`'s "invalid" (exit 1); never a usage or other error.
    // (A help argument that commander did not take as one, `exec x.py -- -h`: nothing kept.)
    const validate = verbOf(argv) === 'validate';
    if (cached && !cached.help && (ctx.exitCode === 0 || (validate && ctx.exitCode === 1))) {
      const svc = ctx.opened();
      const reader = ctx.openedReader();
      const usesMcp = Object.values((svc ? svc.workspace.config() : reader?.config)?.sandboxes ?? {}).some(
        (sb) => Object.keys(sb.mcp).length > 0,
      );
      // `validate` without the service checked the script against the sandboxes snapshot (never written
      // for workspaces with MCP servers) or --tools: both are in the key. `sandboxes` without the service
      // printed that snapshot, whose key is part of the verb's. `skill list` and `mcp-servers list` read
      // the workspace without the service (app/workspace-reader.ts); `mcp-servers list` connects to no
      // server, so its answer is the config's, MCP servers or not.
      if (
        svc
          ? !usesMcp && svc.workspace.root() === cached.dir
          : reader
            ? (!usesMcp || verbOf(argv) === 'mcp-servers') && reader.files.root === cached.dir
            : validate || verbOf(argv) === 'sandboxes'
      )
        writeVerbAnswer(cached.dir, {
          key: cached.key,
          out: cached.out,
          err: cached.err,
          ...(ctx.exitCode === 0 ? {} : { code: ctx.exitCode }),
        });
    }
    await ctx.close();
    offStop();
    return ctx.exitCode;
  } catch (e) {
    // An error's message may quote what a file, a workspace or a server chose (a file name, a value):
    // shown through visible(), so no control character in it acts on the terminal.
    // With --json (before any `--`), the error is also one JSON object on stdout, so a program reading
    // it gets JSON on every path: {"error": {"kind", "code"?, "message", "exit"}} (the line stays on stderr).
    const json = jsonAsked(argv) && !answered;
    const said = (line: string, kind: string, exit: number, code?: string): number => {
      err(`toolsmith: ${visible(line)}\n`);
      if (json) {
        try {
          out(`${JSON.stringify({ error: { kind, ...(code ? { code } : {}), message: line, exit } })}\n`);
        } catch {
          // (stdout gone: the line on stderr said it)
        }
      }
      return exit;
    };
    const say = (line: string) => err(`toolsmith: ${visible(line)}\n`);
    await ctx.close().catch(() => {});
    offStop();
    await releaseEarlyMcp(argv);
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed') {
        keepHelp();
        return 0;
      }
      if (e.code === 'commander.version') return 0;
      // 'commander.help' is both `help` asked for (exit code 0) and a group verb run without its
      // subcommand (`toolsmith kit`: the help on stderr, exit code 1), which is a usage error.
      if (e.code === 'commander.help') {
        if (e.exitCode !== 0) return 2;
        keepHelp();
        return 0;
      }
      if (e.code === 'commander.unknownCommand' && program)
        return said(unknownCommandLine(program, argv, firstLine(e.message)), 'usage', 2);
      if (e.code === 'commander.unknownOption' && program)
        return said(unknownOptionLine(program, argv, e.message), 'usage', 2);
      return said(firstLine(e.message), 'usage', 2);
    }
    if (e instanceof UsageError || e instanceof InvalidArgumentError)
      return said(firstLine(e.message), 'usage', 2);
    if (e instanceof ToolsmithError)
      // The caller's input (a bad value, a name that exists without --force, an unknown name) is a usage
      // error; the rest (refused by a rule, config, infrastructure) is not.
      return said(
        e.message,
        'toolsmith',
        e.code === 'invalid_argument' || e.code === 'not_found' ? 2 : 3,
        e.code,
      );
    // Expected failures of the machine (the store's file, a file the user named, a full disk) are one
    // line naming the file and the cause; a stack is kept for real bugs.
    if (e instanceof OutputError) {
      say(e.message); // (stdout is what failed)
      return 3;
    }
    // A name given on the command line that no workspace file may have (`eval ../x`): a usage error.
    if (e instanceof Error && e.name === 'InvalidNameError') return said(e.message, 'usage', 2);
    if (e instanceof Error && STORE_ERRORS.has(e.name)) return said(e.message, 'store', 3);
    const sys = systemErrorLine(e);
    if (sys) return said(sys.line, 'system', sys.exit);
    return said(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, 'internal', 3);
  }
}

/** Whether the command line asks for JSON output (`--json` before any `--`). */
function jsonAsked(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

export { verbOf };

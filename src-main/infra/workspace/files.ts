/**
 * The workspace on disk: `.toolsmith/config.toml`, `sandboxes/<name>/tools.py`, `kits/*.kit`,
 * `templates/*.tmpl`. Reads and writes files; parsing into domain objects happens in core/app.
 */
import { existsSync, lstatSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml, TomlError } from 'smol-toml';
import { splitTemplateFile, templateFromParts, templateFrontMatter } from '../../core/templates/file.ts';
import { TemplateError } from '../../core/templates/template.ts';
import type { Template } from '../../core/templates/template.ts';
import { errorMessage } from '../../core/errors.ts';
import { NotAFileError, readRegularFile } from './regular-file.ts';
import {
  atomicWrite,
  folderProblem,
  holdWorkspaceRoot,
  readWorkspaceText,
  WorkspaceError,
  WorkspaceFileError,
  workspaceFolder,
  workspaceGone,
} from './atomic.ts';
import { didYouMean } from '../../core/text/near-names.ts';

// Kept in ./atomic.ts (no TOML or template parser behind them) and exported from here as before.
export { atomicWrite, WorkspaceError, WorkspaceFileError, workspaceFolder };

/** The largest tools.py a sandbox loads (its tools' code, not their data). */
export const MAX_TOOLS_BYTES = 4 * 1024 * 1024;

const megabytes = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** Guards every name that becomes a path segment (sandbox, kit, template): no traversal, no separators. */
/** A name the caller gave that no file of the workspace may have: the caller's input, not the workspace. */
export class InvalidNameError extends WorkspaceError {
  override name = 'InvalidNameError';
}

export function checkName(kind: string, name: string): string {
  if (!NAME.test(name) || name.includes('..'))
    throw new InvalidNameError(`invalid ${kind} name ${JSON.stringify(name)}: use letters, digits, _ . -`);
  return name;
}

export function parseTomlFile(file: string, text: string): Record<string, unknown> {
  try {
    return parseToml(text);
  } catch (e) {
    if (e instanceof TomlError)
      throw new WorkspaceError(
        `${file}:${e.line}:${e.column}: ${tomlWhat(e, text)}${cutShort(text, e.line) ?? ''}`,
        file,
      );
    throw e;
  }
}

/**
 * The parser's words for what is wrong; an unclosed table header (`[limi` at the end of a file cut
 * short) is named as such, where the parser says "incomplete key-value: cannot find end of key".
 */
function tomlWhat(e: TomlError, text: string): string {
  const said = e.message.split('\n')[0] ?? e.message;
  const line = (text.split('\n')[e.line - 1] ?? '').trim();
  if (/^\[/.test(line) && !line.includes(']'))
    return `a table header that is not closed (${JSON.stringify(line)}: it needs its "${line.startsWith('[[') ? ']]' : ']'}")`;
  return said;
}

/**
 * Said after an error found on the file's last line when the file does not end with a line break:
 * the file stops in the middle of that line, as a file written only in part does (an editor or a
 * script that died while writing it, a disk that filled, a copy cut short); undefined otherwise.
 */
export function cutShort(text: string, line: number): string | undefined {
  if (text === '' || text.endsWith('\n')) return undefined;
  const lines = text.split('\n');
  if (line < lines.length) return undefined;
  return (
    `; the file ends there, in the middle of line ${lines.length} (${quotedLastLine(lines)}), with no line break: ` +
    `it looks cut short (written only in part, or still being written); finish it or put back a whole copy`
  );
}

/**
 * Where a config that parses stops: its last line's number and end, when the file does not end with a
 * line break (a file written only in part, or still being written, that happens to parse); undefined
 * when it ends with one.
 */
export function endsMidLine(text: string): { line: number; last: string } | undefined {
  if (text === '' || text.endsWith('\n')) return undefined;
  const lines = text.split('\n');
  return {
    line: lines.length,
    last: quotedLastLine(lines),
  };
}

/**
 * A config's last line as it is quoted in a warning (its last 40 characters), its strings of 8
 * characters or more shown as `"…"`: an MCP server's `env` takes literal values (`TOKEN = "ghp_..."`),
 * and a last line holding one was quoted on every verb's stderr and in a server's log. Short strings
 * (`"http`, a table's name) stay.
 */
export function quotedLastLine(lines: readonly string[]): string {
  return JSON.stringify(withoutStrings(lines[lines.length - 1] ?? '').slice(-40));
}

function withoutStrings(line: string): string {
  return line.replace(/("|')((?:\\.|(?!\1)[^\\])*)(\1|$)/g, (all, q: string, body: string, end: string) =>
    body.length >= 8 ? `${q}…${end}` : all,
  );
}

/**
 * Added to a config's error (a reference to a table it lacks) when the file ends in the middle of a
 * line: the missing table may be in the part that was not written. Empty when it ends with a line break.
 */
export function cutShortHint(text: string): string {
  const end = endsMidLine(text);
  if (!end) return '';
  return (
    `; the file ends in the middle of line ${end.line} (${end.last}) with no line break: ` +
    `it looks cut short (written only in part, or still being written); put back a whole copy`
  );
}

/**
 * The table header a config ends in with nothing under it (`[limits]`, then only blank lines, with or
 * without a final line break), its line and the text without it; undefined otherwise.
 */
export function endsInBareHeader(
  text: string,
): { line: number; header: string; without: string } | undefined {
  const lines = text.split('\n');
  let i = lines.length - 1;
  while (i >= 0 && lines[i]!.trim() === '') i--;
  if (i < 0) return undefined;
  const header = lines[i]!.trim();
  // A standard table or an array-of-tables element, its name bare, quoted or dotted (no value after it).
  if (!/^\[\[?\s*[^[\]#=]+?\s*\]\]?$/.test(header)) return undefined;
  return { line: i + 1, header, without: lines.slice(0, i).join('\n') + (i > 0 ? '\n' : '') };
}

/**
 * A config that parses and is valid but looks cut short, said to a process that has no config in use
 * to compare it with (a one-shot verb; a server's first read): whatever the file lacks falls back to its
 * defaults, so it is a warning, with the words of the live server's refusal. Two shapes:
 *
 * - It ends in a bare table header (`[limits]` and nothing under it), and that empty table changes
 *   nothing (`sameWithout`: the config read without the header is the same). The text cannot tell a
 *   writer that stopped right after the header from a person who left the table empty: both are the
 *   same bytes. But an empty table that changes nothing has no reason to be written last, while one
 *   that does (`[sandboxes.shop.mcp.files]`: the sandbox is offered all of that server's tools) is a
 *   whole statement: only the first is warned about, with or without a final line break (a cut can
 *   fall either side of it). docs/reliability.md.
 * - It ends in the middle of a line (no final line break), on a number or a comment.
 */
export function cutShortWarning(
  file: string,
  text: string,
  sameWithout?: (textWithoutLastHeader: string) => boolean,
): string | undefined {
  const bare = endsInBareHeader(text);
  if (bare && sameWithout?.(bare.without))
    return (
      `${file}:${bare.line}: the file ends with the table header ${quotedLastLine([bare.header])} and nothing under it, which is the same as no such table: ` +
      `if it is cut short (written only in part, or still being written), the keys under it and the tables after it are missing and their defaults apply; ` +
      `put back a whole copy, or remove the empty table if the shorter config is meant`
    );
  const end = endsMidLine(text);
  if (!end) return undefined;
  // A last line that ends a value whole (a string's quote, an array's or table's bracket, a brace,
  // true, false) is how an editor that adds no final line break saves a file (VS Code's default): a
  // cut that still parses stops in a comment, a number, or at a line's very end, and only a line
  // ending in a number or a comment is worth the warning on every verb. (A live server compares the
  // tables with the config in use instead: refuseCutShort in app/service.ts.)
  const last = text.slice(text.lastIndexOf('\n') + 1).trimEnd();
  if (!last.includes('#') && /(["'\]}]|\btrue|\bfalse)$/.test(last)) return undefined;
  return (
    `${file}:${end.line}: the file ends in the middle of line ${end.line} (${end.last}) with no line break: ` +
    `if it is cut short (written only in part, or still being written), the tables after the cut are missing and their defaults apply; ` +
    `put back a whole copy, or end the file with a line break if the shorter config is meant`
  );
}

/**
 * The config file's text, or undefined when there is none (the defaults apply). A path that exists
 * but cannot be read as a file (a folder, a named pipe, a symbolic link loop or to nothing, no permission) is refused
 * naming the file and the reason: it is never taken for a missing config.
 */
export function readConfigText(file: string): string | undefined {
  try {
    return readRegularFile(file, 'utf8');
  } catch (e) {
    // A WorkspaceFileError (a file the machine refused): a save that starts from it is answered as
    // `infra` with this message, never as an internal error with a stack trace.
    if (e instanceof NotAFileError)
      throw new WorkspaceFileError(`${e.message}; the workspace's config must be a TOML file`, file);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      let link = false;
      try {
        link = lstatSync(file).isSymbolicLink();
      } catch {
        return undefined;
      }
      if (!link) return undefined;
      throw new WorkspaceFileError(
        `${file} cannot be read: it is a symbolic link to ${readlinkSync(file)}, which does not exist`,
        file,
      );
    }
    const why: Record<string, string> = {
      EISDIR: 'it is a folder, not a file',
      ELOOP: 'it is a symbolic link loop',
      EACCES: 'permission denied: this user may not read it',
      EPERM: 'permission denied: this user may not read it',
      ENOTDIR: 'a part of its path is not a folder',
    };
    const todo =
      code === 'EACCES' || code === 'EPERM'
        ? 'make it readable by this user'
        : "the workspace's config must be a TOML file";
    throw new WorkspaceFileError(
      `${file} cannot be read: ${why[code ?? ''] ?? (e as Error).message} (${code}); ${todo}`,
      file,
    );
  }
}

export class WorkspaceFiles {
  readonly root: string;
  /** Sandboxes the config declares without a tools.py (MCP tools only). */
  declaredSandboxes: ReadonlySet<string> = new Set();
  /**
   * The text the service itself last wrote to config.toml (a provider or MCP server saved from a front
   * end): the workspace watcher does not report the service's own save as an edit made on disk.
   */
  ownConfigText: string | undefined;
  /**
   * Why config.toml on disk is not the config in use (an edit that did not validate: the last good one
   * stays), until a good edit or a save replaces it; asked by `system.status`, so a page opened or
   * reloaded after the refusal still says it.
   */
  configProblem: string | undefined;
  /** What the config in use holds that does nothing (`[approval]` names matching none), as said. */
  configWarnings: string[] = [];
  /**
   * The text of the config in use: read at open or at the last good reload, or the service's own save
   * (undefined while the workspace has no config file).
   */
  inUseConfigText: string | undefined;

  constructor(root: string) {
    if (!existsSync(root) || !statSync(root).isDirectory())
      throw new WorkspaceError(`workspace ${root} does not exist`);
    this.root = root;
    holdWorkspaceRoot(root);
  }

  get configFile(): string {
    return join(this.root, '.toolsmith', 'config.toml');
  }

  get dataDir(): string {
    return join(this.root, '.toolsmith');
  }

  /** Replaces config.toml with `text` (written whole, then renamed over the old file). */
  writeConfig(text: string): void {
    workspaceFolder(this.root, dirname(this.configFile), 'the config (config.toml)');
    atomicWrite(this.configFile, text);
    this.ownConfigText = text;
    this.inUseConfigText = text;
  }

  /**
   * The config's text that an edit from a front end (a provider, an MCP server, a new sandbox) starts
   * from: the file's; when the file is gone under a live service (deleted, renamed away), the text of
   * the config in use, so that the save writes the whole config back, not a file holding only the edit.
   */
  editableConfigText(): string {
    return readConfigText(this.configFile) ?? this.inUseConfigText ?? '';
  }

  readConfig(): Record<string, unknown> {
    const text = readConfigText(this.configFile);
    return text === undefined ? {} : parseTomlFile(this.configFile, text);
  }

  sandboxNames(): string[] {
    const dir = join(this.root, 'sandboxes');
    if (!existsSync(dir)) return [...this.declaredSandboxes].sort();
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'tools.py')))
      .map((d) => d.name)
      .concat([...this.declaredSandboxes].filter((n) => !existsSync(join(dir, n, 'tools.py'))))
      .sort();
  }

  toolsFile(sandbox: string): string {
    return join(this.root, 'sandboxes', checkName('sandbox', sandbox), 'tools.py');
  }

  readTools(sandbox: string): string {
    const file = this.toolsFile(sandbox);
    if (!existsSync(file) && this.declaredSandboxes.has(sandbox)) return '';
    if (!existsSync(file)) {
      // The workspace folder moved or deleted under this process: that is the cause, not the sandbox.
      const gone = workspaceGone(this.root, `sandbox ${sandbox}'s tools.py`, 'read');
      if (gone) throw gone;
      throw new WorkspaceError(
        `no sandbox ${sandbox} in ${this.root}; ${didYouMean(sandbox, this.sandboxNames())}available: ${this.sandboxNames().join(', ') || 'none'}`,
      );
    }
    // A huge tools.py (generated data pasted in, a wrong file) is refused here, naming it and its size:
    // the worker would load it whole in every container, and say only that the load timed out.
    const st = statSync(file);
    if (!st.isFile()) readWorkspaceText(file); // (a folder, a named pipe: refused naming what is there)
    const size = st.size;
    if (size > MAX_TOOLS_BYTES)
      throw new WorkspaceError(
        `${file} is ${megabytes(size)}, above the ${megabytes(MAX_TOOLS_BYTES)} limit for a tools.py (it is loaded whole into every worker): move data out of it into files the tools read`,
        file,
      );
    return readWorkspaceText(file);
  }

  writeTools(sandbox: string, source: string): void {
    const file = this.toolsFile(sandbox);
    workspaceFolder(this.root, join(this.root, 'sandboxes', sandbox), `sandbox ${sandbox}'s tools.py`);
    atomicWrite(file, source);
    this.ownToolsText.set(sandbox, source);
  }

  /**
   * The text the service itself last wrote to each sandbox's tools.py (the Tools view's Save): the
   * workspace watcher does not report that save as an edit made on disk (app/watch.ts).
   */
  readonly ownToolsText = new Map<string, string>();

  /** `.kit` files as parsed TOML, with their file names. */
  /** Every kit file, parsed; one that does not parse carries its error (file:line:column) instead. */
  kitFiles(): { file: string; data: Record<string, unknown>; error?: string }[] {
    const dir = join(this.root, 'kits');
    if (!existsSync(dir)) return [];
    const problem = folderProblem(dir);
    if (problem) return [{ file: dir, data: {}, error: problem }];
    return readdirSync(dir)
      .filter((f) => f.endsWith('.kit'))
      .sort()
      .map((f) => {
        const file = join(dir, f);
        try {
          return { file, data: parseTomlFile(file, readWorkspaceText(file)) };
        } catch (e) {
          return { file, data: {}, error: errorMessage(e) };
        }
      });
  }

  kitFile(name: string): string {
    return join(this.root, 'kits', `${checkName('kit', name)}.kit`);
  }

  writeKit(name: string, text: string): string {
    const file = this.kitFile(name);
    workspaceFolder(this.root, join(this.root, 'kits'), `kit ${name}`);
    atomicWrite(file, text);
    return file;
  }
}

/**
 * What a folder of the workspace holds (names, sizes, times), as the service last left it by its own
 * writes: the watcher (app/watch.ts) tells an edit on disk from the service's own save by it.
 */
const ownFolderState = new Map<string, string>();

function folderState(dir: string): string {
  try {
    return readdirSync(dir)
      .sort()
      .map((f) => {
        const st = statSync(join(dir, f));
        return `${f}\0${st.size}\0${st.mtimeMs}`;
      })
      .join('\n');
  } catch {
    return '';
  }
}

/** The service wrote into `dir`: what it holds now is its own doing. */
export function noteOwnWrite(dir: string): void {
  ownFolderState.set(dir, folderState(dir));
}

/** `dir` holds exactly what the service's last own write left there (no edit on disk since). */
export function isOwnState(dir: string): boolean {
  const own = ownFolderState.get(dir);
  return own !== undefined && own === folderState(dir);
}

export interface TemplateEntry {
  file: string;
  template?: Template;
  error?: string;
}

/** Reads, writes and deletes `templates/*.tmpl` (TOML front matter between +++ lines, then the body). */
export class TemplateFiles {
  readonly dir: string;
  private readonly root: string;
  constructor(root: string) {
    this.root = root;
    this.dir = join(root, 'templates');
  }

  file(name: string): string {
    return join(this.dir, `${checkName('template', name)}.tmpl`);
  }

  list(): TemplateEntry[] {
    if (!existsSync(this.dir)) return [];
    const problem = folderProblem(this.dir);
    if (problem) return [{ file: this.dir, error: problem }];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.tmpl'))
      .sort()
      .map((f) => {
        const file = join(this.dir, f);
        try {
          return { file, template: parseTemplateText(readWorkspaceText(file), file) };
        } catch (e) {
          return { file, error: errorMessage(e) };
        }
      });
  }

  write(t: Template): string {
    const file = this.file(t.name);
    workspaceFolder(this.root, this.dir, `template ${t.name}`);
    atomicWrite(file, `+++\n${stringifyToml(templateFrontMatter(t))}\n+++\n${t.body}`);
    noteOwnWrite(this.dir);
    return file;
  }

  delete(name: string): boolean {
    const file = this.file(name);
    if (!existsSync(file)) return false;
    rmSync(file);
    noteOwnWrite(this.dir);
    return true;
  }
}

export function parseTemplateText(text: string, file: string): Template {
  const { front, body } = splitTemplateFile(text, file);
  let data: Record<string, unknown>;
  try {
    data = parseToml(front);
  } catch (e) {
    throw new TemplateError(`${file}: front matter: ${errorMessage(e).split('\n')[0]}`);
  }
  return templateFromParts(data, body, file);
}

/** Reads every `*.md` in a prompts folder into `{name: text}`. */
export function readPromptFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir))
    if (f.endsWith('.md')) out[f.slice(0, -3)] = readWorkspaceText(join(dir, f));
  return out;
}

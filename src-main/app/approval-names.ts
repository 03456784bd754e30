/**
 * The `[approval]` table names sandboxes, kits and `sandbox.tool`s by hand. A name that matches none
 * (a typo: `ecommerc`) holds no call for approval, and nothing said so: the calls it was written to
 * stop ran without asking. Each such name is told (a warning: a sandbox or kit removed for a while
 * should not stop every verb), with the file, the line and the names there are.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { Config } from './config.ts';
import { lineOfField } from './config.ts';
import { didYouMean } from '../core/text/near-names.ts';
import { extractTools } from '../core/tools/extract.ts';

/**
 * A tools.py's tool names by its content (a SHA-256 of the text), for the `[approval]` check: it runs on
 * every tools change, config edit and sandbox made or removed, and parsing a sandbox's tools.py with
 * pyright took ~39 ms each time (the sample workspace) though the file had not changed. An unchanged text
 * is answered from here; a changed one is parsed (`parses` counts them). The last `max` texts are kept.
 */
export class ToolNamesByContent {
  /** How many times a tools.py was parsed (a text not seen before, or past the bound). */
  parses = 0;
  private readonly byHash = new Map<string, readonly string[] | undefined>();
  private readonly max: number;
  constructor(max = 64) {
    this.max = max;
  }

  /** The tools a tools.py defines, or undefined when it does not parse (its tools are not known). */
  names(source: string): readonly string[] | undefined {
    const hash = createHash('sha256').update(source).digest('hex');
    if (this.byHash.has(hash)) {
      const names = this.byHash.get(hash);
      this.byHash.delete(hash); // newest last
      this.byHash.set(hash, names);
      return names;
    }
    this.parses++;
    const { tools, problems } = extractTools(source);
    // A tools.py that does not parse: its tools are not known (the sandbox's own listing says why);
    // "has no tool get_user (tools: none), fix the name" named the wrong cause.
    const names = problems.some((p) => p.rule === 'syntax') ? undefined : tools.map((t) => t.name);
    this.byHash.set(hash, names);
    while (this.byHash.size > this.max) this.byHash.delete(this.byHash.keys().next().value!);
    return names;
  }
}

/** The process's one cache (every workspace's tools.py: the key is the text alone). */
export const toolNamesByContent = new ToolNamesByContent();

/**
 * The most names told one by one (as config-keys' MAX_KEY_WARNINGS): past it the rest are counted. 20 000
 * names that matched nothing were 20 000 lines on every verb's stderr, and took minutes to say.
 */
export const MAX_NAME_WARNINGS = 20;

export function approvalNameProblems(
  config: Config,
  file: string,
  text: string | undefined,
  sandboxes: readonly string[],
  kitFiles: readonly string[],
  /** The tools of a sandbox's tools.py, or undefined when they cannot be read (then nothing is said). */
  toolsOf?: (sandbox: string) => readonly string[] | undefined,
): string[] {
  const kits = kitFiles.map((f) => basename(f, '.kit'));
  // (each key's line looked for once: it was looked for in the whole text again for every name)
  const lines = new Map<string, string>();
  const at = (key: string) => {
    let where = lines.get(key);
    if (where === undefined) {
      const line = text === undefined ? undefined : lineOfField(text, ['approval', key]);
      where = `${file}${line ? `:${line}` : ''}: approval.${key}`;
      lines.set(key, where);
    }
    return where;
  };
  const names = (list: readonly string[]) => list.join(', ') || 'none';
  const held = 'no call is held for approval by it; fix the name';
  const out: string[] = [];
  for (const s of config.approval.sandboxes)
    if (!sandboxes.includes(s))
      out.push(
        `${at('sandboxes')} names no sandbox ${JSON.stringify(s)} (sandboxes: ${names(sandboxes)}): ${held}`,
      );
  for (const k of config.approval.kits)
    if (!kits.includes(k))
      out.push(`${at('kits')} names no kit ${JSON.stringify(k)} (kits: ${names(kits)}): ${held}`);
  for (const t of config.approval.tools) {
    const [sandbox = '', tool = ''] = t.split('.');
    if (!sandboxes.includes(sandbox)) {
      out.push(
        `${at('tools')} names ${JSON.stringify(t)}, whose sandbox ${JSON.stringify(sandbox)} does not exist (sandboxes: ${names(sandboxes)}): ${held}`,
      );
      continue;
    }
    // The tool itself, where all of the sandbox's tools are known without connecting to anything: its
    // tools.py alone (a sandbox with MCP servers gets tools only once they answer).
    if (Object.keys(config.sandboxes[sandbox]?.mcp ?? {}).length > 0 || !toolsOf) continue;
    const tools = toolsOf(sandbox);
    if (tools === undefined || tools.includes(tool)) continue;
    out.push(
      `${at('tools')} names ${JSON.stringify(t)}, but sandbox ${sandbox} has no tool ${JSON.stringify(tool)} (${didYouMean(tool, tools)}tools: ${names(tools)}): ${held}`,
    );
  }
  const more = out.length - MAX_NAME_WARNINGS;
  if (more <= 0) return out;
  return [
    ...out.slice(0, MAX_NAME_WARNINGS),
    `${file}: ${more} more [approval] name${more === 1 ? '' : 's'} that match nothing (the first ${MAX_NAME_WARNINGS} are named above): no call is held for approval by them; fix the names`,
  ];
}

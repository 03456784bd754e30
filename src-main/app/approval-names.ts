/**
 * The `[approval]` table names sandboxes, kits and `sandbox.tool`s by hand. A name that matches none
 * (a typo: `ecommerc`) holds no call for approval, and nothing said so: the calls it was written to
 * stop ran without asking. Each such name is told (a warning: a sandbox or kit removed for a while
 * should not stop every verb), with the file, the line and the names there are.
 */
import { basename } from 'node:path';
import type { Config } from './config.ts';
import { lineOfField } from './config.ts';
import { didYouMean } from '../core/text/near-names.ts';

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
  const at = (key: string) => {
    const line = text === undefined ? undefined : lineOfField(text, ['approval', key]);
    return `${file}${line ? `:${line}` : ''}: approval.${key}`;
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
  return out;
}

/**
 * Progressive disclosure of a large tool set: instead of the full manual (every tool with its
 * parameters, types, examples and stubs), an index — one line per tool, its signature and the first
 * sentence of its description — and two tools the client's model calls for the rest: `search_tools`
 * (names and lines matching words) and `describe_tool` (one tool's full manual entry).
 */
import type { Tool } from './model.ts';
import { signatureFor, toolSignature, toolsPrompt } from './prompt.ts';
import type { ManualLanguage } from './prompt.ts';
import { rankTools } from './search.ts';
import { escapeText } from './xml.ts';

/**
 * The framework calls a script makes to discover its sandbox's tools at run time (Python
 * `search_tools`/`describe_tool`, JS `searchTools`/`describeTool`): tool_calls under these names, always
 * allowed, answered on the host from the sandbox's tool list (app/mcp.ts discoveryHostTools).
 */
export const DISCOVERY_CALLS: readonly string[] = ['search_tools', 'describe_tool'];

/** Sandboxes with more tools than this get the index instead of the full manual (default). */
export const FULL_MANUAL_MAX_TOOLS = 30;

/** The first sentence (or line) of a description, at most 160 characters. */
export function firstLine(description: string): string {
  const line = description.trim().split('\n')[0] ?? '';
  const sentence = /^(.+?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}

/**
 * The index: one line per tool, `signature: first sentence`, escaped as the full manual's text is (an
 * upstream MCP server's description or default holding `</tools-index>` closed the index and wrote
 * elements of its own into the `code` manual).
 */
export function toolsIndex(tools: readonly Tool[]): string {
  return `<tools-index count="${tools.length}">\n${tools.map((t) => `  ${escapeText(`${toolSignature(t)}: ${firstLine(t.description)}`)}`).join('\n')}\n</tools-index>\n`;
}

/** The full manual, or the index when there are more than `maxFull` tools. */
export function disclosedManual(
  tools: readonly Tool[],
  maxFull: number = FULL_MANUAL_MAX_TOOLS,
  full: () => string = () => toolsPrompt(tools),
): { kind: 'full' | 'index'; text: string } {
  return tools.length > maxFull ? { kind: 'index', text: toolsIndex(tools) } : { kind: 'full', text: full() };
}

/**
 * Tools ranked for a query (BM25 over split names, descriptions and parameters; see search.ts), best
 * first: one line per tool, its signature and first sentence.
 */
export function searchTools(
  tools: readonly Tool[],
  query: string,
  limit = 20,
  /** The caller's script language: a JS/TS script's `searchTools` read Python signatures. */
  language: ManualLanguage = 'python',
): { name: string; line: string }[] {
  return rankTools(tools, query, limit).map((t) => ({
    name: t.name,
    line: `${signatureFor(t, language)}: ${firstLine(t.description)}`,
  }));
}

/** A rough token count (about four characters per token for English and code). */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

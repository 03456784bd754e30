/**
 * The tools of one sandbox: extracted from tools.py plus host/MCP tools. The rendered tools prompt is
 * cached and invalidated whenever tools.py (or the host tool set) changes.
 */
import { extractTools } from './extract.ts';
import type { ExtractResult, SandboxTool } from './extract.ts';
import { toolsPrompt } from './prompt.ts';

/** FNV-1a, enough to notice that a source changed (not a security hash). */
export function contentHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0') + text.length.toString(16);
}

export class ToolRegistry {
  readonly sandbox: string;
  private sourceHash = '';
  private extracted: ExtractResult = { tools: [], problems: [] };
  private hostTools: SandboxTool[] = [];
  private hostToolProblems: string[] = [];
  private promptCache = new Map<string, string>();
  /** Increments on every change that invalidates the prompt. */
  version = 0;

  constructor(sandbox: string, source?: string) {
    this.sandbox = sandbox;
    if (source !== undefined) this.update(source);
  }

  /** Re-extracts when `source` differs from the last one; returns the extraction either way. */
  update(source: string): ExtractResult {
    const hash = contentHash(source);
    if (hash !== this.sourceHash) {
      this.sourceHash = hash;
      this.extracted = extractTools(source);
      this.invalidate();
    }
    return this.extracted;
  }

  /** The tools of the sandbox's MCP servers, with what is wrong in its selection of them. */
  setHostTools(tools: SandboxTool[], problems: string[] = []): void {
    this.hostTools = tools;
    this.hostToolProblems = problems;
    this.invalidate();
  }

  /** Problems in tools.py. */
  get problems(): ExtractResult['problems'] {
    return this.extracted.problems;
  }

  /** Problems in the sandbox's selection of MCP tools (an alias refused, a tool a server lacks). */
  get mcpProblems(): readonly string[] {
    return this.hostToolProblems;
  }

  /** Sandbox tools first, then host tools; a host tool never shadows a sandbox tool of the same name. */
  get tools(): SandboxTool[] {
    const names = new Set(this.extracted.tools.map((t) => t.name));
    return [...this.extracted.tools, ...this.hostTools.filter((t) => !names.has(t.name))];
  }

  get(name: string): SandboxTool | undefined {
    return this.tools.find((t) => t.name === name);
  }

  /** The tools manual for all tools, or for a subset (a kit), cached until the tools change. */
  prompt(subset?: readonly SandboxTool[]): string {
    const tools = subset ?? this.tools;
    const key = tools.map((t) => t.name).join(',');
    let cached = this.promptCache.get(key);
    if (cached === undefined) {
      cached = toolsPrompt(tools);
      this.promptCache.set(key, cached);
    }
    return cached;
  }

  private invalidate(): void {
    this.promptCache.clear();
    this.version++;
  }
}

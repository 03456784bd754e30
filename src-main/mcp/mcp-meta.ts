/**
 * What the MCP server says about itself beside its tools: the server's `instructions` (sent with the
 * answer to `initialize`, read by clients as a system hint) and each tool's title and annotations
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`: hints a client uses to decide
 * what to confirm with its user; docs/mcp-server.md).
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export const SERVER_INSTRUCTIONS = [
  'Toolsmith runs short scripts over a sandbox of tools, validated first and isolated in a container; every run is recorded.',
  'Prefer `code`: write one script that calls the tools it needs and ends with emit_result(value) (JS: emitResult(value)); one call replaces many tool round trips and answers only what the script emits.',
  'The `code` description is the manual (tools, parameters, rules). For a sandbox shown as an index, call `search_tools` with what you want to do in words, then `describe_tool` for the parameters.',
  '`delegate` hands a task in words to Toolsmith’s own model (templates and rules first). `validate` checks a script without running it.',
  'Recorded runs are resources (`toolsmith://runs/<id>`): read one to see why an earlier run failed (its result or error with the failing line, as compact XML).',
].join('\n');

/** Read-only look-ups: they change nothing and answer the same way again. */
const lookup: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * Scripts run the sandbox's tools, which may change things in the world (send, delete, pay): not
 * read-only, possibly destructive, and open-world (tools and the LLM reach outside Toolsmith).
 */
const runsTools: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

export const TOOL_META: Readonly<Record<string, { title: string; annotations: ToolAnnotations }>> = {
  code: { title: 'Run a script over the sandbox tools', annotations: runsTools },
  delegate: { title: 'Delegate a task to Toolsmith', annotations: runsTools },
  execute_code: { title: 'Execute code in a sandbox', annotations: runsTools },
  validate: { title: 'Validate a script', annotations: lookup },
  list_tools: { title: 'List sandbox tools', annotations: lookup },
  kit_info: { title: 'Describe a kit', annotations: lookup },
  list_templates: { title: 'List templates', annotations: lookup },
  search_tools: { title: 'Search tools', annotations: lookup },
  describe_tool: { title: 'Describe a tool', annotations: lookup },
  // A save writes a new version of a skill file (earlier versions are kept) and runs the skill's tests.
  save_skill: {
    title: 'Save a skill',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  // A suite runs cases through the LLM and records runs; its tools' effects are the cases' own.
  run_suite: {
    title: 'Run a test suite',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
};

/**
 * A tool's registration config: its title and annotations merged in, and its input shape made a strict
 * object. Every tool of the server registers through this, so none drops an argument it does not take:
 * the SDK strips unknown keys of a plain shape, so a client's typo (`sanbox`, `max_step`) ran with the
 * defaults without a word; now the call is a tool error naming the key (`Unrecognized key: "sanbox"`),
 * nothing runs, and the advertised input schema says `additionalProperties: false`.
 */
export function toolConfig<S extends z.ZodRawShape, C extends object>(
  name: string,
  config: C & { inputSchema: S },
): Omit<C, 'inputSchema'> & { inputSchema: z.ZodObject<S, z.core.$strict> } & Partial<
    (typeof TOOL_META)[string]
  > {
  const meta = TOOL_META[name];
  return {
    ...config,
    inputSchema: z.strictObject(config.inputSchema),
    ...(meta ? { title: meta.title, annotations: meta.annotations } : {}),
  };
}

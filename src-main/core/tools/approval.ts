/**
 * A person in the loop: tool calls that wait for a person's yes before they run (docs/tools.md,
 * "Approval"). The workspace's `[approval]` table names tools (any grade), kits and sandboxes (their
 * destructive tools, d = 2); a run's script then gets a gate: each call of such a tool is put to a person
 * by the surface that started the run (the workbench's dialog, the CLI's terminal, the MCP client's
 * elicitation), and a refusal is an error the script sees. Pure: no I/O.
 */
import type { Grade } from './grade.ts';
import type { JsonValue } from './model.ts';

/** The `[approval]` table of `.toolsmith/config.toml`. */
export interface ApprovalConfig {
  /** `sandbox.tool`: each call of the tool, whatever its grade. */
  tools?: readonly string[];
  /** Kit names: the destructive tools (d = 2) of a run that uses the kit. */
  kits?: readonly string[];
  /** Sandbox names: their destructive tools (d = 2), with any kit or none. */
  sandboxes?: readonly string[];
}

/** The effects ceiling from which a kit's or a sandbox's tools need approval: irreversible or external. */
export const DESTRUCTIVE_D = 2;

/**
 * The tool names (not aliases) of a run that need a person's approval per call, in a stable order.
 * `tools` are the run's tools with their grades (the real tool name, whatever alias the kit gives).
 */
export function approvalTools(
  config: ApprovalConfig | undefined,
  run: { sandbox: string; kit?: string | undefined; tools: readonly { name: string; grade: Grade }[] },
): string[] {
  if (!config) return [];
  const named = new Set(config.tools ?? []);
  const wide =
    (config.sandboxes ?? []).includes(run.sandbox) || (!!run.kit && (config.kits ?? []).includes(run.kit));
  const out = new Set<string>();
  for (const t of run.tools)
    if (named.has(`${run.sandbox}.${t.name}`) || (wide && t.grade.d >= DESTRUCTIVE_D)) out.add(t.name);
  return [...out].sort();
}

/** One call put to a person: what the surfaces show. */
export interface ApprovalRequest {
  runId?: string;
  sandbox: string;
  /** The tool's name, and the name the script called it by when a kit aliases it. */
  tool: string;
  alias?: string;
  args: Record<string, JsonValue>;
  /** The script line of the call (1-based, in the script's body) and its text, when the worker told. */
  line?: number;
  text?: string;
}

/** Who answered, and how. `via: 'none'` is the refusal of a surface that cannot ask anyone. */
export interface ApprovalAnswer {
  approved: boolean;
  via: 'workbench' | 'cli' | 'mcp' | 'none';
  /** Why it was refused (a person's choice, no terminal, a client without elicitation...). */
  reason?: string;
}

/** Puts one call to a person; the signal aborts when the job ends first (the question is withdrawn). */
export type ApprovalAsk = (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** A job's gate: the tools whose calls wait, and who answers. */
export interface ApprovalGate {
  tools: readonly string[];
  ask: (call: Omit<ApprovalRequest, 'sandbox' | 'runId'>, signal: AbortSignal) => Promise<ApprovalAnswer>;
}

/** The error the script sees (and the call's recorded error) when a call is refused. */
export function refusalMessage(tool: string, a: ApprovalAnswer): string {
  return `ToolRefused: ${tool} was not approved${a.reason ? ` (${a.reason})` : ''}`;
}

/** The answer of a surface that has no one to ask, naming how to allow the call. */
export const NO_ONE_TO_ASK: ApprovalAnswer = {
  approved: false,
  via: 'none',
  reason:
    'no one to ask: run it from a terminal or the workbench, or remove the tool from [approval] in .toolsmith/config.toml',
};

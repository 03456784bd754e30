/**
 * What a PLAN retry's prompt tells the LLM about a failed script's error (core/script/hints.ts), for
 * those who wrote the script themselves: a person at `exec`, an agent calling the MCP server's `code` or
 * `execute_code`. `'ToolResponse' object has no attribute 'name'` comes with where the field is.
 */
import type { ScriptLanguage } from '../core/lang/violation.ts';
import type { ExecutionError } from '../core/sandbox/execution.ts';
import { formatExecutionError } from '../core/script/generator.ts';
import { hintsFor } from '../core/script/hints.ts';
import type { Tool } from '../core/tools/model.ts';

export function errorHints(
  tools: () => readonly Tool[],
  script: string,
  language: ScriptLanguage,
  error: ExecutionError,
): string[] {
  let known: readonly Tool[] = [];
  try {
    known = tools();
  } catch {
    // a sandbox whose tools cannot be listed now: the hints that need no tool still apply
  }
  return hintsFor({ error: formatExecutionError(error), script, tools: known, language });
}

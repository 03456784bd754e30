/**
 * A tool call's outcome in the CLI's lines: the exception it raised, FAILED with the tool's own message
 * when it answered `ToolResponse(success=False)` (a call that returned is not an "ok" one for that), or ok.
 * Everything a tool chose is shown through visible(): control characters never act on the terminal.
 */
import type { SkillCallTrace, ToolCallTrace } from '../core/sandbox/execution.ts';
import { visible } from '../core/text/visible.ts';

export function toolCallOutcome(t: ToolCallTrace, raised: string, indent: string): string {
  if (t.error) return `${raised} ${visible(t.error, indent)}`;
  if (t.result?.success === false)
    return `FAILED${t.result.message ? ` — ${visible(t.result.message, indent)}` : ''}`;
  return 'ok';
}

/**
 * One skill call for a person (docs/skills.md): `skill chain_tier #2 in #1({"user_id":"u2"}) returned
 * 1.2 ms`, `raised ValueError: ...` or `still running when the job ended`.
 */
export function skillCallLine(c: SkillCallTrace): string {
  const outcome = c.error
    ? `raised ${visible(c.error.type)}: ${visible(c.error.message, '    ')}`
    : c.unfinished
      ? 'still running when the job ended'
      : 'returned';
  return `skill ${visible(c.name)} #${c.id}${c.parent !== undefined ? ` in #${c.parent}` : ''}(${visible(JSON.stringify(c.args))}) ${outcome} ${c.ms} ms`;
}

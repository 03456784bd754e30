/**
 * A tool call's outcome in the CLI's lines: the exception it raised, FAILED with the tool's own message
 * when it answered `ToolResponse(success=False)` (a call that returned is not an "ok" one for that), or ok.
 * Everything a tool chose is shown through visible(): control characters never act on the terminal.
 */
import type { ToolCallTrace } from '../core/sandbox/execution.ts';
import { visible } from '../core/text/visible.ts';

export function toolCallOutcome(t: ToolCallTrace, raised: string, indent: string): string {
  if (t.error) return `${raised} ${visible(t.error, indent)}`;
  if (t.result?.success === false)
    return `FAILED${t.result.message ? ` — ${visible(t.result.message, indent)}` : ''}`;
  return 'ok';
}

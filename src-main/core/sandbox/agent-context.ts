/**
 * `ToolExecutionResult.toAgentContext()`: an execution rendered as the `<tool_execution>` XML an agent keeps
 * in its history. Text is escaped; long payloads are cut with a note so the history stays bounded.
 */
import { attrs, element, escapeText } from '../tools/xml.ts';
import type { ExecutionResult } from './execution.ts';

export interface AgentContextOptions {
  /** Longest JSON kept for the result and for each intermediate (default 4,000 characters). */
  maxChars?: number;
  /** Attributes naming the call (e.g. the tool or script that ran). */
  name?: string;
}

const cut = (s: string, max: number) =>
  s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;

export function toAgentContext(r: ExecutionResult, opts: AgentContextOptions = {}): string {
  const max = opts.maxChars ?? 4000;
  const lines: string[] = [];
  lines.push(
    `<tool_execution${attrs({ name: opts.name, success: r.success, exit_reason: r.exitReason, isolation: r.isolation, runtime: r.runtime, duration_ms: r.durationMs })}>`,
  );
  if (r.data !== undefined) lines.push(`  <result>${escapeText(cut(JSON.stringify(r.data), max))}</result>`);
  if (r.intermediates.length) {
    lines.push('  <intermediates>');
    for (const i of r.intermediates)
      lines.push(`    <item>${escapeText(cut(JSON.stringify(i), max))}</item>`);
    lines.push('  </intermediates>');
  }
  if (r.toolCalls.length) {
    lines.push('  <tool_calls>');
    for (const c of r.toolCalls) {
      const a = attrs({
        name: c.name,
        location: c.location,
        ms: c.ms,
        success: c.result?.success ?? false,
        refused: c.refused || undefined,
      });
      lines.push(c.error ? `    <call${a}><error>${escapeText(c.error)}</error></call>` : `    <call${a}/>`);
    }
    lines.push('  </tool_calls>');
  }
  if (r.logs.length) lines.push(`  <logs>${escapeText(cut(r.logs.join('\n'), max))}</logs>`);
  if (r.error) {
    lines.push(`  <error${attrs({ type: r.error.type })}>`);
    lines.push(element('message', r.error.message, '    ').trimEnd());
    for (const f of r.error.frames)
      lines.push(`    <frame${attrs({ line: f.line, name: f.name })}>${escapeText(f.text ?? '')}</frame>`);
    lines.push('  </error>');
  }
  lines.push('</tool_execution>');
  return lines.filter(Boolean).join('\n') + '\n';
}

/**
 * `ToolExecutionResult.toAgentContext()`: an execution rendered as the `<tool_execution>` XML an agent keeps
 * in its history. Text is escaped; long payloads are cut with a note so the history stays bounded.
 */
import { attrs, element, escapeText } from '../tools/xml.ts';
import type { ExecutionResult } from './execution.ts';
import type { AttemptRecord, RunRecord } from '../records/records.ts';

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
      // A failed ToolResponse's message says why (the tool's own words): the history keeps it.
      const failure = c.result?.success === false ? c.result.message : undefined;
      lines.push(
        c.error
          ? `    <call${a}><error>${escapeText(c.error)}</error></call>`
          : failure
            ? `    <call${a}><message>${escapeText(cut(failure, 500))}</message></call>`
            : `    <call${a}/>`,
      );
    }
    // Calls past the bound of recorded ones (limits.tool_calls) are only counted.
    if (r.toolCallsNotRecorded) lines.push(`    <not_recorded${attrs({ count: r.toolCallsNotRecorded })}/>`);
    lines.push('  </tool_calls>');
  }
  if (r.logs.length) lines.push(`  <logs>${escapeText(cut(r.logs.join('\n'), max))}</logs>`);
  if (r.error) {
    lines.push(`  <error${attrs({ type: r.error.type })}>`);
    lines.push(element('message', r.error.message, '    ').trimEnd());
    for (const f of r.error.frames)
      lines.push(
        `    <frame${attrs({ line: f.line, file: f.file, skill: f.skill, name: f.name })}>${escapeText(f.text ?? '')}</frame>`,
      );
    lines.push('  </error>');
  }
  lines.push('</tool_execution>');
  return lines.filter(Boolean).join('\n') + '\n';
}

/**
 * A recorded run for an agent's next turn: the run's outcome as `<run>` XML, one line per earlier
 * attempt (why it failed), and the last attempt's execution whole (`<tool_execution>`, with the failing
 * line when it raised) or its validation violations. What an MCP client reads in the `code` and
 * `delegate` answers and in a run resource (`toolsmith://runs/<id>`), in a fraction of the full record.
 */
export function runAgentContext(rec: RunRecord, opts: AgentContextOptions = {}): string {
  const max = opts.maxChars ?? 2000;
  const last = rec.attempts[rec.attempts.length - 1];
  const lines: string[] = [];
  lines.push(
    `<run${attrs({ id: rec.id, status: rec.status, mode: rec.started.mode, sandbox: rec.started.sandbox, kit: rec.started.kit, attempts: rec.attempts.length, tier: rec.tier, model: rec.model })}>`,
  );
  lines.push(element('task', cut(rec.started.task, 500), '  ').trimEnd());
  for (const a of rec.attempts.slice(0, -1))
    lines.push(`  <attempt${attrs({ n: a.n, tier: a.tier, outcome: attemptOutcome(a) })}/>`);
  if (last) {
    lines.push(`  <attempt${attrs({ n: last.n, tier: last.tier })}>`);
    if (last.step) lines.push(element('step', last.step.summary, '    ').trimEnd());
    if (last.validation && !last.validation.valid) {
      lines.push('    <validation valid="false">');
      for (const v of last.validation.violations)
        lines.push(
          `      <violation${attrs({ rule: v.rule, line: v.line })}>${escapeText(v.message)}</violation>`,
        );
      lines.push('    </validation>');
    }
    if (last.execution)
      lines.push(
        toAgentContext(last.execution, { maxChars: max })
          .trimEnd()
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n'),
      );
    lines.push('  </attempt>');
  }
  if (rec.error && rec.status !== 'succeeded')
    lines.push(element('error', cut(rec.error, max), '  ').trimEnd());
  lines.push('</run>');
  return lines.filter(Boolean).join('\n') + '\n';
}

/** Why an attempt did not end the run, in a few words. */
function attemptOutcome(a: AttemptRecord): string {
  if (a.validation && !a.validation.valid)
    return `invalid: ${a.validation.violations.map((v) => `line ${v.line}: ${v.message}`).join('; ')}`.slice(
      0,
      300,
    );
  const e = a.execution?.error;
  if (e) return `${e.type}: ${e.message}`.slice(0, 300);
  if (a.llmErrors.length)
    return `llm error: ${a.llmErrors[a.llmErrors.length - 1]?.message ?? ''}`.slice(0, 300);
  if (a.execution) return a.execution.success ? 'ok' : a.execution.exitReason;
  return 'no script';
}

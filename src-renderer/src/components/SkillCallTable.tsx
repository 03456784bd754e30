/**
 * The skill calls of a job (docs/skills.md, "How a skill runs"): each call under the skill call that made
 * it (indented), with its arguments, how it ended (what it returned is the script's; the exception it
 * raised, or still running when the job ended), how long it ran and how many tool calls it made. A call
 * that failed is marked as a failed tool call is, so a person debugging a skill sees which call failed.
 * Runs recorded before skill calls were, and jobs that called no skill, show nothing.
 */
import type { SkillCallTrace, ToolCallTrace } from '../../../src-main/core/sandbox/execution.ts';

export function SkillCallTable({
  calls,
  toolCalls,
  notRecorded = 0,
}: {
  calls: SkillCallTrace[] | undefined;
  toolCalls: ToolCallTrace[];
  notRecorded?: number | undefined;
}) {
  if (!calls?.length) return null;
  const depth = new Map<number, number>();
  for (const c of calls) depth.set(c.id, c.parent !== undefined ? (depth.get(c.parent) ?? 0) + 1 : 0);
  return (
    <section className="skill-calls" data-testid="skill-calls">
      <h4>Skill calls ({calls.length + notRecorded})</h4>
      <table className="tool-calls" aria-label="skill calls">
        <thead>
          <tr>
            <th>skill</th>
            <th>args</th>
            <th>outcome</th>
            <th>ms</th>
            <th>tool calls</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((c) => (
            <tr
              key={c.id}
              className={c.error || c.unfinished ? 'row-error' : ''}
              data-skill-call={c.id}
              data-parent={c.parent}
            >
              <td style={{ paddingLeft: `${0.5 + (depth.get(c.id) ?? 0) * 1.5}em` }}>
                <code>{c.name}</code> <span className="muted small">#{c.id}</span>
                {c.parent !== undefined ? (
                  <span className="muted small" title={`called by skill call #${c.parent}`}>
                    {' '}
                    in #{c.parent}
                  </span>
                ) : null}
              </td>
              <td>
                <code className="small">{JSON.stringify(c.args)}</code>
              </td>
              <td>
                {c.error ? (
                  <span className="error">
                    raised {c.error.type}
                    {c.error.message ? `: ${c.error.message}` : ''}
                  </span>
                ) : c.unfinished ? (
                  <span className="error">still running when the job ended</span>
                ) : (
                  <span className="muted">returned</span>
                )}
              </td>
              <td>{c.ms.toFixed(1)}</td>
              <td>{toolCalls.filter((t) => t.skillCall === c.id).length}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {notRecorded ? (
        <p className="callout small" data-testid="skill-calls-not-recorded">
          {notRecorded} more skill call{notRecorded === 1 ? '' : 's'} not recorded (past the first{' '}
          {calls.length}; limits.tool_calls)
        </p>
      ) : null}
    </section>
  );
}

/**
 * "This skill would have saved N tool-call lines in M runs": for each skill of a suite's sandbox, the
 * suite's runs whose script made the skill's tool calls inline.
 *
 * The match is a simple sequence match over the recorded tool calls, chosen over matching the script's
 * syntax because it holds for Python and JS/TS alike and for any way a script spells the steps:
 * - a skill's sequence is the tools it calls, in the order their first call appears in its source;
 * - a run's sequence is the tool calls its last executed attempt recorded, without the calls a skill made
 *   (they already use one) or that were refused, with repeats in a row collapsed to one (a loop's calls);
 * - the skill's sequence, collapsed the same way, must appear in the run's as a contiguous run of names.
 * N counts the script lines of the matched runs that call one of the sequence's tools (a line calling
 * `name(` textually): the lines a call of the skill would replace. Only runs whose script language may
 * call the skill count (`skillOfferedTo`: a JS skill saves nothing in a Python script).
 */
import type { ScriptLanguage } from '../lang/violation.ts';
import { skillOfferedTo } from './offered.ts';
import type { SkillStatus } from './views.ts';

export interface SkillSaving {
  skill: string;
  status: SkillStatus;
  /** The tools the skill calls, in the order it calls them first. */
  sequence: string[];
  /** Script lines, over the matched runs, that call the sequence's tools inline. */
  lines: number;
  /** Runs whose script calls the sequence inline. */
  runs: number;
  matches: { runId: string; caseId: string; column: string; lines: number[] }[];
}

/** A skill as the match needs it. */
export interface SavingSkill {
  name: string;
  status: SkillStatus;
  source: string;
  /** Its language (python when absent): only runs whose scripts may call it count. */
  language?: ScriptLanguage | undefined;
  /** The tools it calls (any order). */
  tools: readonly string[];
}

/** A run's last executed script and the tool calls it recorded. */
export interface SavingRun {
  runId: string;
  caseId: string;
  column: string;
  body: string;
  /** The script's language (python when absent). */
  language?: ScriptLanguage | undefined;
  calls: readonly { name: string; skill?: string | undefined; refused?: boolean | undefined }[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const callRe = (tool: string) => new RegExp(`(^|[^\\w.])${escape(tool)}\\s*\\(`);

/** The tools a skill calls, in the order their first call appears in its source. */
export function toolSequence(source: string, tools: readonly string[]): string[] {
  return tools
    .map((t) => ({ t, at: source.search(callRe(t)) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.t);
}

const collapse = (names: readonly string[]) => names.filter((n, i) => i === 0 || names[i - 1] !== n);

/** Whether `seq` appears in `calls` as a contiguous run of names (both collapsed). */
export function callsInline(seq: readonly string[], calls: SavingRun['calls']): boolean {
  const want = collapse(seq);
  if (!want.length) return false;
  // A call a skill made or a refused call breaks a sequence: it is not an inline step.
  const got = collapse(calls.map((c) => (c.skill !== undefined || c.refused ? '\u0000' : c.name)));
  outer: for (let i = 0; i + want.length <= got.length; i++) {
    for (let j = 0; j < want.length; j++) if (got[i + j] !== want[j]) continue outer;
    return true;
  }
  return false;
}

/** The script's lines (1-based) that call one of `tools` textually. */
export function toolCallLines(body: string, tools: readonly string[]): number[] {
  const res = tools.map(callRe);
  return body.split('\n').flatMap((line, i) => (res.some((r) => r.test(line)) ? [i + 1] : []));
}

/** Every skill that calls at least one tool, with the runs that made its calls inline. */
export function skillSavings(skills: readonly SavingSkill[], runs: readonly SavingRun[]): SkillSaving[] {
  return skills.flatMap((s) => {
    const sequence = toolSequence(s.source, s.tools);
    if (!sequence.length) return [];
    // A run whose script could not call the skill (a JS skill, a Python script) is no saving of it.
    const matches = runs
      .filter((r) => skillOfferedTo(s.language ?? 'python', r.language ?? 'python'))
      .filter((r) => callsInline(sequence, r.calls))
      .map((r) => ({
        runId: r.runId,
        caseId: r.caseId,
        column: r.column,
        lines: toolCallLines(r.body, sequence),
      }));
    return [
      {
        skill: s.name,
        status: s.status,
        sequence,
        lines: matches.reduce((a, m) => a + m.lines.length, 0),
        runs: matches.length,
        matches,
      },
    ];
  });
}

/** One line per skill: "spent_by would have saved 6 tool-call lines in 3 runs (get_orders)". */
export function formatSaving(s: SkillSaving): string {
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${s.skill}${s.status === 'passed' ? '' : ` (${s.status})`} would have saved ${plural(s.lines, 'tool-call line')} in ${plural(s.runs, 'run')} (${s.sequence.join(' → ')})`;
}

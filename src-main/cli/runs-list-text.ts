/**
 * What `runs list` prints for a page of runs, one line each and the count: shared by the verb
 * (commands/run.ts) and its answer before main (store-verbs.ts), which must print the same bytes.
 * The tier padded to the longest (`template`): a `replay` or `template` run's task no longer starts
 * further right than an `llm` run's.
 */
import type { RunPage } from '../core/records/summary.ts';
import { visible } from '../core/text/visible.ts';

export function runsListText(r: RunPage): string {
  let text = '';
  for (const s of r.runs)
    text += `${s.id}  ${new Date(s.createdAt).toISOString().slice(0, 19)}Z  ${s.status.padEnd(11)} ${s.sandbox.padEnd(10)} ${s.mode.padEnd(11)} ${String(s.attempts).padStart(2)} att ${String(s.tokens).padStart(6)} tok  ${(s.tier ?? '-').padEnd(8)}  ${s.kind === 'template_test' ? '[template test] ' : s.kind === 'skill_test' ? '[skill test] ' : ''}${visible(s.task.slice(0, 60).replace(/\n/g, ' '))}\n`;
  return (
    text +
    (r.totalExact
      ? `${r.runs.length} of ${r.total} run(s)\n`
      : `${r.runs.length} of ${r.total}+ run(s) (--count for the exact number)\n`)
  );
}

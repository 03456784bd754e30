/**
 * Template drafts, pure: what the template editor holds, made from an existing template (edit) or from
 * a run and the service's proposal (promote), and an example's expected value parsed from its text.
 */
import type { Response, RunRecordView, TemplateInfo } from '../../../../src-main/contract/api.ts';
import type { SlotType } from '../../../../src-main/core/templates/template.ts';
import { suggestName } from './pattern.ts';
import { messageOf } from '../../lib/submit.ts';

export interface ExampleDraft {
  intent: string;
  /** JSON text; empty means "no expected value". */
  expect: string;
}

export interface TemplateDraft {
  name: string;
  pattern: string;
  slots: Record<string, SlotType>;
  body: string;
  sandbox: string;
  kit?: string;
  language: 'python' | 'js' | 'ts';
  examples: ExampleDraft[];
  description: string;
}

/** Promote: the run and attempt the script comes from. Edit: the template's origin run, if any. */
export interface FromRun {
  runId: string;
  attempt?: number;
  task?: string;
  result?: unknown;
}

/** The draft of an existing template (its expected values as JSON text). */
export const draftOf = (t: TemplateInfo): TemplateDraft => ({
  name: t.name,
  pattern: t.pattern,
  slots: { ...t.slots },
  body: t.body,
  sandbox: t.sandbox,
  ...(t.kit ? { kit: t.kit } : {}),
  language: t.language,
  examples: t.examples.map((e) => ({
    intent: e.intent,
    expect: e.expect === undefined ? '' : JSON.stringify(e.expect),
  })),
  description: t.description ?? '',
});

/**
 * The draft of a promotion: the service's proposed pattern, slots and body, the run's task as the
 * first example, and the attempt it comes from (the one asked for when it has a script, else the last
 * that succeeded) with that attempt's result.
 */
export function promoteDraft(
  p: Response<'templates.propose'>,
  rec: RunRecordView,
  promote: { runId: string; attempt?: number | undefined },
): { draft: TemplateDraft; fromRun: FromRun } {
  const { attempt } = promote;
  const chosen = attempt !== undefined ? rec.attempts.find((a) => a.n === attempt) : undefined;
  const lastOk = [...rec.attempts].reverse().find((a) => a.execution?.success);
  const from = chosen?.script ? chosen : lastOk;
  const result = from?.execution?.success ? from.execution.data : undefined;
  return {
    draft: {
      name: suggestName(p.pattern),
      pattern: p.pattern,
      slots: p.slots,
      body: p.body,
      sandbox: p.sandbox,
      ...(p.kit ? { kit: p.kit } : {}),
      language: from?.script?.language ?? rec.started.language,
      examples: [{ intent: rec.started.task, expect: '' }],
      description: '',
    },
    fromRun: {
      runId: promote.runId,
      ...(from ? { attempt: from.n } : {}),
      task: rec.started.task,
      ...(result !== undefined ? { result } : {}),
    },
  };
}

/** An example's expected value: none for empty text, else its JSON (or why it is not JSON). */
export const parseExpect = (text: string): { value?: unknown; error?: string } => {
  if (!text.trim()) return {};
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: `not JSON: ${messageOf(e)}` };
  }
};

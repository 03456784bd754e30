/** The templates tier: the first template whose pattern matches the intent serves it without an LLM. */
import type { ScriptSource } from '../orchestrator/orchestrator.ts';
import { instantiate, matchTemplate } from './template.ts';
import type { Template } from './template.ts';

export function templateSource(
  templates: readonly Template[],
  onOutcome?: (name: string, success: boolean) => void,
): ScriptSource {
  return {
    tier: 'template',
    propose(task, ctx) {
      for (const t of templates) {
        if (t.sandbox !== ctx.sandbox || t.language !== ctx.language || (t.kit ?? '') !== (ctx.kit ?? ''))
          continue;
        const values = matchTemplate(t, task);
        if (values) return { name: t.name, body: instantiate(t, values) };
      }
      return undefined;
    },
    ...(onOutcome ? { outcome: onOutcome } : {}),
  };
}

/** The templates tier: the first template whose pattern matches the intent serves it without an LLM. */
import type { ScriptSource } from '../orchestrator/orchestrator.ts';
import { instantiate } from './slots.ts';
import { matchTemplate, nearestTemplate, NO_MORE } from './template.ts';
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
        if (values) return { name: t.name, body: instantiate(t, values), slots: values };
      }
      return undefined;
    },
    explainMiss(task, ctx) {
      const eligible = templates.filter(
        (t) => t.sandbox === ctx.sandbox && t.language === ctx.language && (t.kit ?? '') === (ctx.kit ?? ''),
      );
      const where = `sandbox ${ctx.sandbox}${ctx.kit ? `, kit ${ctx.kit}` : ''}, ${ctx.language}`;
      if (!templates.length) return { reason: 'no template is saved' };
      const near = nearestTemplate(eligible, task);
      if (!near) {
        const other = templates.find((t) => matchTemplate(t, task));
        return {
          reason: other
            ? `no template for ${where}; template ${other.name} matches the task but is for sandbox ${other.sandbox}${other.kit ? `, kit ${other.kit}` : ''}, ${other.language}`
            : `no template for ${where}`,
        };
      }
      // Where the task parts at a str slot followed by several words: say why they are not its value.
      const slot = /^\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(near.expected)?.[1];
      const t = eligible.find((x) => x.name === near.template);
      const why =
        slot && t?.slots[slot] === 'str' && /\S\s+\S/.test(near.found) && near.found !== NO_MORE
          ? ` ({${slot}} takes one word or a quoted text, and the task says more)`
          : '';
      return {
        reason: `nearest template ${near.template} ("${near.pattern}") differs at character ${near.position + 1} of the task: expected "${near.expected}", found "${near.found}"${why}`,
        ...near,
      };
    },
    ...(onOutcome ? { outcome: onOutcome } : {}),
  };
}

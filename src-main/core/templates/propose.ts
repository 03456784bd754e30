/**
 * A template proposed from a run: the pattern and slots from its task (proposePattern), each slot named
 * after what its value fills in the run's script (the tool parameter, the key, the variable:
 * slotNamesFromScript), and the body with those literals as the slots' placeholders.
 */
import type { ScriptLanguage } from '../lang/violation.ts';
import type { CallShape } from '../lang/signature.ts';
import type { JsonValue } from '../tools/model.ts';
import { literalsToSlots, slotNamesFromScript } from './slots.ts';
import { proposePattern } from './template.ts';
import type { SlotType } from './template.ts';

export interface ProposedTemplate {
  pattern: string;
  slots: Record<string, SlotType>;
  /** Each slot's value in the task. */
  values: Record<string, JsonValue>;
  /** The script with the slot values' literals as `{{slot}}` placeholders. */
  body: string;
}

/**
 * Proposes a template from a task and the script that did it. `shapes` (the signatures of the tools and
 * skills the script may call, by the names it calls them) name a slot passed by position
 * (`get_user("u1")` fills `user_id`).
 */
export function proposeTemplate(
  task: string,
  script: string,
  language: ScriptLanguage,
  shapes?: Readonly<Record<string, CallShape>>,
): ProposedTemplate {
  const p = proposePattern(task);
  const names = slotNamesFromScript(script, p.values, language, shapes);
  const rename = (slot: string) => names[slot] ?? slot;
  const pattern = p.pattern.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, slot: string) =>
    Object.hasOwn(p.slots, slot) ? `{${rename(slot)}}` : m,
  );
  const slots: Record<string, SlotType> = {};
  const values: Record<string, JsonValue> = {};
  for (const [slot, type] of Object.entries(p.slots)) slots[rename(slot)] = type;
  for (const [slot, v] of Object.entries(p.values)) values[rename(slot)] = v;
  return { pattern, slots, values, body: literalsToSlots(script, values, language) };
}

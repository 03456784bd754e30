/**
 * Template pattern analysis, pure: the `{slot}` placeholders of an intent pattern against the slot
 * types and the `{{slot}}` uses of the body (untyped, unused, unknown, duplicated, likely renamed), a
 * rename applied everywhere at once, and a template name suggested from a pattern.
 */
import { patternSlots } from '../../../../src-main/core/templates/template.ts';
import type { SlotType } from '../../../../src-main/core/templates/template.ts';

export const SLOT_TYPES: SlotType[] = ['str', 'int', 'float'];
/** A slot name: letters, digits and _, not starting with a digit. */
export const SLOT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface PatternParts {
  pattern: string;
  slots: Record<string, SlotType>;
  body: string;
}

/** `{{slot}}` placeholders used by a template body. */
export const bodySlots = (body: string): string[] => [
  ...new Set([...body.matchAll(/\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g)].map((m) => m[1] as string)),
];

/** Renames a slot everywhere: `{from}` in the pattern, its type, `{{from}}` in the body. */
export function renameSlot(p: PatternParts, from: string, to: string): PatternParts {
  const slots: Record<string, SlotType> = {};
  for (const [k, v] of Object.entries(p.slots)) {
    if (k === from) slots[to] = v;
    else if (k !== to) slots[k] = v;
  }
  if (!(from in p.slots) && p.slots[to]) slots[to] = p.slots[to];
  return {
    pattern: p.pattern.split(`{${from}}`).join(`{${to}}`),
    slots,
    body: p.body.split(`{{${from}}}`).join(`{{${to}}}`),
  };
}

export interface PatternAnalysis {
  inPattern: string[];
  duplicates: string[];
  untyped: string[];
  notInPattern: string[];
  bodyUnknown: string[];
  unusedInBody: string[];
  notSlots: string[];
  /** `{` with no `}` before the next `{` or the end (a slot left open: plain text to the service). */
  unclosed: string[];
  /** Exactly one untyped slot and one typed slot the pattern lost: most likely a rename. */
  rename?: { from: string; to: string };
}

export function analysePattern(p: PatternParts): PatternAnalysis {
  const all = patternSlots(p.pattern);
  const inPattern = [...new Set(all)];
  const duplicates = inPattern.filter((s) => all.indexOf(s) !== all.lastIndexOf(s));
  const untyped = inPattern.filter((s) => !p.slots[s]);
  const notInPattern = Object.keys(p.slots).filter((s) => !inPattern.includes(s));
  const used = bodySlots(p.body);
  const bodyUnknown = used.filter((s) => !inPattern.includes(s) && !p.slots[s]);
  const unusedInBody = inPattern.filter((s) => !used.includes(s));
  const notSlots = [...p.pattern.matchAll(/\{([^{}]*)\}/g)]
    .filter((m) => !SLOT_NAME.test(m[1] as string))
    .map((m) => m[0]);
  const unclosed = [...p.pattern.matchAll(/\{[^{}]*(?=\{|$)/g)].map((m) => m[0]);
  const rename =
    untyped.length === 1 && notInPattern.length === 1
      ? { from: notInPattern[0] as string, to: untyped[0] as string }
      : undefined;
  return {
    inPattern,
    duplicates,
    untyped,
    notInPattern,
    bodyUnknown,
    unusedInBody,
    notSlots,
    unclosed,
    ...(rename ? { rename } : {}),
  };
}

/** The problems that make the service refuse the template (used to label the save button). */
export const blockingPatternProblems = (a: PatternAnalysis): number =>
  a.duplicates.length + a.untyped.length + a.notInPattern.length + a.bodyUnknown.length;

/** A template name from a pattern: its words without the slots, lowercased and dashed. */
export const suggestName = (pattern: string): string =>
  pattern
    .replace(/\{[^{}]*\}/g, ' ')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '') || 'template';

/**
 * The `.tmpl` file format: TOML front matter between `+++` lines, then the script body.
 * Parsing TOML is the caller's (infra) job; this module splits and validates the shape.
 */
import type { JsonValue } from '../tools/model.ts';
import { checkTemplate } from './slots.ts';
import { TemplateError } from './template.ts';
import type { SlotType, Template, TemplateExample } from './template.ts';

export function splitTemplateFile(text: string, file = 'template'): { front: string; body: string } {
  const m = /^\+\+\+[ \t]*\r?\n([\s\S]*?)\r?\n\+\+\+[ \t]*\r?\n?([\s\S]*)$/.exec(text);
  if (!m) throw new TemplateError(`${file}: a template starts with TOML front matter between +++ lines`);
  return { front: m[1] ?? '', body: m[2] ?? '' };
}

const str = (v: unknown): v is string => typeof v === 'string';

/** Builds a Template from parsed front matter and body; throws TemplateError listing every problem. */
export function templateFromParts(front: Record<string, unknown>, body: string, file = 'template'): Template {
  const problems: string[] = [];
  const need = (k: string) => {
    if (!str(front[k]) || !front[k]) problems.push(`${k} is required`);
    return str(front[k]) ? front[k] : '';
  };
  const slotsRaw = (front['slots'] ?? {}) as Record<string, unknown>;
  const slots: Record<string, SlotType> = {};
  for (const [k, v] of Object.entries(slotsRaw)) {
    if (v === 'str' || v === 'int' || v === 'float') slots[k] = v;
    else problems.push(`slot ${k} has type ${JSON.stringify(v)}; use str, int or float`);
  }
  const examples: TemplateExample[] = [];
  for (const e of (Array.isArray(front['examples']) ? front['examples'] : []) as Record<string, unknown>[]) {
    if (!str(e['intent'])) problems.push('every example needs an intent');
    else
      examples.push({
        intent: e['intent'],
        ...(e['expect'] !== undefined ? { expect: e['expect'] as JsonValue } : {}),
      });
  }
  const language = front['language'] ?? 'python';
  if (language !== 'python' && language !== 'js' && language !== 'ts')
    problems.push('language must be python, js or ts');
  const t: Template = {
    name: need('name'),
    pattern: need('pattern'),
    sandbox: need('sandbox'),
    slots,
    language: language as Template['language'],
    body,
    examples,
  };
  if (str(front['kit']) && front['kit']) t.kit = front['kit'];
  if (str(front['description'])) t.description = front['description'];
  if (str(front['origin'])) t.origin = front['origin'];
  problems.push(...checkTemplate(t));
  if (problems.length) throw new TemplateError(`${file}: ${problems.join('; ')}`);
  return t;
}

/** The front matter object to serialize (the body goes after it). */
export function templateFrontMatter(t: Template): Record<string, unknown> {
  return {
    name: t.name,
    pattern: t.pattern,
    sandbox: t.sandbox,
    ...(t.kit ? { kit: t.kit } : {}),
    language: t.language,
    ...(t.description ? { description: t.description } : {}),
    ...(t.origin ? { origin: t.origin } : {}),
    slots: t.slots,
    examples: t.examples,
  };
}

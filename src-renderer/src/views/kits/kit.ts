/**
 * Kits as pure data: the draft the editor holds (name, sandbox, description, `alias -> tool` rows), its
 * problems before saving, the grade its tools add up to, and the draft of an existing kit.
 */
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { KitList } from '../../store/settings.ts';

export interface KitDraft {
  name: string;
  sandbox: string;
  description: string;
  rows: { alias: string; tool: string }[];
}

export type Kit = KitList[number];
export interface Grade {
  w: number;
  d: number;
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What keeps a draft from being saved (empty when it can be). */
export function kitProblems(draft: KitDraft): string[] {
  const problems: string[] = [];
  if (!NAME.test(draft.name)) problems.push('The name is letters, digits, _ . - (up to 64).');
  if (!draft.sandbox) problems.push('Pick a sandbox.');
  if (draft.rows.length === 0) problems.push('Add at least one tool.');
  const aliases = draft.rows.map((r) => r.alias.trim());
  draft.rows.forEach((r, i) => {
    const a = r.alias.trim();
    if (!IDENT.test(a)) problems.push(`Row ${i + 1}: the alias must be an identifier (letters, digits, _).`);
    else if (aliases.indexOf(a) !== i) problems.push(`Row ${i + 1}: alias ${a} is used twice.`);
    if (!r.tool) problems.push(`Row ${i + 1}: pick a tool.`);
  });
  return problems;
}

/** The grade of a kit: the element-wise maximum of its tools' grades (0, 0 for none). */
export const kitGrade = (tools: Pick<SandboxTool, 'grade'>[]): Grade =>
  tools.reduce((g, t) => ({ w: Math.max(g.w, t.grade.w), d: Math.max(g.d, t.grade.d) }), { w: 0, d: 0 });

/** A grade above the workspace maximum (none: every grade is allowed). */
export const overMax = (grade: Grade, max: Grade | undefined): boolean =>
  !!max && (grade.w > max.w || grade.d > max.d);

/** The `tools` of a `kits.save` request: alias -> tool. */
export const kitTools = (draft: KitDraft): Record<string, string> =>
  Object.fromEntries(draft.rows.map((row) => [row.alias.trim(), row.tool]));

/** The editor's draft of an existing kit, with a note when the editor cannot show it as it is. */
export const draftOf = (k: Kit): { draft: KitDraft; note?: string } => {
  const grouped = k.kit?.tools.some((t) => t.group) ?? false;
  return {
    draft: {
      name: k.name,
      sandbox: k.sandbox,
      description: k.kit?.description ?? '',
      rows: (k.kit?.tools ?? []).map((t) => ({ alias: t.alias, tool: t.tool.name })),
    },
    ...(!k.kit
      ? {
          note: `This kit is refused (${k.error ?? 'unknown reason'}), so its tools cannot be shown: pick them again to replace it.`,
        }
      : grouped
        ? {
            note: 'This kit groups its aliases; saving here writes the plain alias → tool form (groups are dropped).',
          }
        : {}),
  };
};

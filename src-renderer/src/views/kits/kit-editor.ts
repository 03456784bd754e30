/**
 * The kit editor's state as data: the draft (kit.ts) and the tools of its sandbox as they load, the
 * row edits (a row's alias follows its tool until it is written by hand), and what the editor derives
 * from them (the grade of the chosen tools against the workspace maximum, what stops a save, the
 * request). Pure (tested in node); `useKitEditor.ts` binds it to React and the API.
 */
import type { Request } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { kitGrade, kitProblems, kitTools, overMax } from './kit.ts';
import type { Grade, KitDraft } from './kit.ts';

export type KitRow = KitDraft['rows'][number];

export interface KitEditorState {
  draft: KitDraft;
  /** The sandbox's tools; undefined while they load (or when no sandbox is picked). */
  tools?: SandboxTool[];
  /** Why the sandbox's tools could not be listed. */
  toolsError?: string;
}

export const initialKitEditor = (draft: KitDraft): KitEditorState => ({ draft });

export type KitEditorAction =
  | { type: 'set'; patch: Partial<Pick<KitDraft, 'name' | 'description'>> }
  /** Another sandbox: its tools load again and the rows (tools of the old one) are dropped. */
  | { type: 'sandbox'; sandbox: string }
  | { type: 'toolsLoading' }
  | { type: 'toolsLoaded'; tools: SandboxTool[] }
  | { type: 'toolsFailed'; error: string }
  | { type: 'alias'; index: number; alias: string }
  /** A row's tool: its alias follows when it was empty or the old tool's name. */
  | { type: 'tool'; index: number; tool: string }
  /** A row with the first tool no row has yet. */
  | { type: 'addRow' }
  /** Every tool of the sandbox under its own name. */
  | { type: 'allTools' }
  | { type: 'removeRow'; index: number };

const withRows = (s: KitEditorState, rows: KitRow[]): KitEditorState => ({
  ...s,
  draft: { ...s.draft, rows },
});

export function kitEditorReducer(s: KitEditorState, a: KitEditorAction): KitEditorState {
  const rows = s.draft.rows;
  switch (a.type) {
    case 'set':
      return { ...s, draft: { ...s.draft, ...a.patch } };
    case 'sandbox':
      return { ...s, draft: { ...s.draft, sandbox: a.sandbox, rows: [] } };
    case 'toolsLoading':
      return { draft: s.draft };
    case 'toolsLoaded':
      return { draft: s.draft, tools: a.tools };
    case 'toolsFailed':
      return { draft: s.draft, toolsError: a.error };
    case 'alias':
      return withRows(
        s,
        rows.map((r, j) => (j === a.index ? { ...r, alias: a.alias } : r)),
      );
    case 'tool':
      return withRows(
        s,
        rows.map((r, j) =>
          j === a.index ? { tool: a.tool, alias: !r.alias || r.alias === r.tool ? a.tool : r.alias } : r,
        ),
      );
    case 'addRow': {
      const used = new Set(rows.map((r) => r.tool));
      const next = (s.tools ?? []).find((t) => !used.has(t.name));
      return withRows(s, [...rows, { alias: next?.name ?? '', tool: next?.name ?? '' }]);
    }
    case 'allTools':
      return withRows(
        s,
        (s.tools ?? []).map((t) => ({ alias: t.name, tool: t.name })),
      );
    case 'removeRow':
      return withRows(
        s,
        rows.filter((_r, j) => j !== a.index),
      );
  }
}

export interface KitEditorDerived {
  /** The sandbox tool of each row (undefined: none picked, or not in the sandbox). */
  rowTools: (SandboxTool | undefined)[];
  grade: Grade;
  /** The grade is above the workspace maximum: the service will refuse the kit. */
  over: boolean;
  /** What stops a save. */
  problems: string[];
  /** A new kit under the name of one that exists (saving replaces its file). */
  taken: boolean;
}

export function deriveKitEditor(
  s: KitEditorState,
  mode: 'new' | 'edit',
  existing: string[],
  maxGrade: Grade | undefined,
): KitEditorDerived {
  const byName = new Map((s.tools ?? []).map((t) => [t.name, t]));
  const rowTools = s.draft.rows.map((r) => byName.get(r.tool));
  const grade = kitGrade(rowTools.filter((t): t is SandboxTool => !!t));
  return {
    rowTools,
    grade,
    over: overMax(grade, maxGrade),
    problems: kitProblems(s.draft),
    taken: mode === 'new' && existing.includes(s.draft.name),
  };
}

/** The `kits.save` request of a draft (the description trimmed, left out when empty). */
export const saveRequest = (draft: KitDraft): Request<'kits.save'> => ({
  name: draft.name,
  sandbox: draft.sandbox,
  ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
  tools: kitTools(draft),
});

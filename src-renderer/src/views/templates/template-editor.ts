/**
 * The template editor's state as data: the draft being written and the "replace it" choice, the
 * checks made as it is typed (each example against the pattern, its expected JSON, what stops a save)
 * and the requests a save sends. Pure (tested in node); `useTemplateEditor.ts` binds it to React and
 * the API.
 */
import type { Request } from '../../../../src-main/contract/api.ts';
import { matchTemplate } from '../../../../src-main/core/templates/template.ts';
import type { JsonValue } from '../../../../src-main/core/tools/model.ts';
import { parseExpect } from './drafts.ts';
import type { ExampleDraft, FromRun, TemplateDraft } from './drafts.ts';

export type EditorMode = 'promote' | 'edit';

export interface TemplateEditorState {
  draft: TemplateDraft;
  /** A promotion under a taken name replaces that template. */
  replace: boolean;
}

export const initialEditor = (draft: TemplateDraft): TemplateEditorState => ({ draft, replace: false });

export type TemplateEditorAction =
  | { type: 'set'; patch: Partial<TemplateDraft> }
  | { type: 'example'; index: number; patch: Partial<ExampleDraft> }
  | { type: 'addExample' }
  | { type: 'removeExample'; index: number }
  | { type: 'replace'; replace: boolean };

export function templateEditorReducer(s: TemplateEditorState, a: TemplateEditorAction): TemplateEditorState {
  const examples = s.draft.examples;
  switch (a.type) {
    case 'set':
      return { ...s, draft: { ...s.draft, ...a.patch } };
    case 'example':
      return {
        ...s,
        draft: { ...s.draft, examples: examples.map((x, j) => (j === a.index ? { ...x, ...a.patch } : x)) },
      };
    case 'addExample':
      return { ...s, draft: { ...s.draft, examples: [...examples, { intent: '', expect: '' }] } };
    case 'removeExample':
      return { ...s, draft: { ...s.draft, examples: examples.filter((_x, j) => j !== a.index) } };
    case 'replace':
      return { ...s, replace: a.replace };
  }
}

/**
 * Promotion drafts by editor key: what was typed in the promote editor outlives leaving the Templates
 * view and a reload of the page (the promotion opens again with it, not with the service's fresh
 * proposal) until it is saved or cancelled. A state equal to the proposal is not kept. With `storage`
 * (the tab's sessionStorage, lib/session-draft.ts) each draft is written there too, and read from there
 * when memory has none (a reloaded page).
 */
export interface EditorDrafts {
  get(key: string): TemplateEditorState | undefined;
  keep(key: string, state: TemplateEditorState, initial: TemplateDraft): void;
  drop(key: string): void;
  size(): number;
}

/** A stored editor state, if it has the shape of one (another version's or a hand-edited one is dropped). */
export function restoreEditorState(raw: unknown): TemplateEditorState | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const { draft, replace } = raw as Partial<TemplateEditorState>;
  if (!draft || typeof draft !== 'object') return undefined;
  const d = draft as Partial<TemplateDraft>;
  const texts = [d.name, d.pattern, d.body, d.sandbox, d.description].every((t) => typeof t === 'string');
  const examples =
    Array.isArray(d.examples) &&
    d.examples.every((x) => x && typeof x.intent === 'string' && typeof x.expect === 'string');
  const slots = !!d.slots && typeof d.slots === 'object' && !Array.isArray(d.slots);
  const language = d.language === 'python' || d.language === 'js' || d.language === 'ts';
  if (!texts || !examples || !slots || !language) return undefined;
  return { draft, replace: replace === true };
}

export function editorDrafts(storage?: {
  read(key: string): TemplateEditorState | undefined;
  write(key: string, state: TemplateEditorState | undefined): void;
}): EditorDrafts {
  const drafts = new Map<string, TemplateEditorState>();
  return {
    get: (key) => drafts.get(key) ?? storage?.read(key),
    keep: (key, state, initial) => {
      if (!state.replace && JSON.stringify(state.draft) === JSON.stringify(initial)) {
        drafts.delete(key);
        storage?.write(key, undefined);
      } else {
        drafts.set(key, state);
        storage?.write(key, state);
      }
    },
    drop: (key) => {
      drafts.delete(key);
      storage?.write(key, undefined);
    },
    size: () => drafts.size,
  };
}

export interface ExampleCheck {
  /** The expected value parsed from its JSON text (or why it is not JSON). */
  expect: { value?: unknown; error?: string };
  /** The slot values the intent gives through the pattern; undefined when it does not match. */
  match: Record<string, JsonValue> | undefined;
}

/** Each example of the draft checked against its pattern and its expected JSON. */
export function checkExamples(draft: TemplateDraft): ExampleCheck[] {
  const asTemplate = {
    name: draft.name,
    pattern: draft.pattern,
    slots: draft.slots,
    sandbox: draft.sandbox,
    language: draft.language,
    body: draft.body,
    examples: [],
  };
  return draft.examples.map((ex) => {
    let match: ExampleCheck['match'];
    try {
      match = ex.intent.trim() ? matchTemplate(asTemplate, ex.intent) : undefined;
    } catch {
      match = undefined;
    }
    return { expect: parseExpect(ex.expect), match };
  });
}

/** How an example's match reads: its slot values, or "exactly" for a pattern without slots. */
export const matchText = (match: Record<string, JsonValue>): string =>
  Object.keys(match).length
    ? Object.entries(match)
        .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
        .join(', ')
    : 'exactly';

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** A promotion under the name of a template that exists (it needs "replace"). */
export const nameTaken = (mode: EditorMode, name: string, existing: string[]): boolean =>
  mode === 'promote' && existing.includes(name);

/** What stops a save, in the words the editor lists them. */
export function saveProblems(
  s: TemplateEditorState,
  checks: ExampleCheck[],
  mode: EditorMode,
  existing: string[],
): string[] {
  const { draft } = s;
  const problems: string[] = [];
  if (!NAME.test(draft.name))
    problems.push('The name is letters, digits, _ . - (up to 64, no leading . or -).');
  if (!draft.pattern.trim()) problems.push('The pattern is empty.');
  if (!draft.body.trim()) problems.push('The body is empty.');
  if (checks.some((c) => c.expect.error)) problems.push('An expected value is not valid JSON.');
  if (draft.examples.some((e) => !e.intent.trim())) problems.push('An example has no intent.');
  if (nameTaken(mode, draft.name, existing) && !s.replace)
    problems.push(`A template named ${draft.name} exists: pick another name or replace it.`);
  return problems;
}

/**
 * What a save sends: `base` the template (trimmed, expected values parsed, `force` for an edit or a
 * replace), `withRun` the same linked to its run (a promotion also names the attempt). An edit whose
 * origin run is gone is saved again as `base`.
 */
export function saveRequests(
  s: TemplateEditorState,
  checks: ExampleCheck[],
  mode: EditorMode,
  fromRun: FromRun | undefined,
): { base: Request<'templates.create'>; withRun: Request<'templates.create'> } {
  const { draft } = s;
  const base: Request<'templates.create'> = {
    name: draft.name,
    pattern: draft.pattern.trim(),
    slots: draft.slots,
    body: draft.body,
    sandbox: draft.sandbox,
    language: draft.language,
    ...(draft.kit ? { kit: draft.kit } : {}),
    examples: draft.examples.map((e, i) => {
      const v = checks[i]?.expect.value;
      return { intent: e.intent.trim(), ...(v !== undefined ? { expect: v } : {}) };
    }),
    ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
    ...(mode === 'edit' || s.replace ? { force: true } : {}),
  };
  const withRun: Request<'templates.create'> = fromRun
    ? {
        ...base,
        fromRun: fromRun.runId,
        ...(mode === 'promote' && fromRun.attempt !== undefined ? { attempt: fromRun.attempt } : {}),
      }
    : base;
  return { base, withRun };
}

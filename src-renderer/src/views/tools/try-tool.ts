/**
 * "Try tool" state as data: the form's draft (schema-form.ts, from the tool's JSON Schema), the errors
 * of the last check by field path, and the outcome of the last call with the arguments it sent. Pure
 * (tested in node); `useTryTool.ts` binds it to React and the API.
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import type { JsonValue } from '../../../../src-main/core/tools/model.ts';
import type { JsonSchema } from '../../../../src-main/core/tools/schema.ts';
import { draftToJson, initialDraft } from './schema-form.ts';
import type { Draft } from './schema-form.ts';

export type CallResult = Response<'tools.call'>;

export interface TryState {
  /** The arguments object's draft: a draft per top-level parameter. */
  values: Record<string, Draft>;
  /** Field errors of the last check, by field path (`items[1].qty`). */
  errors: Record<string, string>;
  outcome?: TryOutcome;
}

/**
 * The last call's outcome: what came back, the arguments sent and when (ms). `earlier`: kept from before
 * the page was reloaded (the tab's session), not the answer of a call made on this page.
 */
export interface TryOutcome {
  call: CallResult;
  args: Record<string, JsonValue>;
  at: number;
  earlier?: true;
}

/** The longest outcome kept across a reload (its JSON): a huge trace is not worth the tab's storage. */
export const MAX_KEPT_OUTCOME = 200_000;

/** The outcome as kept in the tab's session (JSON); undefined when it is too large to keep. */
export function outcomeToKeep(o: TryOutcome): string | undefined {
  const { earlier: _e, ...kept } = o;
  const text = JSON.stringify(kept);
  return text.length > MAX_KEPT_OUTCOME ? undefined : text;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A kept outcome (`outcomeToKeep`), marked `earlier`; undefined for anything else (junk, another shape). */
export function restoreOutcome(kept: string | undefined): TryOutcome | undefined {
  if (kept === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(kept);
  } catch {
    return undefined;
  }
  if (!isObject(raw) || !isObject(raw['call']) || !isObject(raw['args'])) return undefined;
  const at = raw['at'];
  const result = raw['call']['result'];
  const response = raw['call']['response'];
  if (typeof at !== 'number' || !Number.isFinite(at) || !isObject(result)) return undefined;
  if (response !== undefined && !isObject(response)) return undefined;
  if (typeof result['exitReason'] !== 'string' || !Array.isArray(result['toolCalls'])) return undefined;
  if (!Array.isArray(result['logs'])) return undefined;
  if (
    result['error'] !== undefined &&
    !(isObject(result['error']) && Array.isArray(result['error']['frames']))
  )
    return undefined;
  return {
    call: raw['call'] as unknown as CallResult,
    args: raw['args'] as Record<string, JsonValue>,
    at,
    earlier: true,
  };
}

export const initialTry = (schema: JsonSchema): TryState => {
  const d = initialDraft(schema);
  return { values: typeof d === 'object' && !Array.isArray(d) ? d : {}, errors: {} };
};

/** A draft's shape, as kept in the tab's session (a string, or lists and objects of drafts). */
function isDraft(v: unknown): v is Draft {
  if (typeof v === 'string') return true;
  if (Array.isArray(v)) return v.every(isDraft);
  return v !== null && typeof v === 'object' && Object.values(v).every(isDraft);
}

/**
 * The form as it was kept (`kept`: its values as JSON, see useTryTool) over the schema's start: only the
 * tool's parameters of now, each a draft; anything else (a tool changed since, junk) is left out.
 */
export function restoreTry(
  schema: JsonSchema,
  kept: string | undefined,
  keptOutcome?: string | undefined,
): TryState {
  const outcome = restoreOutcome(keptOutcome);
  const start = { ...initialTry(schema), ...(outcome ? { outcome } : {}) };
  if (kept === undefined) return start;
  let raw: unknown;
  try {
    raw = JSON.parse(kept);
  } catch {
    return start;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return start;
  const params = schema.properties ?? {};
  const values = { ...start.values };
  for (const [name, v] of Object.entries(raw)) if (name in params && isDraft(v)) values[name] = v;
  return { ...start, values };
}

/** Whether an error's path is the field `name` or inside it (`name.x`, `name[0]`). */
const within = (path: string, name: string) =>
  path === name || path.startsWith(`${name}.`) || path.startsWith(`${name}[`);

export type TryAction =
  /** A top-level field changed: its errors go (it is checked again at the next call). */
  | { type: 'field'; name: string; value: Draft }
  /** The form was checked before a call. */
  | { type: 'checked'; errors: Record<string, string> }
  | { type: 'called'; call: CallResult; args: Record<string, JsonValue>; at: number }
  /** The call itself failed: no outcome is shown (the failure is). */
  | { type: 'callFailed' };

export function tryReducer(s: TryState, a: TryAction): TryState {
  switch (a.type) {
    case 'field': {
      const kept = Object.entries(s.errors).filter(([path]) => !within(path, a.name));
      return {
        ...s,
        values: { ...s.values, [a.name]: a.value },
        errors: kept.length === Object.keys(s.errors).length ? s.errors : Object.fromEntries(kept),
      };
    }
    case 'checked':
      return { ...s, errors: a.errors };
    case 'called':
      return { ...s, outcome: { call: a.call, args: a.args, at: a.at } };
    case 'callFailed': {
      const { outcome: _gone, ...rest } = s;
      return rest;
    }
  }
}

/**
 * Checks the form against the tool's schema: required fields filled, every filled field of its type,
 * nested objects and array items included. Empty optional fields are left out.
 */
export function checkTry(
  schema: JsonSchema,
  values: Record<string, Draft>,
): { args: Record<string, JsonValue>; errors: Record<string, string> } {
  const r = draftToJson(schema, values);
  const args = r.value && typeof r.value === 'object' && !Array.isArray(r.value) ? r.value : {};
  return { args, errors: r.errors };
}

/** "Fix N fields before calling." (nothing without errors). */
export const errorSummary = (errors: Record<string, string>): string | undefined => {
  const n = Object.keys(errors).length;
  return n > 0 ? `Fix ${n} field${n > 1 ? 's' : ''} before calling.` : undefined;
};

/**
 * "Try tool" state as data: the value of each parameter's field, the errors of the last check, and the
 * outcome of the last call with the arguments it sent. Pure (tested in node); `useTryTool.ts` binds it
 * to React and the API.
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import type { JsonValue, ToolParameter } from '../../../../src-main/core/tools/model.ts';
import type { FieldValue } from './coerce.ts';

export type CallResult = Response<'tools.call'>;

export interface TryState {
  values: Record<string, FieldValue>;
  /** Field errors of the last check, by parameter name. */
  errors: Record<string, string>;
  outcome?: { call: CallResult; args: Record<string, JsonValue> };
}

/** A field starts empty: no option chosen, or no text. */
export const initialValue = (p: ToolParameter): FieldValue =>
  p.options?.length ? { kind: 'option', index: undefined } : { kind: 'text', text: '' };

export const initialTry = (params: ToolParameter[]): TryState => ({
  values: Object.fromEntries(params.map((p) => [p.name, initialValue(p)])),
  errors: {},
});

export type TryAction =
  /** A field changed: its error goes (it is checked again at the next call). */
  | { type: 'field'; name: string; value: FieldValue }
  /** The form was checked before a call. */
  | { type: 'checked'; errors: Record<string, string> }
  | { type: 'called'; call: CallResult; args: Record<string, JsonValue> }
  /** The call itself failed: no outcome is shown (the failure is). */
  | { type: 'callFailed' };

export function tryReducer(s: TryState, a: TryAction): TryState {
  switch (a.type) {
    case 'field': {
      const { [a.name]: _gone, ...errors } = s.errors;
      return {
        ...s,
        values: { ...s.values, [a.name]: a.value },
        errors: a.name in s.errors ? errors : s.errors,
      };
    }
    case 'checked':
      return { ...s, errors: a.errors };
    case 'called':
      return { ...s, outcome: { call: a.call, args: a.args } };
    case 'callFailed': {
      const { outcome: _gone, ...rest } = s;
      return rest;
    }
  }
}

/** "Fix N fields before calling." (nothing without errors). */
export const errorSummary = (errors: Record<string, string>): string | undefined => {
  const n = Object.keys(errors).length;
  return n > 0 ? `Fix ${n} field${n > 1 ? 's' : ''} before calling.` : undefined;
};

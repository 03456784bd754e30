/** "Try tool" state (try-tool.ts) bound to React and the API: the form check and the call. */
import { useEffect, useMemo, useReducer } from 'react';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { JsonValue } from '../../../../src-main/core/tools/model.ts';
import { api } from '../../api/client.ts';
import { keepNewest } from '../../lib/session-draft.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { parametersSchema } from '../../../../src-main/core/tools/schema.ts';
import { KEPT_OUTCOMES, triedArgs, triedOutcomes } from './drafts.ts';
import { checkTry, initialTry, outcomeToKeep, restoreTry, tryReducer } from './try-tool.ts';
import type { TryOutcome } from './try-tool.ts';

/** Keeps the last outcome of `key`'s tool for a reload (newest last; the oldest tools' go past the bound). */
function keepOutcome(key: string, outcome: TryOutcome | undefined): void {
  keepNewest(triedOutcomes, key, outcome && outcomeToKeep(outcome), KEPT_OUTCOMES);
}

export function useTryTool(sandbox: string, tool: SandboxTool) {
  const schema = useMemo(() => parametersSchema(tool), [tool]);
  // (kept across a reload: the tab's session, per sandbox and tool; the form's start is not kept)
  const key = `${sandbox}/${tool.name}`;
  const [state, dispatch] = useReducer(tryReducer, schema, (s) =>
    restoreTry(s, triedArgs.get(key), triedOutcomes.get(key)),
  );
  useEffect(() => {
    const typed = JSON.stringify(state.values);
    if (typed === JSON.stringify(initialTry(schema).values)) triedArgs.delete(key);
    else triedArgs.set(key, typed);
  }, [key, schema, state.values]);
  const call = useSubmit(async (args: Record<string, JsonValue>) => {
    try {
      const call = await api['tools.call']({ sandbox, tool: tool.name, args });
      const at = Date.now();
      dispatch({ type: 'called', call, args, at });
      keepOutcome(key, { call, args, at });
    } catch (e) {
      dispatch({ type: 'callFailed' });
      keepOutcome(key, undefined);
      throw e;
    }
  });

  /** Checks the form (required fields, types) and calls the tool when it passes. */
  const submit = async () => {
    if (call.busy) return;
    const check = checkTry(schema, state.values);
    dispatch({ type: 'checked', errors: check.errors });
    if (Object.keys(check.errors).length > 0) return;
    await call.run(check.args);
  };

  return { schema, state, dispatch, busy: call.busy, callError: call.error, submit };
}

/** "Try tool" state (try-tool.ts) bound to React and the API: the form check and the call. */
import { useEffect, useMemo, useReducer } from 'react';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { JsonValue } from '../../../../src-main/core/tools/model.ts';
import { api } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { parametersSchema } from '../../../../src-main/core/tools/schema.ts';
import { triedArgs } from './drafts.ts';
import { checkTry, initialTry, restoreTry, tryReducer } from './try-tool.ts';

export function useTryTool(sandbox: string, tool: SandboxTool) {
  const schema = useMemo(() => parametersSchema(tool), [tool]);
  // (kept across a reload: the tab's session, per sandbox and tool; the form's start is not kept)
  const key = `${sandbox}/${tool.name}`;
  const [state, dispatch] = useReducer(tryReducer, schema, (s) => restoreTry(s, triedArgs.get(key)));
  useEffect(() => {
    const typed = JSON.stringify(state.values);
    if (typed === JSON.stringify(initialTry(schema).values)) triedArgs.delete(key);
    else triedArgs.set(key, typed);
  }, [key, schema, state.values]);
  const call = useSubmit(async (args: Record<string, JsonValue>) => {
    try {
      dispatch({ type: 'called', call: await api['tools.call']({ sandbox, tool: tool.name, args }), args });
    } catch (e) {
      dispatch({ type: 'callFailed' });
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

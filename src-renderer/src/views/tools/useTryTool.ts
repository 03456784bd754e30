/** "Try tool" state (try-tool.ts) bound to React and the API: the form check and the call. */
import { useMemo, useReducer } from 'react';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { JsonValue } from '../../../../src-main/core/tools/model.ts';
import { api } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { parametersSchema } from '../../../../src-main/core/tools/schema.ts';
import { checkTry, initialTry, tryReducer } from './try-tool.ts';

export function useTryTool(sandbox: string, tool: SandboxTool) {
  const schema = useMemo(() => parametersSchema(tool), [tool]);
  const [state, dispatch] = useReducer(tryReducer, schema, initialTry);
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

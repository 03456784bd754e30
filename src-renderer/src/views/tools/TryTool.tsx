/**
 * "Try tool": a form generated from the tool's JSON Schema (schema-form.ts: nested objects and arrays,
 * enums as selects, examples and defaults as placeholders; required fields and types are checked before
 * sending), a real call in
 * the sandbox container, and what came back: the ToolResponse and the execution trace. State and
 * actions: useTryTool.ts (on the pure try-tool.ts); parts: TryForm.tsx, TryParts.tsx.
 */
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { CallFailed, TryForm } from './TryForm.tsx';
import { CallOutcome } from './TryParts.tsx';
import { useTryTool } from './useTryTool.ts';

/** The form and outcome for one tool; remount it (key) when the tool changes. */
export function TryTool({
  sandbox,
  tool,
  unsaved,
  onJump,
}: {
  sandbox: string;
  tool: SandboxTool;
  /** The editor holds changes that are not saved: the call runs the saved tools.py. */
  unsaved: boolean;
  /** Reveals a line of tools.py in the editor (a traceback frame of the tool). */
  onJump?: (line: number) => void;
}) {
  const t = useTryTool(sandbox, tool);
  const { outcome } = t.state;
  return (
    <div className="try-tool" data-testid="try-tool" data-tool={tool.name}>
      <TryForm
        tool={tool}
        schema={t.schema}
        unsaved={unsaved}
        values={t.state.values}
        errors={t.state.errors}
        busy={t.busy}
        onField={(name, value) => t.dispatch({ type: 'field', name, value })}
        onSubmit={() => void t.submit()}
      />
      {t.callError && <CallFailed error={t.callError} />}
      {outcome && (
        <CallOutcome
          call={outcome.call}
          args={outcome.args}
          at={outcome.at}
          earlier={outcome.earlier ?? false}
          onJump={onJump}
        />
      )}
    </div>
  );
}

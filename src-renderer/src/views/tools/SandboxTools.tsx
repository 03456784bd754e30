/**
 * One sandbox's tools.py in Monaco with the metadata extracted live as you type, its problems, saving
 * (which hot-reloads the sandbox) and Try tool on the saved tools. State and actions:
 * useSandboxTools.ts (on the pure tools-editor.ts); the parts around the editor: ToolsParts.tsx.
 */
import { CodeEditor } from '../../components/Editors.tsx';
import { ToolMetadata } from './ToolMetadata.tsx';
import { TryTool } from './TryTool.tsx';
import { toolsViewModel } from './tools-editor.ts';
import {
  DiskChanged,
  McpProblems,
  McpToolsNote,
  ProblemList,
  SaveHeld,
  ToolPicker,
  ToolsHead,
  ToolsLoadError,
  ToolsMetaLine,
} from './ToolsParts.tsx';
import { useSandboxTools } from './useSandboxTools.ts';
import { pickedTools } from './drafts.ts';

export function SandboxTools({
  sandbox,
  line,
  onDirtyChange,
}: {
  sandbox: string;
  /** A tools.py line to reveal once loaded (from a traceback frame). */
  line?: number | undefined;
  onDirtyChange: () => void;
}) {
  const v = useSandboxTools(sandbox, line, onDirtyChange);
  const { state, dispatch, listed } = v;
  if (v.loadError) return <ToolsLoadError sandbox={sandbox} error={v.loadError} onRetry={v.retry} />;
  if (!listed)
    return (
      <div className="tools-main">
        <p className="muted">Loading the tools of {sandbox}…</p>
      </div>
    );

  const m = toolsViewModel(state, listed);
  const jumpTo = (line: number, column?: number) => dispatch({ type: 'jump', line, column });
  return (
    <div className="tools-main" data-sandbox={sandbox}>
      <ToolsHead
        sandbox={sandbox}
        badge={m.badge}
        dirty={v.dirty}
        saving={v.saving}
        onRevert={v.revert}
        onSave={() => void v.save()}
      />
      <ToolsMetaLine
        description={v.description}
        savedTools={m.savedTools.length}
        savedProblems={listed.problems.length}
        extractState={m.extractState}
      />
      {state.hold && <SaveHeld hold={state.hold} onJump={jumpTo} onSaveAnyway={() => void v.save(true)} />}
      {state.diskChanged && <DiskChanged onRevert={v.revert} />}
      {m.mcpTools.length > 0 && <McpToolsNote count={m.mcpTools.length} mcpOnly={m.mcpOnly} />}
      {listed.mcpProblems?.length ? <McpProblems sandbox={sandbox} problems={listed.mcpProblems} /> : null}
      {v.saveError && (
        <div role="alert" className="error" data-testid="save-error">
          Save failed: {v.saveError}
        </div>
      )}
      {state.extractError && (
        <div role="alert" className="error" data-testid="extract-error">
          Live extraction failed (showing the last good metadata): {state.extractError}
        </div>
      )}
      <div className="tools-panes">
        <div
          className="tools-editor"
          onKeyDownCapture={(e) => {
            if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
              e.preventDefault();
              e.stopPropagation();
              void v.save(); // (it reads the editor's latest text: this render may not show it yet)
            }
          }}
        >
          <CodeEditor
            label="tools.py"
            language="python"
            key={state.editorKey}
            value={state.editorText}
            onChange={v.edit}
            violations={m.problems}
            jump={state.jump}
            height="min(640px, calc(100vh - 230px))"
            wordWrap
          />
          <ProblemList
            problems={m.problems}
            syntaxErrors={m.syntaxErrors}
            onJump={(p) => jumpTo(p.line, p.column)}
          />
        </div>
        {/* Beside the editor (not below it): Try tool is in view without scrolling, at 1280x800 too. */}
        <div className="tools-side">
          <section className="try-section" aria-label="try tool">
            <h2>Try tool</h2>
            {m.savedTools.length === 0 ? (
              <p className="muted">
                The saved tools.py has no tools to call
                {listed.problems.length > 0 ? ` (${listed.problems.length} problems)` : ''}.
              </p>
            ) : (
              <>
                <ToolPicker
                  tools={m.savedTools}
                  selected={m.selectedTool?.name}
                  onPick={(name) => {
                    pickedTools.set(sandbox, name);
                    dispatch({ type: 'pickTool', name });
                  }}
                />
                {m.selectedTool && (
                  <TryTool
                    key={`${sandbox}/${m.selectedTool.name}/${JSON.stringify(m.selectedTool.parameters)}`}
                    sandbox={sandbox}
                    tool={m.selectedTool}
                    unsaved={v.dirty}
                    onJump={(line) => jumpTo(line)}
                  />
                )}
              </>
            )}
          </section>
          {state.meta ? (
            <ToolMetadata meta={state.meta} stale={m.stale} onJump={(line) => jumpTo(line)} />
          ) : (
            <p className="muted">No metadata yet.</p>
          )}
        </div>
      </div>
    </div>
  );
}

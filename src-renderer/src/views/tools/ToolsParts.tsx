/**
 * The Tools view's parts around the editor, presentational (props in, callbacks out): the head with
 * the saved state, Revert and Save; the line under it; a Save held back; the MCP note; the problem
 * list; the saved-tool picker for Try; the load error.
 */
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { rovingTabIndex, tabListKeys } from '../../components/Tabs.tsx';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import type { SaveHold } from './save-check.ts';
import type { SavedState, ToolsViewModel } from './tools-editor.ts';

export function ToolsHead({
  sandbox,
  badge,
  dirty,
  saving,
  onRevert,
  onSave,
}: {
  sandbox: string;
  badge: SavedState;
  dirty: boolean;
  saving: boolean;
  onRevert: () => void;
  onSave: () => void;
}) {
  return (
    <div className="view-head">
      <h1>
        Tools <span className="muted">· {sandbox}</span>
      </h1>
      {badge === 'dirty' ? (
        <span className="badge dirty-badge" data-testid="dirty">
          unsaved changes
        </span>
      ) : badge === 'no-tools-file' ? (
        <span className="badge" data-testid="no-tools-file">
          no tools.py
        </span>
      ) : (
        <span className="badge status-succeeded" data-testid="saved">
          saved
        </span>
      )}
      <span className="spacer" />
      <button onClick={onRevert} disabled={!dirty || saving} title="Throw away the unsaved changes">
        Revert
      </button>
      <button
        className="primary"
        onClick={onSave}
        disabled={!dirty || saving}
        title="Save tools.py and hot-reload the sandbox (Ctrl+S in the editor)"
      >
        {saving ? 'Saving…' : 'Save'}
      </button>
    </div>
  );
}

export function ToolsMetaLine({
  description,
  savedTools,
  savedProblems,
  extractState,
}: {
  description?: string | undefined;
  savedTools: number;
  savedProblems: number;
  extractState: ToolsViewModel['extractState'];
}) {
  return (
    <div className="meta-line small">
      {description && <span>{description}</span>}
      <span className="muted">
        saved: {savedTools} tool{savedTools === 1 ? '' : 's'}
        {savedProblems > 0 && `, ${savedProblems} problems`}
      </span>
      <span className="muted" data-testid="extract-state" data-state={extractState}>
        {extractState === 'extracting'
          ? 'extracting…'
          : extractState === 'pending'
            ? 'waiting…'
            : 'metadata up to date'}
      </span>
    </div>
  );
}

export function SaveHeld({
  hold,
  onJump,
  onSaveAnyway,
}: {
  hold: SaveHold;
  onJump: (line: number, column: number) => void;
  onSaveAnyway: () => void;
}) {
  return (
    <div role="alert" className="error" data-testid="save-held">
      {hold.message}{' '}
      <button className="link" onClick={() => onJump(hold.first.line, hold.first.column)}>
        Go to line {hold.first.line}
      </button>{' '}
      <button onClick={onSaveAnyway} title="Save tools.py with its syntax errors (a draft)">
        Save anyway
      </button>
    </div>
  );
}

/** tools.py changed on disk while the editor held unsaved edits (tools-editor.ts, `diskChanged`). */
export function DiskChanged({ onRevert }: { onRevert: () => void }) {
  return (
    <div role="alert" className="error" data-testid="disk-changed">
      tools.py changed on disk while you had unsaved edits: Save overwrites the file with your text.{' '}
      <button onClick={onRevert} title="Drop your edits and take the file as it is on disk">
        Take the file's text
      </button>
    </div>
  );
}

export function McpToolsNote({ count, mcpOnly }: { count: number; mcpOnly: boolean }) {
  return (
    <section className="callout" data-testid="mcp-tools" aria-label="tools from MCP servers">
      <p className="small">
        {mcpOnly
          ? `This sandbox has no tools.py: its ${count} tools come from MCP servers (listed with their server on the right; Connections manages the servers). Type Python tools below to add some: saving creates tools.py.`
          : `Besides tools.py, ${count} tools come from MCP servers (marked with their server on the right).`}
      </p>
    </section>
  );
}

/**
 * What is wrong in the sandbox's selection of MCP tools (config.toml, `[sandboxes.S.mcp.SERVER]`): an
 * alias refused because scripts already have its name, a tool or alias a server lacks.
 */
export function McpProblems({ sandbox, problems }: { sandbox: string; problems: readonly string[] }) {
  return (
    <section
      className="callout error"
      role="alert"
      data-testid="mcp-problems"
      aria-label="MCP selection problems"
    >
      <p className="small">
        {problems.length === 1 ? 'A problem' : `${problems.length} problems`} in the MCP tools of {sandbox} (
        <code>[sandboxes.{sandbox}.mcp]</code> in config.toml):
      </p>
      <ul className="violations">
        {problems.map((p, i) => (
          <li key={i}>{p}</li>
        ))}
      </ul>
    </section>
  );
}

export function ProblemList({
  problems,
  syntaxErrors,
  onJump,
}: {
  problems: Violation[];
  syntaxErrors: number;
  onJump: (v: Violation) => void;
}) {
  return (
    <div className="tools-problems" data-testid="problems">
      {syntaxErrors > 0 && (
        <p className="error small" role="alert">
          tools.py has {syntaxErrors} syntax error{syntaxErrors > 1 ? 's' : ''}; the metadata below shows what
          could still be read.
        </p>
      )}
      {problems.length === 0 ? (
        <p className="small ok" data-testid="no-problems">
          No problems in tools.py.
        </p>
      ) : (
        <ul className="violations" aria-label="problems">
          {problems.map((v, i) => (
            <li key={i} data-rule={v.rule}>
              <button className="link" onClick={() => onJump(v)}>
                line {v.line}:{v.column}
              </button>{' '}
              <code>{v.rule}</code> {v.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function ToolPicker({
  tools,
  selected,
  onPick,
}: {
  tools: SandboxTool[];
  selected: string | undefined;
  onPick: (name: string) => void;
}) {
  const names = tools.map((t) => t.name);
  // The app's tabs keyboard (components/Tabs.tsx): arrows, Home and End pick the tool they move to.
  return (
    <div
      className="tool-picker"
      role="tablist"
      aria-label="saved tools"
      onKeyDown={tabListKeys(names, onPick)}
    >
      {tools.map((t) => (
        <button
          key={t.name}
          role="tab"
          data-tool={t.name}
          aria-selected={t.name === selected}
          tabIndex={rovingTabIndex(names, selected, t.name)}
          className={`chip ${t.name === selected ? 'active' : ''}`}
          onClick={() => onPick(t.name)}
        >
          {t.name}
        </button>
      ))}
    </div>
  );
}

export function ToolsLoadError({
  sandbox,
  error,
  onRetry,
}: {
  sandbox: string;
  error: string;
  onRetry: () => void;
}) {
  return (
    <div className="tools-main">
      <div role="alert" className="error" data-testid="tools-load-error">
        Could not load the tools of {sandbox}: {error}
      </div>
      <button onClick={onRetry}>Try again</button>
    </div>
  );
}

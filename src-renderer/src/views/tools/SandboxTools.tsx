/**
 * One sandbox's tools.py in Monaco with the metadata extracted live as you type, its problems, saving
 * (which hot-reloads the sandbox) and Try tool on the saved tools.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { CodeEditor } from '../../components/Editors.tsx';
import { ToolMetadata } from './ToolMetadata.tsx';
import { TryTool } from './TryTool.tsx';
import { useStore } from '../../store/index.ts';
import { drafts } from './drafts.ts';
import { saveHold } from './save-check.ts';
import type { SaveHold } from './save-check.ts';

type Listed = Response<'tools.list'>;

type Metadata = Response<'tools.extract'>;

const EXTRACT_DEBOUNCE_MS = 250;

const metadataOf = (l: Listed | Response<'tools.save'>): Metadata => ({
  tools: l.tools,
  problems: l.problems,
  prompt: l.prompt,
  openai: l.openai,
});

function ProblemList({ problems, onJump }: { problems: Violation[]; onJump: (v: Violation) => void }) {
  if (problems.length === 0)
    return (
      <p className="small ok" data-testid="no-problems">
        No problems in tools.py.
      </p>
    );
  return (
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
  );
}

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
  const description = useStore((s) => s.sandboxes.find((x) => x.name === sandbox)?.description);
  const stored = useStore((s) => (s.toolsSandbox === sandbox ? s.toolsListed : undefined));
  /** The editor holds the loaded source (set with it: the listing is shown only from then on). */
  const [ready, setReady] = useState(false);
  const listed = ready ? stored : undefined;
  const loadError = useStore((s) => (s.toolsSandbox === sandbox ? s.toolsLoadError : undefined));
  const loadTools = useStore((s) => s.loadTools);
  const closeTools = useStore((s) => s.closeTools);
  const saveTools = useStore((s) => s.saveTools);
  const [reloadSeq, setReloadSeq] = useState(0);
  const [source, setSource] = useState('');
  /**
   * The text handed to the editor, changed only on load and revert (with a new `editorKey`): feeding
   * every keystroke back as `value` lets a re-render that lags behind fast typing overwrite the newer
   * text in Monaco and drop characters.
   */
  const [editorText, setEditorText] = useState('');
  const [editorKey, setEditorKey] = useState(0);
  const [saved, setSaved] = useState('');
  /** Metadata of `metaFor` (the editor text it was extracted from). */
  const [meta, setMeta] = useState<Metadata>();
  const [metaFor, setMetaFor] = useState<string>();
  const [extracting, setExtracting] = useState(false);
  const [extractError, setExtractError] = useState<string>();
  // Saving announces its outcome (saveTools); a failure also stays on the page.
  const {
    busy: saving,
    error: saveError,
    setError: setSaveError,
    run: runSave,
  } = useSubmit((text: string) => saveTools(sandbox, text));
  const [jump, setJump] = useState<{ line: number; column?: number; seq: number }>();
  const [toolName, setToolName] = useState<string>();
  const extractSeq = useRef(0);

  // Load the sandbox: its saved tools (tools.list) and source; an unsaved draft wins over the source.
  useEffect(() => {
    let cancelled = false;
    setReady(false);
    setSaveError(undefined);
    void loadTools(sandbox).then((l) => {
      if (cancelled || !l) return;
      setReady(true);
      setSaved(l.source);
      const draft = drafts.get(sandbox);
      if (draft === l.source) drafts.delete(sandbox);
      setSource(draft ?? l.source);
      setEditorText(draft ?? l.source);
      setMeta(metadataOf(l));
      setMetaFor(l.source);
    });
    return () => {
      cancelled = true;
      closeTools(sandbox);
    };
  }, [sandbox, reloadSeq, loadTools, closeTools]);

  // Live extraction, debounced; only the answer to the latest request is kept.
  useEffect(() => {
    if (!listed || source === metaFor) {
      setExtracting(false);
      return;
    }
    setExtracting(true);
    const seq = ++extractSeq.current;
    const t = setTimeout(() => {
      api['tools.extract']({ source })
        .then((m) => {
          if (seq !== extractSeq.current) return;
          setMeta(m);
          setMetaFor(source);
          setExtractError(undefined);
        })
        .catch((e: unknown) => {
          if (seq !== extractSeq.current) return;
          setExtractError(errorMessage(e));
        })
        .finally(() => {
          if (seq === extractSeq.current) setExtracting(false);
        });
    }, EXTRACT_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [source, metaFor, listed]);

  const dirty = !!listed && source !== saved;
  useEffect(onDirtyChange, [dirty, onDirtyChange]);
  const onChange = (v: string) => {
    setSource(v);
    setHold(undefined);
    if (listed && v !== saved) drafts.set(sandbox, v);
    else drafts.delete(sandbox);
  };

  /** A Save held back by syntax errors (cleared by the next edit). */
  const [hold, setHold] = useState<SaveHold>();
  const save = useCallback(
    async (anyway = false) => {
      if (!listed || saving) return;
      const h = anyway ? undefined : saveHold(metaFor === source ? (meta?.problems ?? []) : []);
      setHold(h);
      if (h) {
        setJump((j) => ({ line: h.first.line, column: h.first.column, seq: (j?.seq ?? 0) + 1 }));
        return;
      }
      const text = source;
      const r = await runSave(text);
      if (!r) return;
      setSaved(text);
      if (drafts.get(sandbox) === text) drafts.delete(sandbox);
      if (metaFor === text || meta === undefined) {
        setMeta(metadataOf(r));
        setMetaFor(text);
      }
    },
    [listed, saving, source, sandbox, meta, metaFor, runSave],
  );

  const revert = () => {
    setSource(saved);
    setEditorText(saved);
    setEditorKey((k) => k + 1);
    drafts.delete(sandbox);
  };

  const jumpTo = (line: number, column?: number) =>
    setJump((j) => ({ line, ...(column !== undefined ? { column } : {}), seq: (j?.seq ?? 0) + 1 }));
  // Opened from a traceback frame inside a tool: reveal that line once the source is in the editor.
  useEffect(() => {
    if (listed && line) setJump((j) => ({ line, seq: (j?.seq ?? 0) + 1 }));
  }, [listed, line]);

  if (loadError)
    return (
      <div className="tools-main">
        <div role="alert" className="error" data-testid="tools-load-error">
          Could not load the tools of {sandbox}: {loadError}
        </div>
        <button onClick={() => setReloadSeq((n) => n + 1)}>Try again</button>
      </div>
    );
  if (!listed)
    return (
      <div className="tools-main">
        <p className="muted">Loading the tools of {sandbox}…</p>
      </div>
    );

  const savedTools = listed.tools;
  const selectedTool = savedTools.find((t) => t.name === toolName) ?? savedTools[0];
  const problems = meta?.problems ?? [];
  const syntaxErrors = problems.filter((p) => p.rule === 'syntax').length;
  const stale = metaFor !== source;
  // Tools from the sandbox's MCP servers: callable like tools.py's, listed beside them (not editable here).
  const mcpTools = savedTools.filter((t) => t.mcp);
  const mcpOnly = mcpTools.length > 0 && listed.source.trim() === '' && !dirty;

  return (
    <div className="tools-main" data-sandbox={sandbox}>
      <div className="view-head">
        <h1>
          Tools <span className="muted">· {sandbox}</span>
        </h1>
        {dirty ? (
          <span className="badge dirty-badge" data-testid="dirty">
            unsaved changes
          </span>
        ) : mcpOnly ? (
          <span className="badge" data-testid="no-tools-file">
            no tools.py
          </span>
        ) : (
          <span className="badge status-succeeded" data-testid="saved">
            saved
          </span>
        )}
        <span className="spacer" />
        <button onClick={revert} disabled={!dirty || saving} title="Throw away the unsaved changes">
          Revert
        </button>
        <button
          className="primary"
          onClick={() => void save()}
          disabled={!dirty || saving}
          title="Save tools.py and hot-reload the sandbox (Ctrl+S in the editor)"
        >
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
      <div className="meta-line small">
        {description && <span>{description}</span>}
        <span className="muted">
          saved: {savedTools.length} tool{savedTools.length === 1 ? '' : 's'}
          {listed.problems.length > 0 && `, ${listed.problems.length} problems`}
        </span>
        <span
          className="muted"
          data-testid="extract-state"
          data-state={extracting ? 'extracting' : stale ? 'pending' : 'done'}
        >
          {extracting ? 'extracting…' : stale ? 'waiting…' : 'metadata up to date'}
        </span>
      </div>
      {hold && (
        <div role="alert" className="error" data-testid="save-held">
          {hold.message}{' '}
          <button className="link" onClick={() => jumpTo(hold.first.line, hold.first.column)}>
            Go to line {hold.first.line}
          </button>{' '}
          <button onClick={() => void save(true)} title="Save tools.py with its syntax errors (a draft)">
            Save anyway
          </button>
        </div>
      )}
      {mcpTools.length > 0 && (
        <section className="callout" data-testid="mcp-tools" aria-label="tools from MCP servers">
          <p className="small">
            {mcpOnly
              ? `This sandbox has no tools.py: its ${mcpTools.length} tools come from MCP servers (listed with their server on the right; Connections manages the servers). Type Python tools below to add some: saving creates tools.py.`
              : `Besides tools.py, ${mcpTools.length} tools come from MCP servers (marked with their server on the right).`}
          </p>
        </section>
      )}
      {saveError && (
        <div role="alert" className="error" data-testid="save-error">
          Save failed: {saveError}
        </div>
      )}
      {extractError && (
        <div role="alert" className="error" data-testid="extract-error">
          Live extraction failed (showing the last good metadata): {extractError}
        </div>
      )}
      <div className="tools-panes">
        <div
          className="tools-editor"
          onKeyDownCapture={(e) => {
            if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
              e.preventDefault();
              e.stopPropagation();
              if (dirty) void save();
            }
          }}
        >
          <CodeEditor
            label="tools.py"
            language="python"
            key={editorKey}
            value={editorText}
            onChange={onChange}
            violations={problems}
            jump={jump}
            height={640}
            wordWrap
          />
          <div className="tools-problems" data-testid="problems">
            {syntaxErrors > 0 && (
              <p className="error small" role="alert">
                tools.py has {syntaxErrors} syntax error{syntaxErrors > 1 ? 's' : ''}; the metadata below
                shows what could still be read.
              </p>
            )}
            <ProblemList problems={problems} onJump={(v) => jumpTo(v.line, v.column)} />
          </div>
        </div>
        {meta ? (
          <ToolMetadata meta={meta} stale={stale} onJump={(line) => jumpTo(line)} />
        ) : (
          <p className="muted">No metadata yet.</p>
        )}
      </div>
      <section className="try-section" aria-label="try tool">
        <h2>Try tool</h2>
        {savedTools.length === 0 ? (
          <p className="muted">
            The saved tools.py has no tools to call
            {listed.problems.length > 0 ? ` (${listed.problems.length} problems)` : ''}.
          </p>
        ) : (
          <>
            <div className="tool-picker" role="tablist" aria-label="saved tools">
              {savedTools.map((t) => (
                <button
                  key={t.name}
                  role="tab"
                  data-tool={t.name}
                  aria-selected={t.name === selectedTool?.name}
                  className={`chip ${t.name === selectedTool?.name ? 'active' : ''}`}
                  onClick={() => setToolName(t.name)}
                >
                  {t.name}
                </button>
              ))}
            </div>
            {selectedTool && (
              <TryTool
                key={`${sandbox}/${selectedTool.name}/${JSON.stringify(selectedTool.parameters)}`}
                sandbox={sandbox}
                tool={selectedTool}
                unsaved={dirty}
              />
            )}
          </>
        )}
      </section>
    </div>
  );
}

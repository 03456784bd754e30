/**
 * Monaco editor for scripts and tools.py: validation violations become markers, `jump` reveals and
 * selects a line (traceback frames, violation list). The wrapper carries `data-cursor-line` so tests
 * and people can see where the cursor is.
 */
import Editor from '@monaco-editor/react';
import type { OnMount } from '@monaco-editor/react';
import { useEffect, useRef, useState } from 'react';
import type { Violation } from '../../../src-main/core/lang/violation.ts';
import { selectedLines } from '../lib/editor-size.ts';
import { quietMonacoAlerts } from '../lib/monaco-aria.ts';
import { monaco } from '../monaco.ts';
import { useStore } from '../store/index.ts';

type CodeEditor = Parameters<OnMount>[0];

export const monacoLanguage = (lang: string | undefined): string =>
  lang === 'js' ? 'javascript' : lang === 'ts' ? 'typescript' : 'python';

export interface CodeEditorProps {
  value: string;
  language?: string;
  onChange?: (value: string) => void;
  readOnly?: boolean;
  violations?: Violation[];
  jump?: { line: number; column?: number; seq: number };
  height?: number | string;
  label: string;
  /** Ctrl/Cmd+Enter inside the editor. */
  onRun?: () => void;
  /** Wrap long lines at the editor's width (tools.py's docstrings) instead of scrolling sideways. */
  wordWrap?: boolean;
  /** The lines a selection covers (mouse or keyboard), when it is not empty. */
  onSelectLines?: (start: number, end: number) => void;
}

/** How many reported texts the editor remembers while they have not come back as `value`. */
const MAX_UNECHOED = 100;

export function CodeEditor(props: CodeEditorProps) {
  const readOnly = props.readOnly ?? false;
  const theme = useStore((s) => s.theme);
  const editorRef = useRef<CodeEditor | null>(null);
  const [cursorLine, setCursorLine] = useState(1);
  const [ready, setReady] = useState(false);
  const [focused, setFocused] = useState(false);
  // Tab indents in an editable editor until Ctrl+M switches it (in that editor) to moving the focus.
  const [tabMoves, setTabMoves] = useState(false);
  const onRunRef = useRef(props.onRun);
  onRunRef.current = props.onRun;
  const onSelectRef = useRef(props.onSelectLines);
  onSelectRef.current = props.onSelectLines;
  // The editor owns its text while people type: a parent that feeds onChange back into `value` must not
  // overwrite newer keystrokes with an older render, so only a value the editor never reported (a reset,
  // a new attempt, streamed tokens) is pushed into the model. Every text it reported that has not come
  // back yet is remembered, oldest first: Monaco's typing arrives as EditContext `textupdate` events,
  // which React renders at default priority, and the render of one keystroke's text could commit after
  // the next keystroke. Compared with the last text reported only, that older text was taken for a
  // change from outside and written into the model: the newer keys were dropped and the cursor went to
  // the top (typed fast after a click into a run's script, "abc" came out scrambled at line 1).
  const unechoed = useRef<string[]>([]);
  const applying = useRef(false);

  const onMount: OnMount = (editor) => {
    editorRef.current = editor;
    // Monaco's first editor has just added its two empty role=alert regions to the page (lib/monaco-aria.ts).
    quietMonacoAlerts();
    editor.onDidChangeCursorPosition((e) => setCursorLine(e.position.lineNumber));
    editor.onDidChangeCursorSelection((e) => {
      const lines = selectedLines(e.selection);
      if (lines) onSelectRef.current?.(lines.start, lines.end);
    });
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => onRunRef.current?.());
    editor.onDidFocusEditorText(() => setFocused(true));
    editor.onDidBlurEditorText(() => setFocused(false));
    // Ctrl+M switches what Tab does in this editor (Monaco's own Ctrl+M switches a global mode that no
    // editor option reports, so the note could not follow it).
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyM, () => {
      const next = !editor.getOption(monaco.editor.EditorOption.tabFocusMode);
      editor.updateOptions({ tabFocusMode: next });
      setTabMoves(next); // kept by the options below on the next render
    });
    setReady(true);
  };

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    // The parent echoing a text the editor reported (the last one, or an older one a render late): the
    // model has it or newer keystrokes after it.
    const echoed = unechoed.current.indexOf(props.value);
    if (echoed >= 0) {
      unechoed.current.splice(0, echoed + 1);
      return;
    }
    if (props.value === model.getValue()) return;
    unechoed.current = [];
    // A value pushed from outside is not an edit: onChange stays quiet while it is applied.
    applying.current = true;
    try {
      model.setValue(props.value);
    } finally {
      applying.current = false;
    }
  }, [props.value, ready]);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    monaco.editor.setModelMarkers(
      model,
      'toolsmith',
      (props.violations ?? []).map((v) => ({
        severity: monaco.MarkerSeverity.Error,
        message: `${v.message} (${v.rule})`,
        source: v.rule,
        startLineNumber: Math.max(1, v.line),
        startColumn: Math.max(1, v.column),
        endLineNumber: Math.max(1, v.endLine),
        endColumn: v.endLine === v.line && v.endColumn <= v.column ? v.column + 1 : Math.max(1, v.endColumn),
      })),
    );
  }, [props.violations, props.value, ready]);

  useEffect(() => {
    const editor = editorRef.current;
    const j = props.jump;
    const model = editor?.getModel();
    if (!editor || !model || !j) return;
    // A line the text no longer has (a traceback frame of an older tools.py, a hand-made link) is the
    // last one: Monaco throws on a line out of range.
    const line = Math.min(Math.max(1, Math.floor(j.line) || 1), model.getLineCount());
    const column = j.column !== undefined && line === j.line ? j.column : undefined;
    editor.revealLineInCenter(line);
    editor.setSelection({
      startLineNumber: line,
      startColumn: Math.min(Math.max(1, column ?? 1), model.getLineMaxColumn(line)),
      endLineNumber: line,
      endColumn: Math.min(Math.max(1, column ?? model.getLineMaxColumn(line)), model.getLineMaxColumn(line)),
    });
    editor.focus();
  }, [props.jump, ready]);

  return (
    <div
      className="code-editor"
      data-testid={`editor-${props.label}`}
      data-language={monacoLanguage(props.language)}
      data-cursor-line={cursorLine}
      data-ready={ready ? 'true' : 'false'}
      data-word-wrap={props.wordWrap ? 'on' : 'off'}
      aria-label={props.label}
      style={{ height: props.height ?? 320 }}
    >
      {!readOnly && focused && (
        // The way out of an editable editor, shown while it has the focus (Tab indents there).
        <span className="editor-tab-hint" role="note" data-testid="editor-tab-hint">
          {tabMoves ? (
            <>
              <kbd>Tab</kbd> leaves the editor · <kbd>Ctrl</kbd>+<kbd>M</kbd>: <kbd>Tab</kbd> indents
            </>
          ) : (
            <>
              <kbd>Tab</kbd> indents · <kbd>Ctrl</kbd>+<kbd>M</kbd>: <kbd>Tab</kbd> leaves the editor
            </>
          )}
        </span>
      )}
      <Editor
        defaultValue={props.value}
        language={monacoLanguage(props.language)}
        theme={theme === 'dark' ? 'vs-dark' : 'vs'}
        onMount={onMount}
        onChange={(v) => {
          if (applying.current) return;
          const text = v ?? '';
          // (bounded: a parent that never echoes, e.g. a read-only one, must not make this grow for good)
          unechoed.current.push(text);
          if (unechoed.current.length > MAX_UNECHOED) unechoed.current.shift();
          props.onChange?.(text);
        }}
        loading={<div className="muted pad">Loading editor…</div>}
        options={{
          readOnly,
          // A read-only editor is passed through with Tab like any other part of the page.
          tabFocusMode: readOnly || tabMoves,
          minimap: { enabled: false },
          fontSize: 13,
          scrollBeyondLastLine: false,
          automaticLayout: true,
          glyphMargin: true,
          renderValidationDecorations: 'on',
          tabSize: 4,
          wordWrap: props.wordWrap ? 'on' : 'off',
          // The browser's line breaking: Monaco's own breaks after "." and before "+", inside numbers.
          wrappingStrategy: props.wordWrap ? 'advanced' : 'simple',
        }}
      />
    </div>
  );
}

/**
 * Monaco's diff editor, owned directly: its models are created here and released in the right order
 * on unmount (the editor lets go of them before they are disposed).
 */
export function CodeDiff(props: {
  original: string;
  modified: string;
  language?: string;
  label: string;
  height?: number;
  /**
   * Whether Monaco shows the two sides side by side or, in a narrow box (under 900 px), one inline view
   * (removed lines above added ones): told when the editor starts and whenever that changes, so labels
   * of a left and a right side can follow.
   */
  onSideBySide?: (sideBySide: boolean) => void;
}) {
  const theme = useStore((s) => s.theme);
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  const onSideBySideRef = useRef(props.onSideBySide);
  onSideBySideRef.current = props.onSideBySide;
  const [sideBySide, setSideBySide] = useState(true);
  useEffect(() => {
    if (!host.current) return;
    const editor = monaco.editor.createDiffEditor(host.current, {
      readOnly: true,
      // Read-only: Tab moves on through the page.
      tabFocusMode: true,
      renderSideBySide: true,
      automaticLayout: true,
      minimap: { enabled: false },
    });
    quietMonacoAlerts();
    editorRef.current = editor;
    // Monaco marks its root `side-by-side` while it shows two sides (its own choice by the box's width).
    const root = host.current.querySelector('.monaco-diff-editor');
    const tell = () => {
      const now = root?.classList.contains('side-by-side') ?? true;
      setSideBySide(now);
      onSideBySideRef.current?.(now);
    };
    const observer = new MutationObserver(tell);
    if (root) observer.observe(root, { attributes: true, attributeFilter: ['class'] });
    tell();
    return () => {
      observer.disconnect();
      const model = editor.getModel();
      editor.setModel(null);
      model?.original.dispose();
      model?.modified.dispose();
      editor.dispose();
      editorRef.current = null;
    };
  }, []);
  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const lang = monacoLanguage(props.language);
    const previous = editor.getModel();
    editor.setModel({
      original: monaco.editor.createModel(props.original, lang),
      modified: monaco.editor.createModel(props.modified, lang),
    });
    previous?.original.dispose();
    previous?.modified.dispose();
  }, [props.original, props.modified, props.language]);
  useEffect(() => monaco.editor.setTheme(theme === 'dark' ? 'vs-dark' : 'vs'), [theme]);
  return (
    <div
      className="code-editor"
      data-testid={`diff-${props.label}`}
      data-layout={sideBySide ? 'side-by-side' : 'inline'}
      ref={host}
      style={{ height: props.height ?? 360 }}
    />
  );
}

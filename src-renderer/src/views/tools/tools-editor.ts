/**
 * The Tools view's editing state as data: the text in the editor and the saved text, the metadata
 * extracted live and which text it belongs to, a Save held back by syntax errors, where the editor
 * jumps, and the tool picked for Try. Pure (tested in node); `useSandboxTools.ts` binds it to React,
 * the API and the store, and owns the effects (load, debounced extraction, drafts).
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import { saveHold } from './save-check.ts';
import type { SaveHold } from './save-check.ts';

export type Listed = Response<'tools.list'>;
export type Metadata = Response<'tools.extract'>;

export interface Jump {
  line: number;
  column?: number;
  /** Bumped on every jump, so jumping to the same line again reveals it again. */
  seq: number;
}

export interface ToolsEditorState {
  /** The editor holds the loaded source (the listing is shown only from then on). */
  ready: boolean;
  /** The text in the editor now. */
  source: string;
  /**
   * The text handed to the editor, changed only on load, revert and a change on disk of a clean editor
   * (the last two with a new `editorKey`): feeding
   * every keystroke back as `value` lets a re-render that lags behind fast typing overwrite the newer
   * text in Monaco and drop characters.
   */
  editorText: string;
  editorKey: number;
  /** The text saved in tools.py. */
  saved: string;
  /** The metadata of `metaFor` (the text it was extracted from). */
  meta?: Metadata;
  metaFor?: string;
  extracting: boolean;
  extractError?: string;
  /** A Save held back by syntax errors (cleared by the next edit). */
  hold?: SaveHold;
  jump?: Jump;
  /** The saved tool picked for Try (the first when none is). */
  toolName?: string;
  /**
   * tools.py changed on disk (another editor, a `git checkout`) while the editor held unsaved edits: they
   * are kept, and Save would overwrite the file's new text (Revert takes it).
   */
  diskChanged?: boolean;
}

export const initialToolsEditor: ToolsEditorState = {
  ready: false,
  source: '',
  editorText: '',
  editorKey: 0,
  saved: '',
  extracting: false,
};

export const metadataOf = (l: Listed | Response<'tools.save'>): Metadata => ({
  tools: l.tools,
  problems: l.problems,
  prompt: l.prompt,
  openai: l.openai,
});

export type ToolsEditorAction =
  | { type: 'loading' }
  /** The saved tools.py arrived; an unsaved draft of it wins over its source. */
  | { type: 'loaded'; listed: Listed; draft?: string | undefined }
  | { type: 'edit'; text: string }
  | { type: 'extracting'; on: boolean }
  | { type: 'extracted'; meta: Metadata; source: string }
  | { type: 'extractFailed'; error: string }
  /** A Save was asked for: held back (and the editor at the first error), or not. */
  | { type: 'hold'; hold: SaveHold | undefined }
  | { type: 'saved'; text: string; result: Response<'tools.save'> }
  /**
   * This view's save of `text` answered after tools.py had changed on disk again (another editor) and
   * been read: `listed` is the file now.
   */
  | { type: 'savedOver'; text: string; listed: Listed }
  /** The listing was read again (tools.py changed on disk, or this view's own save came back). */
  | { type: 'disk'; listed: Listed }
  | { type: 'revert' }
  | { type: 'jump'; line: number; column?: number | undefined }
  | { type: 'pickTool'; name: string };

const jumpTo = (j: Jump | undefined, line: number, column?: number): Jump => ({
  line,
  ...(column !== undefined ? { column } : {}),
  seq: (j?.seq ?? 0) + 1,
});

export function toolsEditorReducer(s: ToolsEditorState, a: ToolsEditorAction): ToolsEditorState {
  switch (a.type) {
    case 'loading':
      return s.ready ? { ...s, ready: false } : s;
    case 'loaded': {
      const text = a.draft ?? a.listed.source;
      return {
        ...s,
        ready: true,
        saved: a.listed.source,
        source: text,
        editorText: text,
        meta: metadataOf(a.listed),
        metaFor: a.listed.source,
      };
    }
    case 'disk': {
      const text = a.listed.source;
      if (!s.ready || text === s.saved) return s;
      // The editor already holds the file's text (this view's own save): it is the saved text now.
      if (text === s.source)
        return { ...s, saved: text, diskChanged: undefined, meta: metadataOf(a.listed), metaFor: text };
      // Unsaved edits are kept; the person decides (Save overwrites the file, Revert takes it).
      if (s.source !== s.saved) return { ...s, saved: text, diskChanged: true };
      // No unsaved edit: the editor shows the file as it is now.
      return {
        ...s,
        saved: text,
        source: text,
        editorText: text,
        editorKey: s.editorKey + 1,
        meta: metadataOf(a.listed),
        metaFor: text,
        hold: undefined,
        diskChanged: undefined,
      };
    }
    case 'edit':
      return { ...s, source: a.text, hold: undefined };
    case 'extracting':
      return s.extracting === a.on ? s : { ...s, extracting: a.on };
    case 'extracted':
      return { ...s, meta: a.meta, metaFor: a.source, extractError: undefined };
    case 'extractFailed':
      return { ...s, extractError: a.error };
    case 'hold':
      return a.hold
        ? { ...s, hold: a.hold, jump: jumpTo(s.jump, a.hold.first.line, a.hold.first.column) }
        : { ...s, hold: undefined };
    case 'saved':
      // The save's metadata replaces the shown one only when it describes the same text.
      return {
        ...s,
        saved: a.text,
        diskChanged: undefined,
        ...(s.metaFor === a.text || s.meta === undefined
          ? { meta: metadataOf(a.result), metaFor: a.text }
          : {}),
      };
    case 'savedOver': {
      // The newer file is the saved text. The editor still holds what this save wrote (nothing typed
      // since): it shows the newer file, as it follows any change on disk of a clean editor. Typed since:
      // those edits stay, with the file's change told (Save overwrites it, Revert takes it). Before, the
      // save marked its own text saved: the editor went back to it, the newer file lost from view.
      const file = a.listed.source;
      if (s.source === a.text || s.source === file)
        return {
          ...s,
          saved: file,
          source: file,
          ...(s.source !== file ? { editorText: file, editorKey: s.editorKey + 1, hold: undefined } : {}),
          meta: metadataOf(a.listed),
          metaFor: file,
          diskChanged: undefined,
        };
      return { ...s, saved: file, diskChanged: true };
    }
    case 'revert':
      return {
        ...s,
        source: s.saved,
        editorText: s.saved,
        editorKey: s.editorKey + 1,
        diskChanged: undefined,
      };
    case 'jump':
      return { ...s, jump: jumpTo(s.jump, a.line, a.column) };
    case 'pickTool':
      return { ...s, toolName: a.name };
  }
}

/**
 * What holds a Save back: the syntax errors of the metadata when it describes the text in the editor
 * (stale metadata holds nothing back); none when saving anyway.
 */
export const holdFor = (s: ToolsEditorState, anyway: boolean): SaveHold | undefined =>
  anyway ? undefined : saveHold(s.metaFor === s.source ? (s.meta?.problems ?? []) : []);

/** The badge beside the title. */
export type SavedState = 'dirty' | 'no-tools-file' | 'saved';

export interface ToolsViewModel {
  dirty: boolean;
  /** The metadata shown is not of the text in the editor (extraction pending). */
  stale: boolean;
  problems: Violation[];
  syntaxErrors: number;
  savedTools: SandboxTool[];
  selectedTool: SandboxTool | undefined;
  /** Tools from the sandbox's MCP servers (callable like tools.py's; not editable here). */
  mcpTools: SandboxTool[];
  /** The sandbox has no tools.py: all its tools come from MCP servers. */
  mcpOnly: boolean;
  badge: SavedState;
  extractState: 'extracting' | 'pending' | 'done';
}

/** What the view shows, derived from the state and the saved listing. */
export function toolsViewModel(s: ToolsEditorState, listed: Listed): ToolsViewModel {
  const dirty = s.source !== s.saved;
  const savedTools = listed.tools;
  const problems = s.meta?.problems ?? [];
  const stale = s.metaFor !== s.source;
  const mcpTools = savedTools.filter((t) => t.mcp);
  const mcpOnly = mcpTools.length > 0 && listed.source.trim() === '' && !dirty;
  return {
    dirty,
    stale,
    problems,
    syntaxErrors: problems.filter((p) => p.rule === 'syntax').length,
    savedTools,
    selectedTool: savedTools.find((t) => t.name === s.toolName) ?? savedTools[0],
    mcpTools,
    mcpOnly,
    badge: dirty ? 'dirty' : mcpOnly ? 'no-tools-file' : 'saved',
    extractState: s.extracting ? 'extracting' : stale ? 'pending' : 'done',
  };
}

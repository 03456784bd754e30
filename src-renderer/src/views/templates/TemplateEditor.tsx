/**
 * The template editor, for a promotion (a run's verified script becomes a template) and for an edit
 * (the template is re-created with `force`). Name, pattern and slot types, body in Monaco, examples
 * (intent + optional expected JSON) checked live against the pattern; the service's refusal (body does
 * not validate, example does not match, name taken) is shown inline. State and actions:
 * useTemplateEditor.ts (on the pure template-editor.ts); parts: TemplateEditorParts.tsx, PatternEditor.tsx.
 */
import { fitEditorHeight } from '../../lib/editor-size.ts';
import type { TemplateInfo } from '../../../../src-main/contract/api.ts';
import { CodeEditor } from '../../components/Editors.tsx';
import { PatternEditor } from './PatternEditor.tsx';
import type { FromRun, TemplateDraft } from './drafts.ts';
import { EditorHeader, ExampleRow, NameFields, SaveBar } from './TemplateEditorParts.tsx';
import { useTemplateEditor } from './useTemplateEditor.ts';

export type { ExampleDraft, TemplateDraft } from './drafts.ts';

export interface TemplateEditorProps {
  mode: 'promote' | 'edit';
  initial: TemplateDraft;
  /** Names of the templates that exist (a promotion under a taken name needs "replace"). */
  existing: string[];
  /** Promote: the run and attempt the script comes from. Edit: the template's origin run, if any. */
  fromRun?: FromRun;
  /** Keeps the edits under this key when the view closes (a promotion), until saved or cancelled. */
  draftKey?: string;
  onSaved: (t: TemplateInfo) => void;
  onCancel: () => void;
}

export function TemplateEditor({
  mode,
  initial,
  existing,
  fromRun,
  draftKey,
  onSaved,
  onCancel,
}: TemplateEditorProps) {
  const e = useTemplateEditor({ mode, initial, existing, fromRun, draftKey, onSaved });
  const { draft } = e.state;
  const set = (patch: Partial<TemplateDraft>) => e.dispatch({ type: 'set', patch });
  return (
    <div
      className="manage-panel template-editor"
      data-testid={mode === 'promote' ? 'promote-editor' : 'template-editor'}
      aria-label={mode === 'promote' ? 'promote to template' : `edit template ${initial.name}`}
      role="region"
    >
      <EditorHeader mode={mode} name={initial.name} draft={draft} fromRun={fromRun} />
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          void e.submit();
        }}
      >
        <NameFields
          mode={mode}
          name={draft.name}
          description={draft.description}
          taken={e.taken}
          replace={e.state.replace}
          onChange={set}
          onReplace={(replace) => e.dispatch({ type: 'replace', replace })}
        />
        <PatternEditor
          value={{ pattern: draft.pattern, slots: draft.slots, body: draft.body }}
          onChange={(p) => set(p)}
        />
        <h3 className="small">Body</h3>
        <p className="muted small">
          The verified script with <code>{'{{slot}}'}</code> where each slot&apos;s value goes. It is
          validated with every example before the template is saved.
        </p>
        <CodeEditor
          label="template-body"
          value={draft.body}
          language={draft.language}
          onChange={(body) => set({ body })}
          onRun={() => void e.submit()}
          height={fitEditorHeight(draft.body, { max: 360 })}
        />
        <h3 className="small">Examples</h3>
        <p className="muted small">
          Each example must match the pattern; <em>Test</em> runs it in the sandbox and compares the result
          with the expected JSON when one is given.
        </p>
        {draft.examples.length === 0 && (
          <p className="warn small">No examples: the template cannot be tested. Add at least one.</p>
        )}
        {draft.examples.map((ex, i) => (
          <ExampleRow
            key={i}
            index={i}
            example={ex}
            check={e.checks[i]}
            runResult={fromRun?.result}
            onChange={(patch) => e.dispatch({ type: 'example', index: i, patch })}
            onRemove={() => e.dispatch({ type: 'removeExample', index: i })}
          />
        ))}
        <button type="button" onClick={() => e.dispatch({ type: 'addExample' })}>
          Add example
        </button>
        <SaveBar
          mode={mode}
          problems={e.problems}
          patternIssues={e.patternIssues}
          saving={e.saving}
          error={e.error}
          onCancel={() => {
            e.discard();
            onCancel();
          }}
        />
      </form>
    </div>
  );
}

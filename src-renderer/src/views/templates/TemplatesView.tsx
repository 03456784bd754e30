/**
 * Templates, the ratchet: verified scripts saved with an intent pattern serve matching tasks with no
 * LLM call. The list shows each template's pattern, slots and success/failure counters, and the files
 * that do not parse; a run's script is promoted here (the run view sets `promote`), templates are
 * tested against their examples, edited (re-created with `force`) and deleted. State and actions:
 * useTemplates.ts (on the pure templates.ts); parts: TemplatesParts.tsx, the editor TemplateEditor.tsx.
 */
import { TemplateEditor } from './TemplateEditor.tsx';
import {
  LoadError,
  PromoteFailed,
  PromoteLoading,
  TemplateProblems,
  TemplatesEmpty,
  TemplatesHead,
  TemplatesTable,
} from './TemplatesParts.tsx';
import { useTemplates } from './useTemplates.ts';
import '../manage.css';

export function TemplatesView() {
  const v = useTemplates();
  const { state, dispatch, list, promote } = v;
  const { editor } = state;
  const templates = list?.templates ?? [];
  const reload = () => void v.reload();
  return (
    <section aria-label="templates" className="manage-view templates-view">
      <TemplatesHead loading={v.loading} onReload={reload} />
      <p className="muted small">
        A template is a verified script with an intent pattern: a task that matches it is served by the
        script, with its slots filled in, and no LLM call. Promote a successful run from its run view.
      </p>

      {editor?.kind === 'loading' && <PromoteLoading what={editor.what} />}
      {editor?.kind === 'error' && (
        <PromoteFailed
          what={editor.what}
          error={editor.error}
          onClose={v.closeEditor}
          onBackToRun={promote ? () => v.backToRun(promote.runId) : undefined}
        />
      )}
      {editor?.kind === 'open' && (
        <TemplateEditor
          key={editor.key}
          mode={editor.mode}
          initial={editor.draft}
          existing={templates.map((t) => t.name)}
          {...(editor.fromRun ? { fromRun: editor.fromRun } : {})}
          {...(editor.mode === 'promote' ? { draftKey: editor.key } : {})}
          onCancel={v.closeEditor}
          onSaved={(t) => v.saved(editor.mode, t)}
        />
      )}

      {v.loadError && <LoadError error={v.loadError} onRetry={reload} />}
      <TemplateProblems problems={list?.problems ?? []} />
      {!list && v.loading && <p className="muted">Loading templates…</p>}
      {list && templates.length === 0 && <TemplatesEmpty />}
      {templates.length > 0 && (
        <TemplatesTable
          templates={templates}
          tests={v.tests}
          confirmDelete={state.confirmDelete}
          deleting={state.deleting}
          onTest={(name) => void v.test(name)}
          onEdit={v.edit}
          onConfirmDelete={(name) => dispatch({ type: 'confirmDelete', name })}
          onDelete={(name) => void v.remove(name)}
          onCloseTest={v.closeTest}
        />
      )}
    </section>
  );
}

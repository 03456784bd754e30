/**
 * Templates, the ratchet: verified scripts saved with an intent pattern serve matching tasks with no
 * LLM call. The list shows each template's pattern, slots and success/failure counters, and the files
 * that do not parse; a run's script is promoted here (the run view sets `promote`), templates are
 * tested against their examples, edited (re-created with `force`) and deleted.
 */
import { Fragment, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client.ts';
import { formatDateTime } from '../../components/Badges.tsx';
import { draftOf, promoteDraft } from './drafts.ts';
import type { FromRun, TemplateDraft } from './drafts.ts';
import { TemplateEditor } from './TemplateEditor.tsx';
import { useStore } from '../../store/index.ts';
import { TestResults } from './TestResults.tsx';
import '../manage.css';

type EditorState =
  | { kind: 'loading'; what: string }
  | { kind: 'error'; what: string; error: string }
  | {
      kind: 'open';
      key: string;
      mode: 'promote' | 'edit';
      draft: TemplateDraft;
      fromRun?: FromRun;
    };

export function TemplatesView() {
  const promote = useStore((s) => s.promote);
  const setPromote = useStore((s) => s.setPromote);
  const notify = useStore((s) => s.notify);
  const navigate = useStore((s) => s.navigate);
  const list = useStore((s) => s.templateList);
  const loading = useStore((s) => s.templatesLoading);
  const loadError = useStore((s) => s.templatesError);
  const tests = useStore((s) => s.templateTests);
  const reload = useStore((s) => s.loadTemplates);
  const test = useStore((s) => s.testTemplate);
  const closeTest = useStore((s) => s.closeTemplateTest);
  const clearTests = useStore((s) => s.clearTemplateTests);
  const deleteTemplate = useStore((s) => s.deleteTemplate);
  const [editor, setEditor] = useState<EditorState>();
  const [confirmDelete, setConfirmDelete] = useState<string>();
  const [deleting, setDeleting] = useState(false);

  useEffect(() => void reload(), [reload]);
  // The view starts without test results, and forgets them when it closes.
  useEffect(() => {
    clearTests();
    return clearTests;
  }, [clearTests]);

  // "Promote to template" in a run: propose a pattern, slots and body from the run, open the editor.
  useEffect(() => {
    if (!promote) return;
    let stale = false;
    const what = `run ${promote.runId.slice(0, 8)}`;
    setEditor({ kind: 'loading', what });
    Promise.all([
      api['templates.propose']({
        runId: promote.runId,
        ...(promote.attempt !== undefined ? { attempt: promote.attempt } : {}),
      }),
      api['runs.get']({ runId: promote.runId }),
    ])
      .then(([p, rec]) => {
        if (stale) return;
        setEditor({
          kind: 'open',
          key: `promote-${promote.runId}-${promote.attempt ?? ''}`,
          mode: 'promote',
          ...promoteDraft(p, rec, promote),
        });
      })
      .catch((e: unknown) => {
        if (!stale) setEditor({ kind: 'error', what, error: errorMessage(e) });
      });
    return () => {
      stale = true;
    };
  }, [promote]);

  const closeEditor = () => {
    setEditor(undefined);
    if (useStore.getState().promote) setPromote(undefined);
  };

  const remove = async (name: string) => {
    setDeleting(true);
    if (await deleteTemplate(name)) {
      setConfirmDelete(undefined);
      if (editor?.kind === 'open' && editor.mode === 'edit' && editor.draft.name === name)
        setEditor(undefined);
    }
    setDeleting(false);
    await reload();
  };

  const templates = list?.templates ?? [];
  const problems = list?.problems ?? [];
  return (
    <section aria-label="templates" className="manage-view templates-view">
      <div className="view-head">
        <h1>Templates</h1>
        <button onClick={() => void reload()} disabled={loading}>
          {loading ? 'Loading…' : 'Reload'}
        </button>
      </div>
      <p className="muted small">
        A template is a verified script with an intent pattern: a task that matches it is served by the
        script, with its slots filled in, and no LLM call. Promote a successful run from its run view.
      </p>

      {editor?.kind === 'loading' && (
        <div className="manage-panel" data-testid="promote-loading">
          Proposing a template from {editor.what}…
        </div>
      )}
      {editor?.kind === 'error' && (
        <div className="manage-panel">
          <div role="alert" className="error">
            Could not propose a template from {editor.what}: {editor.error}
          </div>
          <div className="actions">
            <button onClick={closeEditor}>Close</button>
            {promote && (
              <button onClick={() => navigate({ view: 'run', id: promote.runId })}>Back to the run</button>
            )}
          </div>
        </div>
      )}
      {editor?.kind === 'open' && (
        <TemplateEditor
          key={editor.key}
          mode={editor.mode}
          initial={editor.draft}
          existing={templates.map((t) => t.name)}
          {...(editor.fromRun ? { fromRun: editor.fromRun } : {})}
          onCancel={closeEditor}
          onSaved={(t) => {
            notify(
              'info',
              editor.mode === 'promote' ? `Template ${t.name} created.` : `Template ${t.name} saved.`,
            );
            closeEditor();
            void reload();
          }}
        />
      )}

      {loadError && (
        <div role="alert" className="error callout bad">
          Could not load the templates: {loadError} <button onClick={() => void reload()}>Retry</button>
        </div>
      )}
      {problems.length > 0 && (
        <div className="callout bad" data-testid="template-problems">
          <strong>
            {problems.length} template file{problems.length > 1 ? 's' : ''} could not be read (not served):
          </strong>
          <ul>
            {problems.map((p) => (
              <li key={p.file}>
                <code>{p.file}</code>: <span className="error">{p.error}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!list && loading && <p className="muted">Loading templates…</p>}
      {list && templates.length === 0 && (
        <p className="muted empty" data-testid="templates-empty">
          No templates yet. Open a run that succeeded and click <em>Promote to template</em>: the next task
          that matches its pattern runs with zero LLM calls.
        </p>
      )}
      {templates.length > 0 && (
        <table className="manage-table" aria-label="templates list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Pattern</th>
              <th>Slots</th>
              <th>Sandbox</th>
              <th className="num">Examples</th>
              <th className="num" title="successes / failures">
                Uses ✓ / ✗
              </th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {templates.map((t) => {
              const ts = tests[t.name];
              return (
                <Fragment key={t.name}>
                  <tr data-template={t.name}>
                    <td>
                      <strong>{t.name}</strong>
                      {t.description && <div className="small">{t.description}</div>}
                      <div className="muted small ellipsis" title={t.file}>
                        {t.file.replace(/^.*[/\\]/, '')}
                      </div>
                    </td>
                    <td>
                      <code>{t.pattern}</code>
                    </td>
                    <td>
                      {Object.entries(t.slots).map(([k, v]) => (
                        <span key={k} className="badge">
                          {k}: {v}
                        </span>
                      ))}
                      {Object.keys(t.slots).length === 0 && <span className="muted small">none</span>}
                    </td>
                    <td>
                      {t.sandbox}
                      {t.kit ? `/${t.kit}` : ''}
                      <div className="muted small">{t.language}</div>
                    </td>
                    <td className="num">{t.examples.length}</td>
                    <td className="num">
                      <span className="counter-ok" data-testid="template-successes" title="successes">
                        {t.successes}
                      </span>{' '}
                      /{' '}
                      <span
                        className={t.failures ? 'counter-bad' : 'muted'}
                        data-testid="template-failures"
                        title="failures"
                      >
                        {t.failures}
                      </span>
                    </td>
                    <td className="small">
                      {t.lastUsed ? formatDateTime(t.lastUsed) : <span className="muted">never</span>}
                    </td>
                    <td>
                      <div className="row-actions">
                        <button
                          onClick={() => void test(t.name)}
                          disabled={ts?.running || t.examples.length === 0}
                          title={
                            t.examples.length
                              ? 'Run every example in the sandbox (counts as uses)'
                              : 'This template has no examples to test'
                          }
                        >
                          {ts?.running ? 'Testing…' : 'Test'}
                        </button>
                        <button
                          onClick={() =>
                            setEditor({
                              kind: 'open',
                              key: `edit-${t.name}-${Date.now()}`,
                              mode: 'edit',
                              draft: draftOf(t),
                              ...(t.origin ? { fromRun: { runId: t.origin } } : {}),
                            })
                          }
                        >
                          Edit
                        </button>
                        {confirmDelete === t.name ? (
                          <span
                            className="inline-confirm"
                            role="group"
                            aria-label={`confirm delete ${t.name}`}
                          >
                            <span className="small">Delete the file and its counters?</span>
                            <button
                              className="danger"
                              disabled={deleting}
                              onClick={() => void remove(t.name)}
                            >
                              {deleting ? 'Deleting…' : 'Yes, delete'}
                            </button>
                            <button onClick={() => setConfirmDelete(undefined)} disabled={deleting}>
                              Keep
                            </button>
                          </span>
                        ) : (
                          <button className="danger" onClick={() => setConfirmDelete(t.name)}>
                            Delete
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                  {ts && (
                    <tr className="expanded" data-template-test={t.name}>
                      <td colSpan={8}>
                        <div className="meta-line">
                          <strong className="small">Test of {t.name}</strong>
                          <span className="spacer" />
                          {!ts.running && (
                            <button className="link" onClick={() => closeTest(t.name)}>
                              close
                            </button>
                          )}
                        </div>
                        <TestResults state={ts} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

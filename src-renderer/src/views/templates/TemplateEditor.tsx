/**
 * The template editor, for a promotion (a run's verified script becomes a template) and for an edit
 * (the template is re-created with `force`). Name, pattern and slot types, body in Monaco, examples
 * (intent + optional expected JSON) checked live against the pattern; the service's refusal (body does
 * not validate, example does not match, name taken) is shown inline.
 */
import { fitEditorHeight } from '../../lib/editor-size.ts';
import { useMemo, useState } from 'react';
import type { Request, TemplateInfo } from '../../../../src-main/contract/api.ts';
import { matchTemplate } from '../../../../src-main/core/templates/template.ts';
import type { Template } from '../../../../src-main/core/templates/template.ts';
import { ApiCallError, api } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { CodeEditor } from '../../components/Editors.tsx';
import { PatternEditor } from './PatternEditor.tsx';
import { parseExpect } from './drafts.ts';
import type { FromRun, TemplateDraft } from './drafts.ts';
import { analysePattern, blockingPatternProblems } from './pattern.ts';

export type { ExampleDraft, TemplateDraft } from './drafts.ts';

export interface TemplateEditorProps {
  mode: 'promote' | 'edit';
  initial: TemplateDraft;
  /** Names of the templates that exist (a promotion under a taken name needs "replace"). */
  existing: string[];
  /** Promote: the run and attempt the script comes from. Edit: the template's origin run, if any. */
  fromRun?: FromRun;
  onSaved: (t: TemplateInfo) => void;
  onCancel: () => void;
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export function TemplateEditor({ mode, initial, existing, fromRun, onSaved, onCancel }: TemplateEditorProps) {
  const [draft, setDraft] = useState<TemplateDraft>(initial);
  const [replace, setReplace] = useState(false);
  const set = (patch: Partial<TemplateDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const {
    busy: saving,
    error,
    run: runSave,
  } = useSubmit(async (base: Request<'templates.create'>, withRun: Request<'templates.create'>) => {
    let saved: TemplateInfo;
    try {
      saved = await api['templates.create'](withRun);
    } catch (e) {
      // Editing a template whose origin run was deleted: save it without the link.
      if (mode === 'edit' && fromRun && e instanceof ApiCallError && e.code === 'not_found')
        saved = await api['templates.create'](base);
      else throw e;
    }
    onSaved(saved);
  });

  const analysis = analysePattern(draft);
  const asTemplate = useMemo(
    () =>
      ({
        name: draft.name,
        pattern: draft.pattern,
        slots: draft.slots,
        sandbox: draft.sandbox,
        language: draft.language,
        body: draft.body,
        examples: [],
      }) satisfies Template,
    [draft.name, draft.pattern, draft.slots, draft.sandbox, draft.language, draft.body],
  );
  const exampleChecks = draft.examples.map((ex) => {
    const expect = parseExpect(ex.expect);
    let match: ReturnType<typeof matchTemplate>;
    try {
      match = ex.intent.trim() ? matchTemplate(asTemplate, ex.intent) : undefined;
    } catch {
      match = undefined;
    }
    return { expect, match };
  });

  const taken = mode === 'promote' && existing.includes(draft.name);
  const problems: string[] = [];
  if (!NAME.test(draft.name))
    problems.push('The name is letters, digits, _ . - (up to 64, no leading . or -).');
  if (!draft.pattern.trim()) problems.push('The pattern is empty.');
  if (!draft.body.trim()) problems.push('The body is empty.');
  if (exampleChecks.some((c) => c.expect.error)) problems.push('An expected value is not valid JSON.');
  if (draft.examples.some((e) => !e.intent.trim())) problems.push('An example has no intent.');
  if (taken && !replace)
    problems.push(`A template named ${draft.name} exists: pick another name or replace it.`);
  const patternIssues = blockingPatternProblems(analysis);

  const save = async () => {
    if (problems.length || saving) return;
    const base: Request<'templates.create'> = {
      name: draft.name,
      pattern: draft.pattern.trim(),
      slots: draft.slots,
      body: draft.body,
      sandbox: draft.sandbox,
      language: draft.language,
      ...(draft.kit ? { kit: draft.kit } : {}),
      examples: draft.examples.map((e, i) => {
        const v = exampleChecks[i]?.expect.value;
        return { intent: e.intent.trim(), ...(v !== undefined ? { expect: v } : {}) };
      }),
      ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
      ...(mode === 'edit' || replace ? { force: true } : {}),
    };
    const withRun: Request<'templates.create'> = fromRun
      ? {
          ...base,
          fromRun: fromRun.runId,
          ...(mode === 'promote' && fromRun.attempt !== undefined ? { attempt: fromRun.attempt } : {}),
        }
      : base;
    await runSave(base, withRun);
  };

  const result = fromRun?.result;
  return (
    <div
      className="manage-panel template-editor"
      data-testid={mode === 'promote' ? 'promote-editor' : 'template-editor'}
      aria-label={mode === 'promote' ? 'promote to template' : `edit template ${initial.name}`}
      role="region"
    >
      <h2>{mode === 'promote' ? 'Promote to template' : `Edit template ${initial.name}`}</h2>
      <div className="meta-line small">
        <span>
          sandbox <strong>{draft.sandbox}</strong>
          {draft.kit ? (
            <>
              {' '}
              · kit <strong>{draft.kit}</strong>
            </>
          ) : null}
        </span>
        <span>{draft.language}</span>
        {fromRun && (
          <span className="muted">
            {mode === 'promote' ? 'from run' : 'origin run'} {fromRun.runId.slice(0, 8)}
            {fromRun.attempt !== undefined ? ` attempt ${fromRun.attempt}` : ''}
          </span>
        )}
        {fromRun?.task && <span className="muted ellipsis">task: “{fromRun.task}”</span>}
      </div>
      {mode === 'edit' && (
        <p className="muted small">
          Saving replaces the template file and resets its success/failure counters.
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="grid">
          <label className="field">
            Name
            <input
              aria-label="template name"
              value={draft.name}
              readOnly={mode === 'edit'}
              onChange={(e) => set({ name: e.target.value })}
              spellCheck={false}
            />
          </label>
          <label className="field">
            Description
            <input
              aria-label="template description"
              value={draft.description}
              placeholder="optional"
              onChange={(e) => set({ description: e.target.value })}
            />
          </label>
        </div>
        {taken && (
          <label className="check warn">
            <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} />A
            template named {draft.name} exists: replace it (its counters restart at 0)
          </label>
        )}
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
          onRun={() => void save()}
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
        {draft.examples.map((ex, i) => {
          const c = exampleChecks[i];
          return (
            <div className="example-row" key={i} data-example={i}>
              <input
                aria-label={`example ${i + 1} intent`}
                value={ex.intent}
                placeholder="What is the name of user u2?"
                onChange={(e) =>
                  set({
                    examples: draft.examples.map((x, j) => (j === i ? { ...x, intent: e.target.value } : x)),
                  })
                }
              />
              <textarea
                aria-label={`example ${i + 1} expected`}
                value={ex.expect}
                rows={1}
                placeholder="expected JSON (optional)"
                onChange={(e) =>
                  set({
                    examples: draft.examples.map((x, j) => (j === i ? { ...x, expect: e.target.value } : x)),
                  })
                }
              />
              <span className="row-actions">
                {result !== undefined && i === 0 && (
                  <button
                    type="button"
                    title="Expect the result the run produced"
                    onClick={() =>
                      set({
                        examples: draft.examples.map((x, j) =>
                          j === i ? { ...x, expect: JSON.stringify(result) } : x,
                        ),
                      })
                    }
                  >
                    Use run result
                  </button>
                )}
                <button
                  type="button"
                  className="danger"
                  aria-label={`remove example ${i + 1}`}
                  onClick={() => set({ examples: draft.examples.filter((_x, j) => j !== i) })}
                >
                  Remove
                </button>
              </span>
              <span className="example-note small">
                {!ex.intent.trim() ? (
                  <span className="muted">Write an intent.</span>
                ) : c?.match ? (
                  <span className="ok">
                    matches:{' '}
                    {Object.keys(c.match).length
                      ? Object.entries(c.match)
                          .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
                          .join(', ')
                      : 'exactly'}
                  </span>
                ) : (
                  <span className="warn">does not match the pattern</span>
                )}
                {c?.expect.error && <span className="error"> · expected {c.expect.error}</span>}
              </span>
            </div>
          );
        })}
        <button
          type="button"
          onClick={() => set({ examples: [...draft.examples, { intent: '', expect: '' }] })}
        >
          Add example
        </button>
        {problems.length > 0 && (
          <ul className="warnings small" aria-label="cannot save yet">
            {problems.map((p) => (
              <li key={p} className="warn">
                {p}
              </li>
            ))}
          </ul>
        )}
        {error && (
          <div role="alert" className="error callout bad" data-testid="template-save-error">
            {error}
          </div>
        )}
        <div className="actions">
          <button
            type="submit"
            className="primary"
            disabled={problems.length > 0 || saving}
            title={
              problems[0] ?? (patternIssues ? 'The pattern has warnings: the service may refuse it' : '')
            }
          >
            {saving ? 'Saving…' : mode === 'promote' ? 'Save template' : 'Save changes'}
          </button>
          <button type="button" onClick={onCancel} disabled={saving}>
            Cancel
          </button>
          {patternIssues > 0 && (
            <span className="warn small">
              {patternIssues} pattern warning{patternIssues > 1 ? 's' : ''}: fix them or the service will
              refuse the template.
            </span>
          )}
        </div>
      </form>
    </div>
  );
}

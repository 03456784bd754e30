/** The New run form, presentational: the fields of `state`, edits as actions, a start as `onSubmit`. */
import { useId, useRef } from 'react';
import type { Dispatch } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import type { KitList } from '../../store/settings.ts';
import type { Language, Mode, NewRunAction, NewRunState } from './new-run.ts';
import { FormRow } from '../../components/FormRow.tsx';

export interface NewRunFormProps {
  state: NewRunState;
  dispatch: Dispatch<NewRunAction>;
  /**
   * Why it cannot start, or undefined. Shown beside Start, which stays in the tab order (aria-disabled,
   * described by the reason) and, pressed, moves the focus to the field to fill instead of starting.
   */
  problem: string | undefined;
  onSubmit: () => void;
  sandboxes: Response<'sandboxes.list'>;
  /** The kits of the chosen sandbox. */
  kits: KitList;
  providers: Response<'settings.get'>['providers'];
  loadError?: string | undefined;
}

/** A number field's text as the form's number: empty is NaN (shown empty, a problem to start), never 0. */
const wholeOrEmpty = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));

export function NewRunForm({
  state,
  dispatch,
  problem,
  onSubmit,
  sandboxes,
  kits,
  providers,
  loadError,
}: NewRunFormProps) {
  const set = (patch: Extract<NewRunAction, { type: 'set' }>['patch']) => dispatch({ type: 'set', patch });
  const problemId = useId();
  const taskRef = useRef<HTMLTextAreaElement>(null);
  const sandboxRef = useRef<HTMLSelectElement>(null);
  /** Starts, or, while something is missing, takes the focus to what is missing (the reason says it). */
  const start = () => {
    if (!problem) return onSubmit();
    (state.task.trim() ? sandboxRef : taskRef).current?.focus();
  };
  return (
    <section aria-label="new run" className="form-view">
      <h1>New run</h1>
      {loadError && (
        <div role="alert" className="error">
          Could not load kits and providers: {loadError}
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          start();
        }}
      >
        <FormRow label="Task" className="wide">
          <textarea
            ref={taskRef}
            aria-label="task"
            rows={3}
            value={state.task}
            placeholder="What is the name of user u1?"
            onChange={(e) => set({ task: e.target.value })}
            onKeyDown={(e) => {
              if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
                e.preventDefault();
                start();
              }
            }}
            autoFocus
          />
        </FormRow>
        <div className="grid">
          <FormRow label="Sandbox">
            <select
              ref={sandboxRef}
              aria-label="sandbox"
              value={state.sandbox}
              onChange={(e) => dispatch({ type: 'sandbox', sandbox: e.target.value })}
            >
              {sandboxes.length === 0 && <option value="">no sandboxes</option>}
              {sandboxes.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name} ({s.tools} tools)
                </option>
              ))}
            </select>
          </FormRow>
          <FormRow label="Kit">
            <select aria-label="kit" value={state.kit} onChange={(e) => set({ kit: e.target.value })}>
              <option value="">all tools of the sandbox</option>
              {kits.map((k) => (
                <option key={k.name} value={k.name} disabled={!!k.error} title={k.error}>
                  {k.name}
                  {k.kit ? ` (w${k.kit.grade.w}, d${k.kit.grade.d})` : ''}
                  {k.error ? ' — refused' : ''}
                </option>
              ))}
            </select>
          </FormRow>
          <FormRow label="Mode">
            <select
              aria-label="mode"
              value={state.mode}
              onChange={(e) => set({ mode: e.target.value as Mode })}
            >
              <option value="plan">plan (one script, retries)</option>
              <option value="interactive">interactive (step by step)</option>
            </select>
          </FormRow>
          <FormRow label="Language">
            <select
              aria-label="language"
              value={state.language}
              onChange={(e) => set({ language: e.target.value as Language })}
            >
              <option value="python">Python</option>
              <option value="js">JavaScript</option>
              <option value="ts">TypeScript</option>
            </select>
          </FormRow>
          <FormRow label="Provider">
            <select
              aria-label="provider"
              value={state.provider}
              onChange={(e) => set({ provider: e.target.value })}
            >
              <option value="">all, in config order</option>
              {providers.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.id} ({p.kind}, {p.model})
                </option>
              ))}
            </select>
          </FormRow>
          <FormRow label="Model">
            <input
              value={state.model}
              placeholder="provider default"
              onChange={(e) => set({ model: e.target.value })}
            />
          </FormRow>
          <FormRow label="Max retries">
            <input
              type="number"
              min={0}
              max={20}
              value={Number.isNaN(state.maxRetries) ? '' : state.maxRetries}
              onChange={(e) => set({ maxRetries: wholeOrEmpty(e.target.value) })}
            />
          </FormRow>
          <FormRow label="Max steps">
            <input
              type="number"
              min={1}
              max={50}
              value={Number.isNaN(state.maxSteps) ? '' : state.maxSteps}
              onChange={(e) => set({ maxSteps: wholeOrEmpty(e.target.value) })}
            />
          </FormRow>
          <FormRow label="Timeout (s)">
            <input
              type="number"
              min={1}
              max={600}
              value={Number.isNaN(state.timeoutS) ? '' : state.timeoutS}
              onChange={(e) => set({ timeoutS: wholeOrEmpty(e.target.value) })}
            />
          </FormRow>
          <FormRow layout="check" label="skip templates and rules (always ask the LLM)">
            <input
              type="checkbox"
              checked={state.noTemplates}
              onChange={(e) => set({ noTemplates: e.target.checked })}
            />
          </FormRow>
        </div>
        {sandboxes.length === 0 && (
          <p className="callout" role="note" data-testid="no-sandboxes">
            This workspace has no sandboxes, so no run can start: create one in{' '}
            <a href="#/workspace">Workspace</a> (or open a workspace that has some).
          </p>
        )}
        <div className="actions">
          <button
            type="submit"
            className="primary"
            data-run-action
            disabled={state.busy}
            aria-disabled={problem ? true : undefined}
            aria-describedby={problem ? problemId : undefined}
          >
            {state.busy ? 'Starting…' : 'Start run'}
          </button>
          {problem ? (
            <span id={problemId} className="start-problem" data-testid="start-problem">
              {problem}
            </span>
          ) : (
            <span className="muted small">Ctrl+Enter</span>
          )}
        </div>
      </form>
    </section>
  );
}

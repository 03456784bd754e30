import { describe, expect, it } from 'vitest';
import {
  initialNewRun,
  newRunDraft,
  newRunProblem,
  newRunReducer,
  newRunRequest,
  restoreNewRun,
} from './new-run.ts';
import type { NewRunState } from './new-run.ts';

const with_ = (patch: Partial<NewRunState>): NewRunState => ({ ...initialNewRun, ...patch });

describe('the New run form', () => {
  it('picks the first sandbox once the list arrives, and never replaces a chosen one', () => {
    const s = newRunReducer(initialNewRun, { type: 'sandboxes', names: ['demo', 'billing'] });
    expect(s.sandbox).toBe('demo');
    const chosen = newRunReducer(with_({ sandbox: 'billing' }), { type: 'sandboxes', names: ['demo'] });
    expect(chosen.sandbox).toBe('billing');
    expect(newRunReducer(initialNewRun, { type: 'sandboxes', names: [] }).sandbox).toBe('');
  });

  it('another sandbox resets the kit (kits belong to one sandbox)', () => {
    const s = newRunReducer(with_({ sandbox: 'demo', kit: 'readonly' }), {
      type: 'sandbox',
      sandbox: 'billing',
    });
    expect(s).toMatchObject({ sandbox: 'billing', kit: '' });
  });

  it('names what stops a start: the task first, then the sandbox', () => {
    expect(newRunProblem(with_({ task: '  ', sandbox: 'demo' }))).toBe('Describe the task.');
    expect(newRunProblem(with_({ task: 'find u1' }))).toBe('Pick a sandbox.');
    expect(newRunProblem(with_({ task: 'find u1', sandbox: 'demo' }))).toBeUndefined();
  });

  it('names a number out of its range with its label (Ctrl+Enter sent it, and the service named maxSteps)', () => {
    const ok = with_({ task: 'find u1', sandbox: 'demo' });
    expect(newRunProblem({ ...ok, maxSteps: 999 })).toBe('Max steps must be a whole number from 1 to 50.');
    expect(newRunProblem({ ...ok, maxSteps: 0 })).toBe('Max steps must be a whole number from 1 to 50.');
    expect(newRunProblem({ ...ok, maxRetries: 2.5 })).toBe(
      'Max retries must be a whole number from 0 to 20.',
    );
    // (an emptied field reads as 0)
    expect(newRunProblem({ ...ok, timeoutS: 0 })).toBe('Timeout (s) must be a whole number from 1 to 600.');
    expect(newRunProblem({ ...ok, maxRetries: 0, maxSteps: 50, timeoutS: 600 })).toBeUndefined();
  });

  it('sends trimmed text and leaves out the choices left empty', () => {
    expect(newRunRequest(with_({ task: ' find u1 ', sandbox: 'demo', model: '  ' }))).toEqual({
      task: 'find u1',
      sandbox: 'demo',
      mode: 'plan',
      language: 'python',
      maxRetries: 3,
      maxSteps: 8,
      timeoutS: 60,
    });
    const all = newRunRequest(
      with_({
        task: 't',
        sandbox: 'demo',
        kit: 'ro',
        provider: 'local',
        model: ' m ',
        mode: 'interactive',
        language: 'ts',
        noTemplates: true,
      }),
    );
    expect(all).toMatchObject({
      kit: 'ro',
      provider: 'local',
      model: 'm',
      mode: 'interactive',
      language: 'ts',
      noTemplates: true,
    });
  });

  it('edits fields with set and tracks busy', () => {
    const s = newRunReducer(initialNewRun, { type: 'set', patch: { maxRetries: 5, task: 'x' } });
    expect(s).toMatchObject({ maxRetries: 5, task: 'x', maxSteps: 8 });
    expect(newRunReducer(s, { type: 'busy', busy: true }).busy).toBe(true);
    // A run started: the form is empty again (until then it is kept across visits of the view).
    expect(newRunReducer({ ...s, busy: true }, { type: 'started' })).toEqual(initialNewRun);
  });

  it('a draft kept for a reload: the typed fields only, restored field by field, never busy', () => {
    // An empty form (a sandbox picked only) keeps nothing; a typed task keeps every field.
    expect(newRunDraft(with_({ sandbox: 'demo' }))).toBeUndefined();
    const typed = with_({ task: 'find u1', sandbox: 'demo', mode: 'interactive', maxSteps: 5, busy: true });
    const kept = newRunDraft(typed);
    expect(kept).not.toHaveProperty('busy');
    expect(restoreNewRun(JSON.parse(JSON.stringify(kept)))).toEqual({ ...typed, busy: false });
    // Another version's or a hand-edited draft: what is wrong falls back to the default, field by field;
    // a whole number out of its range is kept as typed, and the form says why it cannot start.
    const restored = restoreNewRun({ task: 'x', mode: 'chaos', maxSteps: 500, timeoutS: 1.5, language: 7 });
    expect(restored).toEqual(with_({ task: 'x', maxSteps: 500 }));
    expect(newRunProblem({ ...(restored as NewRunState), sandbox: 'demo' })).toBe(
      'Max steps must be a whole number from 1 to 50.',
    );
    // An emptied number field (NaN in the form) is a problem to start, never 0.
    expect(newRunProblem(with_({ task: 'x', sandbox: 'demo', maxRetries: Number.NaN }))).toBe(
      'Max retries must be a whole number from 0 to 20.',
    );
    for (const junk of [null, 'task', 3, [1]]) expect(restoreNewRun(junk)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { initialNewRun, newRunProblem, newRunReducer, newRunRequest } from './new-run.ts';
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
});

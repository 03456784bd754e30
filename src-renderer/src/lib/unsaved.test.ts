import { describe, expect, it } from 'vitest';
import { guardUnsaved, leaveQuestion, leaveWithoutAsking, trackUnsaved, unsavedEdits } from './unsaved.ts';

/** A page as far as the guard uses it, and a beforeunload event as a browser makes it. */
function page() {
  const listeners = new Map<string, (e: unknown) => void>();
  const target = {
    addEventListener: (type: string, fn: (e: unknown) => void) => listeners.set(type, fn),
    removeEventListener: (type: string) => listeners.delete(type),
  } as unknown as Pick<Window, 'addEventListener' | 'removeEventListener'>;
  const leave = () => {
    const e = {
      prevented: false,
      returnValue: undefined as unknown,
      preventDefault: () => (e.prevented = true),
    };
    listeners.get('beforeunload')?.(e);
    return e;
  };
  return { target, leave, listening: () => listeners.has('beforeunload') };
}

describe('unsaved edits before the page goes', () => {
  it('asks only while some edit is unsaved, and counts them by kind', () => {
    let tools = 0;
    let scripts = 0;
    trackUnsaved('tools.py', () => tools);
    trackUnsaved('attempt scripts', () => scripts);
    const p = page();
    const off = guardUnsaved(p.target);
    expect(unsavedEdits()).toEqual({});
    expect(p.leave().prevented).toBe(false);
    tools = 1;
    expect(unsavedEdits()).toEqual({ 'tools.py': 1 });
    const e = p.leave();
    expect(e.prevented).toBe(true);
    expect(e.returnValue).toBe('');
    tools = 0;
    scripts = 2;
    expect(unsavedEdits()).toEqual({ 'attempt scripts': 2 });
    expect(p.leave().prevented).toBe(true);
    off();
    expect(p.listening()).toBe(false);
  });
});

describe('leaving on purpose', () => {
  it('names the unsaved edits in the question, and asks nothing when there are none', () => {
    expect(leaveQuestion({})).toBeUndefined();
    expect(leaveQuestion({ 'tools.py': 1, 'skill drafts': 1 })).toBe(
      'Unsaved edits (tools.py: 1, skill drafts: 1) will be lost. Go on?',
    );
  });

  it('once the person said go, the reload that follows does not ask again', () => {
    trackUnsaved('suites', () => 1);
    const p = page();
    guardUnsaved(p.target);
    expect(p.leave().prevented).toBe(true);
    leaveWithoutAsking();
    expect(p.leave().prevented).toBe(false);
  });
});

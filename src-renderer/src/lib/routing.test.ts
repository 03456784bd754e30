import { describe, expect, it } from 'vitest';
import { activeNav, GOTO, gotoView, parseHash, routeHash, VIEWS } from './routing.ts';
import type { Route } from './routing.ts';

describe('parseHash', () => {
  it('reads the view, its id and a line', () => {
    expect(parseHash('#/tools/web?line=12')).toEqual({ view: 'tools', id: 'web', line: 12 });
    expect(parseHash('#/run/abc123')).toEqual({ view: 'run', id: 'abc123' });
    expect(parseHash('#/kits')).toEqual({ view: 'kits' });
    expect(parseHash('#kits')).toEqual({ view: 'kits' });
  });

  it('falls back to the run list for an empty or unknown hash', () => {
    expect(parseHash('')).toEqual({ view: 'runs' });
    expect(parseHash('#/')).toEqual({ view: 'runs' });
    expect(parseHash('#/nowhere/x')).toEqual({ view: 'runs', id: 'x' });
  });

  it('decodes the id and keeps slashes in it', () => {
    expect(parseHash('#/templates/a%20b')).toEqual({ view: 'templates', id: 'a b' });
    expect(parseHash('#/suites/a/b')).toEqual({ view: 'suites', id: 'a/b' });
  });

  it('drops a line that is not a positive integer', () => {
    expect(parseHash('#/tools/web?line=0')).toEqual({ view: 'tools', id: 'web' });
    expect(parseHash('#/tools/web?line=-3')).toEqual({ view: 'tools', id: 'web' });
    expect(parseHash('#/tools/web?line=1.5')).toEqual({ view: 'tools', id: 'web' });
    expect(parseHash('#/tools/web?line=x')).toEqual({ view: 'tools', id: 'web' });
  });
});

describe('routeHash', () => {
  it('writes the view, the encoded id and the line', () => {
    expect(routeHash({ view: 'runs' })).toBe('#/runs');
    expect(routeHash({ view: 'templates', id: 'a b' })).toBe('#/templates/a%20b');
    expect(routeHash({ view: 'tools', id: 'web', line: 7 })).toBe('#/tools/web?line=7');
  });

  it('round-trips through parseHash', () => {
    const routes: Route[] = [
      ...VIEWS.map((view) => ({ view })),
      { view: 'run', id: '0193-abc' },
      { view: 'tools', id: 'web', line: 3 },
      { view: 'templates', id: 'weather in {city}?' },
    ];
    for (const r of routes) expect(parseHash(routeHash(r))).toEqual(r);
  });
});

describe('shortcuts', () => {
  it('g then a key goes to its view within the window', () => {
    expect(gotoView(1000, 't', 1500)).toBe('tools');
    expect(gotoView(1000, 'c', 1999)).toBe('connections');
    expect(gotoView(1000, 't', 2000)).toBeUndefined();
    expect(gotoView(0, 't', 10)).toBeUndefined();
    expect(gotoView(1000, 'x', 1001)).toBeUndefined();
    expect(gotoView(1000, 'constructor', 1001)).toBeUndefined();
  });

  it('every shortcut names a view, each view at most once', () => {
    const targets = Object.values(GOTO);
    for (const v of targets) expect(VIEWS).toContain(v);
    expect(new Set(targets).size).toBe(targets.length);
  });

  it('a run detail highlights the run list', () => {
    expect(activeNav({ view: 'run', id: 'x' })).toBe('runs');
    expect(activeNav({ view: 'kits' })).toBe('kits');
  });

  it("a run's chosen attempt or step is in its address (a reload shows it again); nonsense is dropped", () => {
    const r: Route = { view: 'run', id: 'run-1', attempt: 2 };
    expect(routeHash(r)).toBe('#/run/run-1?attempt=2');
    expect(parseHash(routeHash(r))).toEqual(r);
    expect(parseHash('#/run/run-1?attempt=0')).toEqual({ view: 'run', id: 'run-1' });
    expect(parseHash('#/run/run-1?attempt=x')).toEqual({ view: 'run', id: 'run-1' });
    // Only a run has attempts.
    expect(parseHash('#/tools/web?line=3&attempt=2')).toEqual({ view: 'tools', id: 'web', line: 3 });
    expect(parseHash(routeHash({ view: 'tools', id: 'web', line: 12 }))).toEqual({
      view: 'tools',
      id: 'web',
      line: 12,
    });
  });
});

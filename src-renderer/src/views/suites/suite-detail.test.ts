import { describe, expect, it } from 'vitest';
import type { SuiteProgressView } from '../../../../src-main/contract/api.ts';
import { suiteRun } from './suite-fixture.ts';
import {
  initialSuiteDetail,
  liveProgress,
  progressLine,
  suiteDetailReducer,
  suiteMarkers,
} from './suite-detail.ts';

const progress = (over: Partial<SuiteProgressView> = {}): SuiteProgressView => ({
  suiteRun: 'sr-1',
  suite: 'cities',
  planned: 4,
  done: 3,
  passed: 1,
  failed: 1,
  errors: 0,
  running: 1,
  status: 'running',
  ...over,
});

describe('the suite detail state', () => {
  it('keeps the start fields apart from the tab', () => {
    let s = suiteDetailReducer(initialSuiteDetail, { type: 'start', patch: { models: 'a,b' } });
    s = suiteDetailReducer(s, { type: 'start', patch: { repeat: '3' } });
    s = suiteDetailReducer(s, { type: 'tab', tab: 'compare' });
    expect(s).toEqual({ start: { models: 'a,b', repeat: '3', concurrency: '' }, tab: 'compare' });
  });

  it('marks each schema problem to the end of its line, its path before the message', () => {
    expect(suiteMarkers([{ line: 3, column: 5, path: 'cases[0].task', message: 'required' }])).toEqual([
      { rule: 'suite', message: 'cases[0].task: required', line: 3, column: 5, endLine: 3, endColumn: 1000 },
    ]);
    expect(suiteMarkers([{ line: 1, column: 1, path: '', message: 'not TOML' }])[0]?.message).toBe(
      'not TOML',
    );
  });

  it('a finished run counts its infrastructure errors apart from its failures', () => {
    const p = progressLine(suiteRun(), undefined);
    expect(p).toEqual({
      done: 4,
      planned: 4,
      text: '4/4 runs · 2 passed · 1 failed · 1 error(s) (infrastructure) · 2/4 cells meet their threshold · tools abc123',
    });
  });

  it('a running one reads the pushed counts (errors from them too), only when they are of this run', () => {
    const run = suiteRun({ status: 'running', done: 1, passed: 1 });
    expect(liveProgress(progress({ suiteRun: 'other' }), run)).toBeUndefined();
    const live = (over: Partial<SuiteProgressView> = {}) => liveProgress(progress(over), run);
    expect(progressLine(run, live())).toMatchObject({
      done: 3,
      text: '3/4 runs · 1 passed · 1 failed · 1 running · 2/4 cells meet their threshold · tools abc123',
    });
    const clean = suiteRun({ matrix: { ...run.matrix, overall: { ...run.matrix.overall, errors: 0 } } });
    expect(progressLine(clean, undefined).text).not.toContain('error(s)');
    expect(progressLine(run, live({ errors: 2 })).text).toContain(' · 2 error(s) (infrastructure)');
  });
});

/**
 * The suite detail's state as data: the start form's fields and the tab shown (matrix, charts,
 * compare), with what the detail derives from the store (the editor's markers from the schema problems,
 * the progress line of a suite run live or finished). Pure (tested in node); `useSuites.ts` binds it.
 */
import type { Response, SuiteProgressView, SuiteRunFullView } from '../../../../src-main/contract/api.ts';
import type { Violation } from '../../../../src-main/core/lang/violation.ts';
import { initialSuiteStart } from './suite-start.ts';
import type { SuiteStartFields } from './suite-start.ts';

export type SuiteTab = 'matrix' | 'charts' | 'compare';
export const SUITE_TABS: { id: SuiteTab; label: string }[] = [
  { id: 'matrix', label: 'Matrix' },
  { id: 'charts', label: 'Charts' },
  { id: 'compare', label: 'Compare' },
];

export interface SuiteDetailState {
  start: SuiteStartFields;
  tab: SuiteTab;
}

export const initialSuiteDetail: SuiteDetailState = { start: initialSuiteStart, tab: 'matrix' };

export type SuiteDetailAction =
  { type: 'start'; patch: Partial<SuiteStartFields> } | { type: 'tab'; tab: SuiteTab };

export function suiteDetailReducer(s: SuiteDetailState, a: SuiteDetailAction): SuiteDetailState {
  switch (a.type) {
    case 'start':
      return { ...s, start: { ...s.start, ...a.patch } };
    case 'tab':
      return { ...s, tab: a.tab };
  }
}

export type SuiteProblem = Response<'suites.check'>['problems'][number];

/** A schema problem as the editor marks it (the whole rest of its line) and as the list names it. */
export const problemText = (p: SuiteProblem): string => `${p.path ? `${p.path}: ` : ''}${p.message}`;

export const suiteMarkers = (problems: SuiteProblem[]): Violation[] =>
  problems.map((p) => ({
    rule: 'suite',
    message: problemText(p),
    line: p.line,
    column: p.column,
    endLine: p.line,
    endColumn: 1000,
  }));

/** The pushed progress of this suite run, when the last one pushed is of it. */
export const liveProgress = (
  progress: SuiteProgressView | undefined,
  run: SuiteRunFullView | undefined,
): SuiteProgressView | undefined => (progress && progress.suiteRun === run?.id ? progress : undefined);

export interface ProgressLine {
  done: number;
  planned: number;
  /** The counts after the status badge: runs, passed, failed, errors, running, cells met, tools. */
  text: string;
}

/**
 * The progress of a suite run: the pushed counts while it runs, else those of the stored run (repeats
 * that hit an infrastructure error are errors, not failures).
 */
export function progressLine(run: SuiteRunFullView, live: SuiteProgressView | undefined): ProgressLine {
  const done = live?.done ?? run.done;
  const planned = run.spec.planned;
  const infra = run.results.filter((r) => r.infra !== undefined).length;
  const failed = live ? live.failed : done - run.passed - infra;
  const errors =
    (live?.errors ?? run.matrix.overall.errors) > 0
      ? ` · ${live?.errors ?? infra} error(s) (infrastructure)`
      : '';
  const running = live?.running ? ` · ${live.running} running` : '';
  return {
    done,
    planned,
    text:
      `${done}/${planned} runs · ${live?.passed ?? run.passed} passed · ${failed} failed${errors}${running}` +
      ` · ${run.matrix.overall.met}/${run.matrix.overall.cells} cells meet their threshold · tools ${run.spec.toolsHash}`,
  };
}

/**
 * The Suites view's state: suite files, the open suite's text and problems, its suite runs, the selected
 * run (matrix, results), live progress and a comparison with an earlier run.
 */
import type { StateCreator } from 'zustand';
import type { Response, SuiteProgressView } from '../../../src-main/contract/api.ts';
import { api } from '../api/client.ts';
import { keptMap } from '../lib/session-draft.ts';
import { trackUnsaved } from '../lib/unsaved.ts';
import { notifyingAct } from './app.ts';
import type { Store } from './index.ts';

export interface SuitesSlice {
  suiteList: Response<'suites.list'>;
  suiteName?: string;
  suiteText: string;
  suiteSaved: string;
  suiteProblems: Response<'suites.check'>['problems'];
  suiteHistory: Response<'suites.runs'>;
  suiteRun?: Response<'suites.get'>;
  suiteProgress?: SuiteProgressView;
  comparison?: Response<'suites.compare'>;
  loadSuites(): Promise<void>;
  openSuite(name: string): Promise<void>;
  editSuite(text: string): void;
  /** Drops the open suite's unsaved edit: the editor shows the file's text again. */
  revertSuite(): void;
  saveSuite(): Promise<void>;
  startSuite(opts: { models?: string[]; repeat?: number; concurrency?: number }): Promise<void>;
  cancelSuite(): Promise<void>;
  selectSuiteRun(id: string): Promise<void>;
  compareWith(base: string | undefined): Promise<void>;
  onSuiteProgress(p: SuiteProgressView): void;
}

let checkTimer: ReturnType<typeof setTimeout> | undefined;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Unsaved suite edits by suite name: they outlive opening another suite and leaving the view (opening
 * another suite dropped them without asking), and a reload asks first. They are kept in the tab's
 * sessionStorage too (lib/session-draft.ts): after the reload the page asked about, the edit was gone.
 */
const drafts = keptMap('suite-edits');
trackUnsaved('suites', () => drafts.size);

export const createSuitesSlice: StateCreator<Store, [], [], SuitesSlice> = (set, get) => {
  const act = notifyingAct(get);
  return {
    suiteList: [],
    suiteText: '',
    suiteSaved: '',
    suiteProblems: [],
    suiteHistory: [],
    loadSuites: () =>
      act('Could not list the suites', async () => {
        const list = await api['suites.list']({});
        // A deleted suite's draft is gone with it.
        for (const name of drafts.keys()) if (!list.some((s) => s.name === name)) drafts.delete(name);
        set({ suiteList: list });
      }),
    openSuite: (name) =>
      act(`Could not open suite ${name}`, async () => {
        const [file, history] = await Promise.all([
          api['suites.read']({ name }),
          api['suites.runs']({ suite: name, limit: 50 }),
        ]);
        if (drafts.get(name) === file.text) drafts.delete(name);
        set({
          suiteName: name,
          suiteText: file.text,
          suiteSaved: file.text,
          suiteProblems: file.problems,
          suiteHistory: history,
          suiteRun: undefined,
          comparison: undefined,
        });
        // The edit left unsaved in this suite, checked again (the problems above are the file's).
        const draft = drafts.get(name);
        if (draft !== undefined) get().editSuite(draft);
        const last = history[0];
        if (last) await get().selectSuiteRun(last.id);
      }),
    editSuite(text) {
      set({ suiteText: text });
      const name = get().suiteName;
      if (name !== undefined) {
        if (text === get().suiteSaved) drafts.delete(name);
        else drafts.set(name, text);
      }
      clearTimeout(checkTimer);
      checkTimer = setTimeout(() => {
        void api['suites.check']({ text })
          .then((r) => {
            if (get().suiteText === text) set({ suiteProblems: r.problems });
          })
          .catch(() => {});
      }, 250);
    },
    revertSuite() {
      get().editSuite(get().suiteSaved);
    },
    saveSuite: () =>
      act('Could not save the suite', async () => {
        const name = get().suiteName;
        if (!name) return;
        const text = get().suiteText;
        const r = await api['suites.save']({ name, text });
        if (drafts.get(name) === text) drafts.delete(name);
        set({ suiteSaved: text, suiteProblems: r.problems });
        get().notify('info', `Saved ${r.file}`);
        await get().loadSuites();
      }),
    startSuite: (opts) =>
      act('Could not start the suite', async () => {
        const name = get().suiteName;
        if (!name) return;
        if (get().suiteText !== get().suiteSaved) await get().saveSuite();
        const { suiteRun } = await api['suites.start']({ name, ...opts });
        set({ suiteProgress: undefined, comparison: undefined });
        await get().selectSuiteRun(suiteRun);
        set({ suiteHistory: await api['suites.runs']({ suite: name, limit: 50 }) });
      }),
    cancelSuite: () =>
      act('Could not cancel', async () => {
        const id = get().suiteRun?.id;
        if (id) await api['suites.cancel']({ suiteRun: id });
      }),
    selectSuiteRun: (id) =>
      act('Could not load the suite run', async () => {
        const run = await api['suites.get']({ suiteRun: id });
        set({ suiteRun: run });
      }),
    compareWith: (base) =>
      act('Could not compare', async () => {
        const head = get().suiteRun?.id;
        if (!head || !base) return set({ comparison: undefined });
        set({ comparison: await api['suites.compare']({ head, base }) });
      }),
    onSuiteProgress(p) {
      if (p.suiteRun !== get().suiteRun?.id) return;
      set({ suiteProgress: p });
      // Results arrive case by case: refresh the matrix at most a few times a second.
      if (!refreshTimer)
        refreshTimer = setTimeout(() => {
          refreshTimer = undefined;
          void get().selectSuiteRun(p.suiteRun);
          if (get().suiteProgress?.status !== 'running' && get().suiteName) {
            void api['suites.runs']({ suite: get().suiteName, limit: 50 }).then((h) =>
              set({ suiteHistory: h }),
            );
            void get().loadSuites();
          }
        }, 300);
    },
  };
};

/**
 * The open run: its record (derived by the service from the run's events), the selected attempt or
 * step, tokens streamed while the LLM writes, and the actions on a run (cancel, replay, edit, continue).
 */
import type { StateCreator } from 'zustand';
import type { PushEvent, Request, RunRecordView } from '../../../src-main/contract/api.ts';
import { api, errorMessage } from '../api/client.ts';
import type { Store } from './index.ts';

export interface RunSlice {
  runId?: string;
  run?: RunRecordView;
  runLoading: boolean;
  runError?: string;
  /** Selected attempt (PLAN) or step (INTERACTIVE) number. */
  attemptN?: number;
  /** Text streamed by the LLM per attempt of the open run, until the attempt's script arrives. */
  live: Record<number, string>;
  /** A line of the selected attempt's script to reveal (traceback frame, violation). */
  jump?: { line: number; column?: number; seq: number };
  /** Set by "Promote to template"; the templates view reads and clears it. */
  promote?: { runId: string; attempt?: number };
  openRun(runId: string): Promise<void>;
  refreshRun(): Promise<void>;
  selectAttempt(n: number): void;
  stepAttempt(delta: 1 | -1): void;
  jumpTo(line: number, column?: number): void;
  startRun(req: Request<'runs.start'>): Promise<string | undefined>;
  cancelRun(): Promise<void>;
  replayRun(): Promise<void>;
  runEdited(body: string, attempt: number): Promise<void>;
  continueRun(body: string, attempt: number): Promise<void>;
  deleteRun(runId: string): Promise<void>;
  exportRun(): Promise<void>;
  importRun(file: File): Promise<void>;
  setPromote(p: RunSlice['promote']): void;
  handlePush(e: PushEvent): void;
}

/**
 * Tokens of runs that are not open yet: a run's first tokens can arrive before `runs.start` answers and
 * the run view opens. Bounded: the most recent runs, each capped.
 */
const pending = new Map<string, Record<number, string>>();
const MAX_PENDING_RUNS = 16;
const MAX_LIVE_CHARS = 256 * 1024;
const appendLive = (live: Record<number, string>, n: number, text: string): Record<number, string> => ({
  ...live,
  [n]: ((live[n] ?? '') + text).slice(-MAX_LIVE_CHARS),
});

let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let listTimer: ReturnType<typeof setTimeout> | undefined;
let jumpSeq = 0;

export const createRunSlice: StateCreator<Store, [], [], RunSlice> = (set, get) => {
  const act = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      get().notify('error', `${what}: ${errorMessage(e)}`);
    }
  };
  return {
    runLoading: false,
    live: {},
    async openRun(runId) {
      if (get().runId !== runId)
        set({ runId, run: undefined, attemptN: undefined, live: pending.get(runId) ?? {}, jump: undefined });
      pending.delete(runId);
      set({ runLoading: true, runError: undefined });
      try {
        const run = await api['runs.get']({ runId });
        if (get().runId !== runId) return;
        const last = run.attempts[run.attempts.length - 1]?.n;
        set({ run, runLoading: false, attemptN: get().attemptN ?? last });
      } catch (e) {
        if (get().runId === runId) set({ runLoading: false, runError: errorMessage(e) });
      }
    },
    async refreshRun() {
      const runId = get().runId;
      if (!runId) return;
      try {
        const run = await api['runs.get']({ runId });
        if (get().runId !== runId) return;
        const prev = get().run;
        const prevLast = prev?.attempts[prev.attempts.length - 1]?.n;
        const last = run.attempts[run.attempts.length - 1]?.n;
        // Follow a live run: when the last attempt was selected, select the newest one.
        const follow = get().attemptN === undefined || get().attemptN === prevLast;
        set({ run, ...(follow && last !== undefined ? { attemptN: last } : {}) });
      } catch (e) {
        set({ runError: errorMessage(e) });
      }
    },
    selectAttempt(n) {
      set({ attemptN: n, jump: undefined });
    },
    stepAttempt(delta) {
      const run = get().run;
      if (!run || run.attempts.length === 0) return;
      const i = run.attempts.findIndex((a) => a.n === get().attemptN);
      const next = run.attempts[Math.min(run.attempts.length - 1, Math.max(0, (i < 0 ? 0 : i) + delta))];
      if (next) get().selectAttempt(next.n);
    },
    jumpTo(line, column) {
      set({ jump: { line, ...(column ? { column } : {}), seq: ++jumpSeq } });
    },
    async startRun(req) {
      try {
        const { runId } = await api['runs.start'](req);
        get().navigate({ view: 'run', id: runId });
        void get().reloadRuns();
        return runId;
      } catch (e) {
        get().notify('error', `Could not start the run: ${errorMessage(e)}`);
        return undefined;
      }
    },
    cancelRun: () =>
      act('Cancel', async () => {
        const runId = get().runId;
        if (!runId) return;
        const r = await api['runs.cancel']({ runId });
        if (!r.cancelled) get().notify('info', 'The run had already ended.');
        await get().refreshRun();
      }),
    replayRun: () =>
      act('Replay', async () => {
        const runId = get().runId;
        if (!runId) return;
        const r = await api['runs.replay']({ runId });
        get().navigate({ view: 'run', id: r.runId });
      }),
    runEdited: (body, attempt) =>
      act('Run edited script', async () => {
        const run = get().run;
        if (!run) return;
        const r = await api['runs.runScript']({
          sandbox: run.started.sandbox,
          ...(run.started.kit ? { kit: run.started.kit } : {}),
          language: run.started.language,
          body,
          task: run.started.task,
          originRun: run.id,
          originAttempt: attempt,
        });
        get().navigate({ view: 'run', id: r.runId });
      }),
    continueRun: (body, attempt) =>
      act('Continue', async () => {
        const runId = get().runId;
        if (!runId) return;
        const r = await api['runs.continue']({ runId, attempt, body });
        get().navigate({ view: 'run', id: r.runId });
      }),
    deleteRun: (runId) =>
      act('Delete', async () => {
        await api['runs.delete']({ runId });
        if (get().runId === runId) set({ runId: undefined, run: undefined });
        get().notify('info', 'Run deleted.');
        get().navigate({ view: 'runs' });
        await get().reloadRuns();
      }),
    exportRun: () =>
      act('Export', async () => {
        const runId = get().runId;
        if (!runId) return;
        const doc = await api['runs.export']({ runId });
        const url = URL.createObjectURL(
          new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }),
        );
        const a = document.createElement('a');
        a.href = url;
        a.download = `run-${runId}.json`;
        a.click();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
      }),
    importRun: (file) =>
      act('Import', async () => {
        let doc: unknown;
        try {
          doc = JSON.parse(await file.text());
        } catch {
          throw new Error(`${file.name} is not a JSON file`);
        }
        const r = await api['runs.import']({ doc });
        await get().reloadRuns();
        get().navigate({ view: 'run', id: r.runId });
      }),
    setPromote(p) {
      set({ promote: p });
    },
    handlePush(e) {
      if (e.type === 'token') {
        if (e.runId !== get().runId) {
          pending.set(e.runId, appendLive(pending.get(e.runId) ?? {}, e.n, e.text));
          if (pending.size > MAX_PENDING_RUNS) pending.delete(pending.keys().next().value as string);
          return;
        }
        set({ live: appendLive(get().live, e.n, e.text) });
        return;
      }
      if (e.type !== 'run_event') return;
      const ev = e.event;
      if (ev.runId === get().runId) {
        if (!refreshTimer)
          refreshTimer = setTimeout(() => {
            refreshTimer = undefined;
            void get().refreshRun();
          }, 120);
      }
      if (ev.type === 'run_finished') pending.delete(ev.runId);
      if (ev.type === 'run_started' || ev.type === 'run_finished') {
        if (!listTimer)
          listTimer = setTimeout(() => {
            listTimer = undefined;
            void get().reloadRuns();
          }, 300);
      }
    },
  };
};

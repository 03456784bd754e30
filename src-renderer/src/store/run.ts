/**
 * The open run: its record (derived by the service from the run's events), the selected attempt or
 * step, tokens streamed while the LLM writes, and the actions on a run (cancel, replay, edit, continue).
 * A live run is loaded once (`runs.get`); pushed events are then folded into the record with core's
 * `foldEvent` (what `deriveRun` does, one event at a time). A gap in the events' sequence numbers, or
 * the push connection coming back, fetches only the missed events (`runs.events` after the last one).
 */
import type { StateCreator } from 'zustand';
import type { PushEvent, Request, RunEventView, RunRecordView } from '../../../src-main/contract/api.ts';
import { api, errorMessage } from '../api/client.ts';
import { MAX_LIVE_CHARS, withStreamed } from './live-text.ts';
import {
  foldCaughtUp,
  foldQueued,
  followSelection,
  stepSelection,
  withTraceFix,
} from '../views/run/run-detail.ts';
import { notifyingAct } from './app.ts';
import { readDraft, writeDraft } from '../lib/session-draft.ts';
import { routeHash } from '../lib/routing.ts';
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
  /**
   * The run action sent and not answered yet (Cancel, Replay, Run edited script, Continue, Delete):
   * another one is ignored until it is, and the view disables them meanwhile.
   */
  runSending?: string;
  /**
   * Set by "Promote to template"; the templates view reads and clears it. Kept in the tab's session
   * (lib/session-draft.ts): a reload opens the same promotion again, with what was typed in it.
   */
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
  /** Sends the run's trace to the configured OTLP endpoint; says where, or why not, in a notice. */
  sendTrace(): Promise<void>;
  importRun(file: File): Promise<void>;
  setPromote(p: RunSlice['promote']): void;
  handlePush(e: PushEvent): void;
}

const MAX_PENDING_RUNS = 16;
/** A promotion kept by `setPromote`, as stored; undefined for anything else. */
export function restorePromote(raw: unknown): RunSlice['promote'] {
  if (!raw || typeof raw !== 'object') return undefined;
  const { runId, attempt } = raw as Record<string, unknown>;
  if (typeof runId !== 'string' || !runId) return undefined;
  return Number.isInteger(attempt) ? { runId, attempt: attempt as number } : { runId };
}

const appendLive = (live: Record<number, string>, n: number, text: string): Record<number, string> => ({
  ...live,
  [n]: ((live[n] ?? '') + text).slice(-MAX_LIVE_CHARS),
});

/**
 * What the run slice keeps outside its state (never rendered): owned by one store, so two stores (two
 * windows' worth in a test) never share a queue, a timer or a catch-up.
 */
export interface RunSliceInternals {
  /**
   * Tokens of runs that are not open yet: a run's first tokens can arrive before `runs.start` answers
   * and the run view opens. Bounded: the most recent runs, each capped.
   */
  pending: Map<string, Record<number, string>>;
  /** Pushed events of the open run not folded yet: batched, and kept while its record is loading. */
  queued: RunEventView[];
  foldTimer: ReturnType<typeof setTimeout> | undefined;
  catchingUp: Promise<void> | undefined;
  listTimer: ReturnType<typeof setTimeout> | undefined;
  jumpSeq: number;
}

export const createRunSlice: StateCreator<Store, [], [], RunSlice> = (set, get) => {
  const act = notifyingAct(get);
  // One run action at a time: a double click on Replay (or Ctrl+Enter pressed twice) started two runs.
  const sendOnce = async (what: string, fn: () => Promise<void>): Promise<void> => {
    if (get().runSending !== undefined) return;
    set({ runSending: what });
    try {
      await act(what, fn);
    } finally {
      set({ runSending: undefined });
    }
  };
  const m: RunSliceInternals = {
    pending: new Map(),
    queued: [],
    foldTimer: undefined,
    catchingUp: undefined,
    listTimer: undefined,
    jumpSeq: 0,
  };
  const pending = m.pending;
  const promote = readDraft('promote', restorePromote);
  return {
    runLoading: false,
    live: {},
    ...(promote ? { promote } : {}),
    async openRun(runId) {
      if (get().runId !== runId) {
        set({ runId, run: undefined, attemptN: undefined, live: pending.get(runId) ?? {}, jump: undefined });
        m.queued = [];
      }
      pending.delete(runId);
      set({ runLoading: true, runError: undefined });
      try {
        const run = await api['runs.get']({ runId });
        if (get().runId !== runId) return;
        const last = run.attempts[run.attempts.length - 1]?.n;
        // The attempt the address names (chosen before a reload), if the run has it.
        const { route } = get();
        const named =
          route.view === 'run' && route.id === runId && run.attempts.some((a) => a.n === route.attempt)
            ? route.attempt
            : undefined;
        set({
          run,
          runLoading: false,
          attemptN: get().attemptN ?? named ?? last,
          live: withStreamed(get().live, run.streaming),
        });
        // Events pushed while the record was on its way.
        flushEvents(m, get, set);
      } catch (e) {
        if (get().runId === runId) set({ runLoading: false, runError: errorMessage(e) });
      }
    },
    async refreshRun() {
      const runId = get().runId;
      if (!runId) return;
      if (get().run?.id === runId) return catchUp(m, get, set);
      try {
        const run = await api['runs.get']({ runId });
        if (get().runId !== runId) return;
        // Follow a live run: when the last attempt was selected, select the newest one.
        set({ run, attemptN: followSelection(get().run, run, get().attemptN) });
      } catch (e) {
        set({ runError: errorMessage(e) });
      }
    },
    selectAttempt(n) {
      set({ attemptN: n, jump: undefined });
      // The address names the choice (replaced, not a new history entry): a reload shows it again.
      const { route } = get();
      if (route.view === 'run' && route.id === get().runId && route.attempt !== n) {
        const next = { ...route, attempt: n };
        history.replaceState(null, '', routeHash(next));
        set({ route: next });
      }
    },
    stepAttempt(delta) {
      const next = stepSelection(get().run, get().attemptN, delta);
      if (next !== undefined) get().selectAttempt(next);
    },
    jumpTo(line, column) {
      set({ jump: { line, ...(column ? { column } : {}), seq: ++m.jumpSeq } });
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
      sendOnce('Cancel', async () => {
        const runId = get().runId;
        if (!runId) return;
        const r = await api['runs.cancel']({ runId });
        if (!r.cancelled) get().notify('info', 'The run had already ended.');
        await get().refreshRun();
      }),
    replayRun: () =>
      sendOnce('Replay', async () => {
        const runId = get().runId;
        if (!runId) return;
        const r = await api['runs.replay']({ runId });
        get().navigate({ view: 'run', id: r.runId });
      }),
    runEdited: (body, attempt) =>
      sendOnce('Run edited script', async () => {
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
      sendOnce('Continue', async () => {
        const runId = get().runId;
        if (!runId) return;
        const r = await api['runs.continue']({ runId, attempt, body });
        get().navigate({ view: 'run', id: r.runId });
      }),
    deleteRun: (runId) =>
      sendOnce('Delete', async () => {
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
    sendTrace: () =>
      act('Send trace', async () => {
        const runId = get().runId;
        if (!runId) return;
        // (the collector's refusal said where and why, not what to do: run-detail.ts withTraceFix)
        const r = await api['runs.sendTrace']({ runId }).catch((e: unknown) => {
          throw new Error(withTraceFix(errorMessage(e)));
        });
        for (const w of r.warnings) get().notify('error', `Telemetry: ${w}`, `telemetry:warning:${w}`);
        // The run's trace is sent: an earlier failure to send it is no longer true.
        get().dismissAbout('telemetry:failed');
        get().notify(
          'info',
          `Sent run ${runId.slice(0, 8)} as trace ${r.traceId} (${r.spans} spans) to ${r.url}.`,
          'telemetry:sent',
        );
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
      writeDraft('promote', p);
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
      if (e.type === 'reconnected') {
        // Events may have been pushed while the connection was down.
        if (get().run) void catchUp(m, get, set);
        void get().reloadRuns();
        return;
      }
      if (e.type !== 'run_event') return;
      const ev = e.event;
      if (ev.runId === get().runId) {
        m.queued.push(ev);
        m.foldTimer ??= setTimeout(() => {
          m.foldTimer = undefined;
          flushEvents(m, get, set);
        }, 50);
      }
      if (ev.type === 'run_finished') pending.delete(ev.runId);
      if (ev.type === 'run_started' || ev.type === 'run_finished') {
        if (!m.listTimer)
          m.listTimer = setTimeout(() => {
            m.listTimer = undefined;
            void get().reloadRuns();
          }, 300);
      }
    },
  };
};

type Get = () => Store;
type Set = (partial: Partial<Store>) => void;

/** Selects the newest attempt when the last one was selected (follows a live run). */
function follow(get: Get, prev: RunRecordView | undefined, run: RunRecordView): Partial<Store> {
  return { attemptN: followSelection(prev, run, get().attemptN) };
}

/**
 * Folds the queued events of the open run into its record (`foldQueued`); on a gap, the events after
 * it are kept and the missing ones fetched (once: a catch-up that did not bring them drops them).
 */
function flushEvents(m: RunSliceInternals, get: Get, set: Set, mayCatchUp = true): void {
  const prev = get().run;
  if (!prev || prev.id !== get().runId) return; // still loading: openRun flushes when it arrives
  const { run, held, gap } = foldQueued(prev, m.queued);
  m.queued = [];
  if (gap && mayCatchUp) {
    m.queued = held;
    void catchUp(m, get, set);
  }
  if (run !== prev) set({ run, ...follow(get, prev, run) });
}

/** Fetches and folds the open run's events after the last one its record holds. */
function catchUp(m: RunSliceInternals, get: Get, set: Set): Promise<void> {
  m.catchingUp ??= (async () => {
    try {
      const runId = get().runId;
      const from = get().run;
      if (!runId || !from || from.id !== runId) return;
      const r = await api['runs.events']({ runId, afterSeq: from.events - 1 });
      const prev = get().run;
      if (get().runId !== runId || !prev || prev.id !== runId) return;
      const run = foldCaughtUp(prev, r.events, r.live);
      if (run !== prev) set({ run, ...follow(get, prev, run) });
      // Tokens pushed while the connection was down: the service's text of the attempt so far.
      if (r.streaming) set({ live: withStreamed(get().live, r.streaming) });
    } catch (e) {
      set({ runError: errorMessage(e) });
    } finally {
      m.catchingUp = undefined;
    }
    if (m.queued.length > 0) flushEvents(m, get, set, false);
  })();
  return m.catchingUp;
}

/**
 * The single run (run-detail.ts, store/run.ts) bound to React: opens the run, ticks the elapsed time
 * while it runs, and hands the view its record, the selected attempt and the run's actions.
 */
import { useEffect, useMemo, useState } from 'react';
import { useStore } from '../../store/index.ts';
import { originLabel, runActions, runOutcome, selectedAttempt } from './run-detail.ts';

export function useRunDetail(runId: string) {
  const run = useStore((s) => (s.runId === runId ? s.run : undefined));
  const loading = useStore((s) => s.runLoading);
  const error = useStore((s) => s.runError);
  const attemptN = useStore((s) => s.attemptN);
  const sending = useStore((s) => s.runSending);
  const openRun = useStore((s) => s.openRun);
  const selectAttempt = useStore((s) => s.selectAttempt);
  const cancelRun = useStore((s) => s.cancelRun);
  const replayRun = useStore((s) => s.replayRun);
  const exportRun = useStore((s) => s.exportRun);
  const sendTrace = useStore((s) => s.sendTrace);
  const deleteRun = useStore((s) => s.deleteRun);
  const navigate = useStore((s) => s.navigate);
  const [now, setNow] = useState(Date.now());

  useEffect(() => void openRun(runId), [runId, openRun]);
  useEffect(() => {
    if (run?.status !== 'running') return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [run?.status]);

  const attempt = useMemo(() => selectedAttempt(run, attemptN), [run, attemptN]);
  return {
    run,
    loading,
    error,
    attempt,
    now,
    actions: run ? runActions(run, sending) : undefined,
    outcome: run ? runOutcome(run) : undefined,
    origin: run?.started.origin ? originLabel(run.started.origin) : undefined,
    select: selectAttempt,
    cancel: () => void cancelRun(),
    replay: () => void replayRun(),
    exportRun: () => void exportRun(),
    sendTrace: () => void sendTrace(),
    remove: (id: string) => void deleteRun(id),
    navigate,
  };
}

/**
 * One attempt's live tokens, jump target and actions (edit and run, continue, promote), and the run
 * action being sent (the toolbar waits for its answer).
 */
export function useAttempt(runId: string, n: number) {
  const live = useStore((s) => s.live[n]);
  const sending = useStore((s) => s.runSending);
  const jump = useStore((s) => s.jump);
  const jumpTo = useStore((s) => s.jumpTo);
  const runEdited = useStore((s) => s.runEdited);
  const continueRun = useStore((s) => s.continueRun);
  const setPromote = useStore((s) => s.setPromote);
  const navigate = useStore((s) => s.navigate);
  return {
    live,
    sending,
    jump,
    jumpTo,
    navigate,
    runEdited: (body: string) => void runEdited(body, n),
    continueRun: (body: string) => void continueRun(body, n),
    promote: () => {
      setPromote({ runId, attempt: n });
      navigate({ view: 'templates' });
    },
  };
}

/**
 * The Suites view bound to the suites slice (store/suites.ts): the list and the suite opened from the
 * route, and the open suite's detail with its own state (suite-detail.ts: start form, tab) and effects.
 */
import { useCallback, useEffect, useMemo, useReducer, useState } from 'react';
import type { Request } from '../../../../src-main/contract/api.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { useStore } from '../../store/index.ts';
import { defaultBase } from './derive.ts';
import { initialSuiteDetail, liveProgress, suiteDetailReducer, suiteMarkers } from './suite-detail.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';
import { readDraft, writeDraft } from '../../lib/session-draft.ts';
import { restoreNewSuite } from './new-suite.ts';
import type { NewSuiteFields } from './new-suite.ts';

/**
 * The New suite form while it is open, kept in the tab's session (lib/session-draft.ts): a reload (F5,
 * the page restarted) opens it again with what was typed (it closed, all of it lost). Cancelled or the
 * suite created, it is forgotten.
 */
const DRAFT = 'new-suite';

/** The suite list, and the suite the route names (else the first) opened. */
export function useSuites(name: string | undefined) {
  const list = useStore((s) => s.suiteList);
  const loadSuites = useStore((s) => s.loadSuites);
  const openSuite = useStore((s) => s.openSuite);
  const current = useStore((s) => s.suiteName);
  const navigate = useStore((s) => s.navigate);
  const notify = useStore((s) => s.notify);

  useLoadOnMount(loadSuites);
  useEffect(() => {
    const target = name ?? list[0]?.name;
    if (target && target !== current) void openSuite(target);
  }, [name, list, current, openSuite]);

  const sandboxes = useStore((s) => s.sandboxes);
  // The open form's fields (undefined: closed), first as the tab's session kept them.
  const [draft, setDraft] = useState<NewSuiteFields | undefined>(() => readDraft(DRAFT, restoreNewSuite));
  const creating = draft !== undefined;
  const setCreating = (on: boolean) => {
    if (on && draft) return; // (open already: what was typed stays)
    const next = on ? { name: '', sandbox: '', task: '', description: '' } : undefined;
    setDraft(next);
    writeDraft(DRAFT, next);
  };
  const drafted = useCallback((fields: NewSuiteFields) => {
    setDraft(fields);
    writeDraft(DRAFT, fields);
  }, []);
  const {
    busy,
    error,
    run: create,
  } = useSubmit(async (req: Request<'suites.create'>) => {
    await api['suites.create'](req);
    await loadSuites();
    setCreating(false);
    navigate({ view: 'suites', id: req.name });
  });
  const remove = async (suite: string) => {
    try {
      await api['suites.delete']({ name: suite });
    } catch (e) {
      notify('error', `Could not delete suite ${suite}: ${errorMessage(e)}`);
      return;
    }
    notify('info', `Deleted suites/${suite}.toml`);
    // Off the deleted suite's route first, so nothing tries to open it again.
    navigate({ view: 'suites' });
    useStore.setState({
      suiteName: undefined,
      suiteRun: undefined,
      suiteList: list.filter((s) => s.name !== suite),
    });
    await loadSuites();
  };

  return {
    list,
    current,
    open: (id: string) => {
      setCreating(false);
      navigate({ view: 'suites', id });
    },
    sandboxes: sandboxes.map((s) => s.name),
    creating,
    setCreating,
    /** The open form's fields as kept (its draft), and the form's report of them as they change. */
    draft,
    drafted,
    create: (req: Request<'suites.create'>) => void create(req),
    createBusy: busy,
    createError: error,
    remove,
  };
}

export function useSuiteDetail() {
  const name = useStore((s) => s.suiteName);
  const text = useStore((s) => s.suiteText);
  const saved = useStore((s) => s.suiteSaved);
  const problems = useStore((s) => s.suiteProblems);
  const edit = useStore((s) => s.editSuite);
  const revert = useStore((s) => s.revertSuite);
  const save = useStore((s) => s.saveSuite);
  const start = useStore((s) => s.startSuite);
  const cancel = useStore((s) => s.cancelSuite);
  const run = useStore((s) => s.suiteRun);
  const progress = useStore((s) => s.suiteProgress);
  const history = useStore((s) => s.suiteHistory);
  const select = useStore((s) => s.selectSuiteRun);
  const comparison = useStore((s) => s.comparison);
  const compareWith = useStore((s) => s.compareWith);
  const [state, dispatch] = useReducer(suiteDetailReducer, initialSuiteDetail);
  const markers = useMemo(() => suiteMarkers(problems), [problems]);

  // Compare opens on the previous run of the suite (the base `eval --compare` uses) until one is chosen.
  const base = run ? defaultBase(history, run) : undefined;
  useEffect(() => {
    if (state.tab === 'compare' && run && base && comparison?.head !== run.id) void compareWith(base);
  }, [state.tab, run, base, comparison?.head, compareWith]);

  return {
    state,
    dispatch,
    name,
    text,
    dirty: text !== saved,
    problems,
    markers,
    run,
    running: run?.status === 'running',
    live: liveProgress(progress, run),
    history,
    comparison,
    edit,
    revert,
    save: () => void save(),
    start: (options: Parameters<typeof start>[0]) => void start(options),
    cancel: () => void cancel(),
    select: (id: string) => void select(id),
    compareWith: (id: string | undefined) => void compareWith(id),
  };
}

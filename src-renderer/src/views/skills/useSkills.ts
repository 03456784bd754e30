/** The Skills view's state (skills.ts) bound to the API and the route, with its actions. */
import { useCallback, useEffect, useReducer, useState } from 'react';
import { api, errorMessage } from '../../api/client.ts';
import { trackUnsaved } from '../../lib/unsaved.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';
import { useStore } from '../../store/index.ts';
import {
  brokenFileAt,
  dropQuestion,
  hasUnsavedEdits,
  initialSkills,
  keptOnLeave,
  parseArgs,
  parseFromRun,
  parseTests,
  keepsEditedProposal,
  restoreSkillDraft,
  saveRefusal,
  SKILL_NAME,
  skillDraftToKeep,
  skillsReducer,
  takenBy,
  triedKey,
  sourceStamp,
  triedToKeep,
  withKeptTry,
} from './skills.ts';
import { keepNewest, keptMap, readDraft, writeDraft } from '../../lib/session-draft.ts';
import type { KeptTry, SkillsList, SkillsState } from './skills.ts';
import type { SkillView } from '../../../../src-main/contract/api.ts';

/** How long typing pauses before the source is checked. */
const CHECK_DELAY_MS = 250;

/**
 * The view's state as it was left, for this page session: a draft with unsaved edits outlives opening
 * another view (it was dropped without asking) and counts in the page's guard against a reload or a
 * closed tab (lib/unsaved.ts). It is kept in the tab's sessionStorage too, as New run's form is: a new
 * skill's draft came back empty after a reload (F5, the page restarted), what was typed lost.
 */
const DRAFT = 'skill';

/**
 * Each saved skill's last Try it (skills.ts KeptTry), kept in the tab's session: a reload lost what it
 * answered. At most KEPT_TRIES skills' (the oldest go first), shown after a reload as an earlier call's.
 */
const tries = keptMap('skill-try');
const KEPT_TRIES = 10;

/** Keeps `key`'s last Try it for a reload (newest last), or forgets it (`t` undefined, too large). */
function keepTry(key: string | undefined, t: KeptTry | undefined): void {
  if (key !== undefined) keepNewest(tries, key, t && triedToKeep(t), KEPT_TRIES);
}

const restored = readDraft(DRAFT, restoreSkillDraft);
let kept: SkillsState = restored
  ? // (the draft's own arguments, typed after that Try it, stay)
    { ...withKeptTry(restored, tries.get(triedKey(restored.draft) ?? '')), tryArgs: restored.tryArgs }
  : initialSkills;
trackUnsaved('skill drafts', () => (hasUnsavedEdits(kept) ? 1 : 0));

/** The route id of a skill: `<sandbox>/<name>`. */
export const skillRouteId = (sandbox: string, name: string): string => `${sandbox}/${name}`;

export function useSkills(routeId: string | undefined) {
  const notify = useStore((s) => s.notify);
  const navigate = useStore((s) => s.navigate);
  const sandboxes = useStore((s) => s.sandboxes);
  const [list, setList] = useState<SkillsList | undefined>();
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | undefined>();
  const [state, dispatch] = useReducer(skillsReducer, kept);
  useEffect(() => {
    kept = keptOnLeave(state);
    writeDraft(DRAFT, skillDraftToKeep(state));
  }, [state]);
  /** Whether the open draft may go: nothing unsaved in it, or the person said so. */
  const mayDrop = (): boolean => {
    const question = dropQuestion(state);
    return !question || confirm(question);
  };

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const l = await api['skills.list']({});
      setList(l);
      setLoadError(undefined);
      return l;
    } catch (e) {
      // The message instead of a list that cannot be read now (see the store's loadTemplates).
      setList(undefined);
      setLoadError(errorMessage(e));
      return undefined;
    } finally {
      setLoading(false);
    }
  }, []);

  useLoadOnMount(reload);
  // The route names the open skill: open it once the list has it.
  useEffect(() => {
    if (!routeId || !list) return;
    const skill = list.skills.find((s) => skillRouteId(s.sandbox, s.name) === routeId);
    const d = state.draft;
    if (skill && !(d?.mode === 'edit' && d.sandbox === skill.sandbox && d.name === skill.name))
      dispatch({ type: 'open', skill, tried: tries.get(skillRouteId(skill.sandbox, skill.name)) });
    // Only a route or list change opens a skill; edits to the draft do not.
  }, [routeId, list]);

  // "Make a skill" from a run's lines: ask the service for a proposal, open it as a new skill.
  useEffect(() => {
    const from = parseFromRun(routeId);
    if (!from) return;
    // The proposal of these lines, edited, is open (a reload, the view opened again): it stays.
    if (keepsEditedProposal(state, routeId)) return;
    let stale = false;
    dispatch({ type: 'proposing', from });
    api['skills.propose']({ runId: from.runId, attempt: from.attempt, start: from.start, end: from.end })
      .then((proposal) => {
        if (!stale) dispatch({ type: 'proposed', from, proposal });
      })
      .catch((e: unknown) => {
        if (!stale) dispatch({ type: 'proposeFailed', from, error: errorMessage(e) });
      });
    return () => {
      stale = true;
    };
  }, [routeId]);

  // Live validation of the draft's source.
  const draft = state.draft;
  useEffect(() => {
    if (!draft || !draft.source.trim()) return;
    const { sandbox, name, source, language } = draft;
    if (!SKILL_NAME.test(name)) return; // (the panel says why: noCheckReason)
    let stale = false;
    const t = setTimeout(() => {
      api['skills.check']({ sandbox, name, source, language })
        .then((check) => {
          if (!stale) dispatch({ type: 'checked', source, language, check });
        })
        .catch((e: unknown) => {
          if (!stale) dispatch({ type: 'checkFailed', source, error: errorMessage(e) });
        });
    }, CHECK_DELAY_MS);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [draft?.sandbox, draft?.name, draft?.source, draft?.language]);

  const saved = list?.skills.find((s) => draft && s.sandbox === draft.sandbox && s.name === draft.name);

  const taken = takenBy(draft, saved);
  /** A new draft under the name of a file that is no valid skill: Save waits, naming it. */
  const broken = brokenFileAt(draft, list);

  const save = async () => {
    if (!draft) return;
    const t = parseTests(draft.tests);
    if ('error' in t) return dispatch({ type: 'failed', error: t.error });
    dispatch({ type: 'busy', busy: 'save' });
    try {
      const r = await api['skills.save']({
        sandbox: draft.sandbox,
        name: draft.name,
        source: draft.source,
        language: draft.language,
        tests: t.tests,
        ...(draft.origin ? { origin: draft.origin } : {}),
        // The version the edit started from: the service refuses the save when the skill was saved
        // again (or deleted) since, instead of replacing that version with this draft's older text.
        ...(draft.mode === 'edit'
          ? { force: true, ...(draft.version !== undefined ? { version: draft.version } : {}) }
          : {}),
        // A new skill saved over one of its name, as the person chose: over the version they saw.
        ...(draft.mode === 'new' && taken?.replacing ? { force: true, version: taken.skill.version } : {}),
      });
      dispatch({ type: 'saved', skill: r.skill, test: r.test });
      notify(
        r.test.passed ? 'info' : 'error',
        `Saved skill ${r.skill.name} v${r.skill.version}: ${r.test.passed ? 'its tests pass' : 'its tests fail'}.`,
      );
      await reload();
      navigate({ view: 'skills', id: skillRouteId(r.skill.sandbox, r.skill.name) });
    } catch (e) {
      // The list as it is now: a skill of this name saved elsewhere meanwhile (the refusal said it
      // exists) is then offered to save over, and a version saved since is the one shown; a file of that
      // name that is no valid skill is named by the refusal.
      const now = await reload();
      dispatch({ type: 'failed', error: saveRefusal(draft, errorMessage(e), now) });
    }
  };

  const test = async () => {
    if (!draft || draft.mode === 'new') return;
    dispatch({ type: 'busy', busy: 'test' });
    try {
      dispatch({
        type: 'tested',
        result: await api['skills.test']({ sandbox: draft.sandbox, name: draft.name }),
      });
      await reload();
    } catch (e) {
      dispatch({ type: 'failed', error: errorMessage(e) });
    }
  };

  const tryIt = async () => {
    if (!draft) return;
    const a = parseArgs(state.tryArgs);
    if ('error' in a) return dispatch({ type: 'failed', error: a.error });
    dispatch({ type: 'busy', busy: 'try' });
    try {
      const result = await api['skills.try']({
        sandbox: draft.sandbox,
        name: draft.name,
        source: draft.source,
        language: draft.language,
        args: a.args,
      });
      const at = Date.now();
      dispatch({ type: 'tried', result, at });
      keepTry(triedKey(draft), { args: state.tryArgs, result, at, of: sourceStamp(draft) });
    } catch (e) {
      dispatch({ type: 'failed', error: errorMessage(e) });
      keepTry(triedKey(draft), undefined);
    }
  };

  const remove = async () => {
    if (!draft || draft.mode === 'new') return;
    dispatch({ type: 'busy', busy: 'delete' });
    try {
      await api['skills.delete']({ sandbox: draft.sandbox, name: draft.name });
      keepTry(triedKey(draft), undefined);
      notify('info', `Deleted skill ${draft.name} (its history is kept).`);
      dispatch({ type: 'deleted' });
      await reload();
      navigate({ view: 'skills' });
    } catch (e) {
      dispatch({ type: 'failed', error: errorMessage(e) });
    }
  };

  return {
    state,
    dispatch,
    list,
    loading,
    loadError,
    saved,
    taken,
    broken,
    sandboxes: sandboxes.map((s) => s.name),
    backToRun: (runId: string) => navigate({ view: 'run', id: runId }),
    reload,
    save,
    test,
    tryIt,
    remove,
    open: (skill: SkillView) => {
      if (!mayDrop()) return;
      dispatch({ type: 'open', skill, tried: tries.get(skillRouteId(skill.sandbox, skill.name)) });
      navigate({ view: 'skills', id: skillRouteId(skill.sandbox, skill.name) });
    },
    create: (sandbox: string) => {
      if (!mayDrop()) return;
      dispatch({ type: 'new', sandbox });
      navigate({ view: 'skills' });
    },
    close: () => {
      if (!mayDrop()) return;
      dispatch({ type: 'close' });
      navigate({ view: 'skills' });
    },
  };
}

/**
 * The Skills view's state, pure: the list of skills per sandbox, the open skill's draft (source and test
 * cases as text), the live check of its source, the last test run, "Try it" and the delete confirmation.
 * useSkills.ts binds it to the API; SkillsParts.tsx shows it.
 */
import type {
  SkillProposal,
  SkillCaseResult,
  SkillCheck,
  SkillTest,
  SkillTestResult,
  SkillView,
} from '../../../../src-main/contract/api.ts';

export type SkillsList = { skills: SkillView[]; problems: { file: string; error: string }[] };

/** A skill's language: Python skills serve Python scripts, JS skills JS and TS scripts, TS skills TS ones. */
export type SkillLanguage = SkillView['language'];
export const SKILL_LANGUAGES: readonly { value: SkillLanguage; label: string }[] = [
  { value: 'python', label: 'Python' },
  { value: 'js', label: 'JavaScript' },
  { value: 'ts', label: 'TypeScript' },
];

export interface SkillDraft {
  /** `new`: not saved yet (its name may still change); `edit`: a saved skill. */
  mode: 'new' | 'edit';
  sandbox: string;
  name: string;
  language: SkillLanguage;
  source: string;
  /** The test cases as JSON text (an array of `{ args, assert }`). */
  tests: string;
  /** The saved version being edited. */
  version?: number;
  /** The run a proposal came from. */
  origin?: string;
  /**
   * A new skill under the name of one that exists: the version of it the person chose to save over
   * (ticked "save as its new version"); the save is refused when the skill is at another version by then.
   */
  replaces?: number;
}

/** "Make a skill": the lines of a run's script it comes from, and what the service proposed. */
export interface FromRun {
  runId: string;
  attempt: number;
  start: number;
  end: number;
}
/** (`emitted` is optional here: a proposal kept in the tab's session by an older page has none.) */
export type Proposal = Omit<SkillProposal, 'emitted'> & {
  emitted?: string[];
  sandbox: string;
  origin: string;
};

export type Busy = 'save' | 'test' | 'try' | 'delete';

export interface SkillsState {
  draft?: SkillDraft;
  /**
   * The draft as it was opened, made (a new skill's starting shape, a proposal from a run) or last
   * saved: what it differs from it by is what a reload or a closed tab would lose (`hasUnsavedEdits`).
   */
  startedAs?: SkillDraft;
  check?: SkillCheck;
  /** Why the live check of the current source failed (the service could not be asked). */
  checkError?: string;
  testResult?: SkillTestResult;
  tryArgs: string;
  tryResult?: SkillCaseResult;
  /** When the shown Try it result came back (ms); `triedEarlier`: kept from before a reload (see keptTry). */
  triedAt?: number;
  triedEarlier?: true;
  busy?: Busy;
  error?: string;
  confirmDelete: boolean;
  fromRun?: { from: FromRun; proposal?: Proposal; error?: string };
}

export const initialSkills: SkillsState = { tryArgs: '{}', confirmDelete: false };

export type SkillsAction =
  /** `tried`: the skill's last Try it as kept in the tab's session (triedToKeep's JSON), if any. */
  | { type: 'open'; skill: SkillView; tried?: string | undefined }
  | { type: 'new'; sandbox: string }
  | { type: 'close' }
  | { type: 'edit'; field: 'name' | 'source' | 'tests' | 'sandbox'; value: string }
  | { type: 'language'; language: SkillLanguage }
  | { type: 'replaces'; version: number | undefined }
  | { type: 'tryArgs'; value: string }
  | { type: 'checked'; source: string; language: SkillLanguage; check: SkillCheck }
  | { type: 'checkFailed'; source: string; error: string }
  | { type: 'busy'; busy: Busy }
  | { type: 'failed'; error: string }
  | { type: 'tested'; result: SkillTestResult }
  | { type: 'tried'; result: SkillCaseResult; at: number }
  | { type: 'saved'; skill: SkillView; test: SkillTestResult }
  | { type: 'confirmDelete'; on: boolean }
  | { type: 'deleted' }
  | { type: 'proposing'; from: FromRun }
  | { type: 'proposed'; from: FromRun; proposal: Proposal }
  | { type: 'proposeFailed'; from: FromRun; error: string };

/** The route id of "Make a skill": `from-run:<runId>:<attempt>:<start>-<end>` (lines of the body). */
export const fromRunId = (f: FromRun): string => `from-run:${f.runId}:${f.attempt}:${f.start}-${f.end}`;
export function parseFromRun(id: string | undefined): FromRun | undefined {
  const m = /^from-run:([^:]+):(\d+):(\d+)-(\d+)$/.exec(id ?? '');
  if (!m) return undefined;
  return { runId: m[1]!, attempt: Number(m[2]), start: Number(m[3]), end: Number(m[4]) };
}

/** The source a new skill starts from, in its language: the required shape, ready to be filled in. */
/**
 * `source` with its function named `from` (Python's `def`, JS and TS `function`; the first one) named
 * `to` instead; the source as it is when it defines none of that name.
 */
export function renameSkillFunction(
  source: string,
  from: string,
  to: string,
  language: SkillLanguage,
): string {
  const name = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const definition =
    language === 'python'
      ? new RegExp(`^(\\s*(?:async\\s+)?def\\s+)${name}(?=\\s*\\()`, 'm')
      : new RegExp(`(\\bfunction\\s*\\*?\\s*)${name}(?=\\s*[(<])`);
  return source.replace(definition, (_all, head: string) => `${head}${to}`);
}

export const newSkillSource = (name: string, language: SkillLanguage = 'python'): string =>
  language === 'js'
    ? `/**
 * What this skill does, in one line.
 * @param {string} user_id What this parameter is (e.g. "u1").
 * @returns What it returns.
 */
async function ${name}(user_id) {
  return user_id;
}
`
    : language === 'ts'
      ? `/**
 * What this skill does, in one line.
 * @param user_id What this parameter is (e.g. "u1").
 * @returns What it returns.
 */
async function ${name}(user_id: string): Promise<string> {
  return user_id;
}
`
      : `def ${name}(user_id: str) -> str:
    """What this skill does, in one line.

    Args:
        user_id: What this parameter is (e.g. "u1").

    Returns:
        What it returns.
    """
    return user_id
`;

/** One case a line: short enough to read, still JSON. */
export const testsText = (tests: SkillTest[]): string =>
  tests.length === 0 ? '[]' : `[\n${tests.map((t) => '  ' + JSON.stringify(t)).join(',\n')}\n]`;

export const draftOf = (skill: SkillView): SkillDraft => ({
  mode: 'edit',
  sandbox: skill.sandbox,
  name: skill.name,
  language: skill.language,
  source: skill.source,
  tests: testsText(skill.tests),
  version: skill.version,
});

/** The first case's arguments, to try the skill with. */
const firstArgs = (skill: SkillView): string => JSON.stringify(skill.tests[0]?.args ?? {}, null, 2);

export function skillsReducer(s: SkillsState, a: SkillsAction): SkillsState {
  switch (a.type) {
    case 'open': {
      const draft = draftOf(a.skill);
      return withKeptTry({ ...initialSkills, draft, startedAs: draft, tryArgs: firstArgs(a.skill) }, a.tried);
    }
    case 'new': {
      const draft: SkillDraft = {
        mode: 'new',
        sandbox: a.sandbox,
        name: 'new_skill',
        language: 'python',
        source: newSkillSource('new_skill'),
        tests: testsText([{ args: { user_id: 'u1' }, assert: [] }]),
      };
      return {
        ...initialSkills,
        draft,
        startedAs: draft,
        tryArgs: JSON.stringify({ user_id: 'u1' }, null, 2),
      };
    }
    case 'close':
      return initialSkills;
    case 'edit': {
      if (!s.draft) return s;
      // A saved skill keeps its name and sandbox: a new name is a new skill.
      if (s.draft.mode === 'edit' && (a.field === 'name' || a.field === 'sandbox')) return s;
      const d = s.draft;
      // A new skill's source still as it started follows its name (its function is named after the skill):
      // renamed, it kept `def new_skill(...)`, and Save answered "the function is named new_skill".
      const followsName =
        a.field === 'name' && d.mode === 'new' && d.source === newSkillSource(d.name, d.language);
      // So does a proposal from a run's lines ("Make a skill") whose source is as the service made it,
      // but for the function's name: renamed, Save answered "the function is named new_skill; it must be
      // user_name" and the name had to be typed twice.
      const proposalFollows =
        !followsName &&
        a.field === 'name' &&
        d.mode === 'new' &&
        !!s.fromRun?.proposal &&
        !!s.startedAs &&
        s.startedAs.language === d.language &&
        d.source === renameSkillFunction(s.startedAs.source, s.startedAs.name, d.name, d.language);
      // "Save as its new version" was said of the skill under the old name (or sandbox): not of another.
      const { replaces: _r, ...kept } = d;
      const draft = {
        ...(a.field === 'name' || a.field === 'sandbox' ? kept : d),
        [a.field]: a.value,
        ...(followsName ? { source: newSkillSource(a.value, d.language) } : {}),
        ...(proposalFollows ? { source: renameSkillFunction(d.source, d.name, a.value, d.language) } : {}),
      };
      const next = { ...s, draft, confirmDelete: false };
      if (a.field === 'tests') return next;
      // The check was of another source (or name, or sandbox): it goes until the new one comes.
      const { check: _c, checkError: _e, ...rest } = next;
      return rest;
    }
    case 'language': {
      if (!s.draft || s.draft.language === a.language) return s;
      const d = s.draft;
      // A source still as it started (or empty) becomes the starting shape of the new language; a
      // written one is kept, and the check says what the new language needs.
      const untouched = !d.source.trim() || d.source === newSkillSource(d.name, d.language);
      const { check: _c, ...rest } = s;
      return {
        ...rest,
        draft: {
          ...d,
          language: a.language,
          ...(untouched ? { source: newSkillSource(d.name, a.language) } : {}),
        },
        confirmDelete: false,
      };
    }
    case 'replaces': {
      if (s.draft?.mode !== 'new') return s;
      const { replaces: _r, ...d } = s.draft;
      return { ...s, draft: a.version === undefined ? d : { ...d, replaces: a.version } };
    }
    case 'tryArgs':
      return { ...s, tryArgs: a.value };
    case 'checked': {
      // A check of an older source, or of another language, is stale.
      if (s.draft?.source !== a.source || s.draft.language !== a.language) return s;
      const { checkError: _e, ...rest } = s;
      return { ...rest, check: a.check };
    }
    case 'checkFailed':
      return s.draft?.source === a.source ? { ...s, checkError: a.error } : s;
    case 'busy': {
      const { error: _e, ...rest } = s;
      return { ...rest, busy: a.busy };
    }
    case 'failed': {
      const { busy: _b, ...rest } = s;
      return { ...rest, error: a.error };
    }
    case 'tested': {
      const { busy: _b, ...rest } = s;
      return { ...rest, testResult: a.result };
    }
    case 'tried': {
      const { busy: _b, triedEarlier: _e, ...rest } = s;
      return { ...rest, tryResult: a.result, triedAt: a.at };
    }
    case 'saved': {
      // A skill made from a run's lines is saved: the proposal is done (its banner stayed, "will be
      // able to call new_skill(…)", above the saved skill).
      const { busy: _b, fromRun: _f, ...rest } = s;
      const draft = draftOf(a.skill);
      return { ...rest, draft, startedAs: draft, testResult: a.test };
    }
    case 'confirmDelete':
      return { ...s, confirmDelete: a.on };
    case 'deleted':
      return initialSkills;
    case 'proposing':
      return { ...initialSkills, fromRun: { from: a.from } };
    case 'proposeFailed':
      return { ...initialSkills, fromRun: { from: a.from, error: a.error } };
    case 'proposed': {
      const p = a.proposal;
      const draft: SkillDraft = {
        mode: 'new',
        sandbox: p.sandbox,
        name: p.name,
        language: p.language,
        source: p.source,
        tests: testsText(p.tests),
        origin: p.origin,
      };
      return {
        ...initialSkills,
        fromRun: { from: a.from, proposal: p },
        draft,
        startedAs: draft,
        tryArgs: JSON.stringify(p.tests[0]?.args ?? {}, null, 2),
      };
    }
  }
}

/** Parses a JSON object of arguments; the error says what is wrong. */
export function parseArgs(text: string): { args: Record<string, unknown> } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `arguments are not JSON: ${(e as Error).message}` };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    return { error: 'arguments must be a JSON object, e.g. {"user_id": "u1"}' };
  return { args: v as Record<string, unknown> };
}

/** Parses the test cases' JSON text; each case is `{ args: {...}, assert: [...] }`. */
export function parseTests(text: string): { tests: SkillTest[] } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `test cases are not JSON: ${(e as Error).message}` };
  }
  if (!Array.isArray(v))
    return { error: 'test cases must be a JSON array of { "args": {...}, "assert": [...] }' };
  for (const [i, c] of v.entries()) {
    if (!c || typeof c !== 'object' || Array.isArray(c))
      return { error: `test case ${i + 1} is not an object` };
    const { args, assert } = c as { args?: unknown; assert?: unknown };
    if (!args || typeof args !== 'object' || Array.isArray(args))
      return { error: `test case ${i + 1}: "args" must be an object` };
    if (assert !== undefined && !Array.isArray(assert))
      return { error: `test case ${i + 1}: "assert" must be an array` };
  }
  return {
    tests: (v as { args: SkillTest['args']; assert?: SkillTest['assert'] }[]).map((c) => ({
      args: c.args,
      assert: c.assert ?? [],
    })),
  };
}

/** The draft differs from the saved skill (or is new). */
export const isDirty = (d: SkillDraft, saved: SkillView | undefined): boolean =>
  !saved ||
  d.mode === 'new' ||
  d.source !== saved.source ||
  d.language !== saved.language ||
  d.tests !== testsText(saved.tests);

/**
 * A new draft under the name of a skill that exists (`saved`, the list's skill of that sandbox and name):
 * that skill, and whether the person chose to save over the version it is at now. A save as it stands
 * would be refused ("exists"): the view offers "save as its new version" and says why Save waits.
 */
export function takenBy(
  d: SkillDraft | undefined,
  saved: SkillView | undefined,
): { skill: SkillView; replacing: boolean } | undefined {
  if (d?.mode !== 'new' || !saved) return undefined;
  return { skill: saved, replacing: d.replaces === saved.version };
}

/**
 * A new draft under the name of a skill file that is there but is no valid skill (broken by hand: it is
 * among the list's problems, not its skills): that problem. The service refuses the save ("exists"),
 * and there is no saved skill to offer to save over.
 */
export function brokenFileAt(
  d: SkillDraft | undefined,
  list: SkillsList | undefined,
): { file: string; error: string } | undefined {
  if (d?.mode !== 'new' || !list) return undefined;
  if (list.skills.some((s) => s.sandbox === d.sandbox && s.name === d.name)) return undefined;
  const ends = ['py', 'js', 'ts'].map((ext) => `/${d.sandbox}/${d.name}.${ext}`);
  return list.problems.find((p) => ends.some((e) => p.file.replace(/\\/g, '/').endsWith(e)));
}

/** Why Save waits for a new draft under a name whose file is broken (brokenFileAt). */
export const brokenFileWords = (d: SkillDraft, broken: { file: string }): string =>
  `The file ${broken.file} holds skill ${d.name} of sandbox ${d.sandbox} but is not a valid skill (its problem is listed above): fix or remove that file, or choose another name.`;

/**
 * A refused save's words as the view says them: a new skill whose name was taken meanwhile (another
 * window, the CLI, MCP) is told what to do here, not the CLI's `--force` the service names. `list` is
 * the skills as they are after the refusal: a name held by a file that is no valid skill has no
 * "save this as its new version" to tick, and that file is named instead.
 */
export function saveRefusal(d: SkillDraft, message: string, list?: SkillsList): string {
  if (d.mode === 'new' && message.startsWith(`skill ${d.name} exists in sandbox ${d.sandbox};`)) {
    const broken = brokenFileAt(d, list);
    if (broken) return brokenFileWords(d, broken);
    return `A skill named ${d.name} was saved in sandbox ${d.sandbox} meanwhile: tick "save this as its new version" above to replace it, or choose another name.`;
  }
  return message;
}

/**
 * The open draft holds edits a reload or a closed tab would lose: changed since it was opened, made or
 * saved. A new skill still as it started (the starting shape, a proposal from a run) loses nothing.
 */
export const hasUnsavedEdits = (s: Pick<SkillsState, 'draft' | 'startedAs'>): boolean => {
  const d = s.draft;
  const from = s.startedAs;
  if (!d) return false;
  if (!from) return true;
  return (
    d.sandbox !== from.sandbox ||
    d.name !== from.name ||
    d.language !== from.language ||
    d.source !== from.source ||
    d.tests !== from.tests
  );
};

/**
 * What the view keeps when it is left (another view opened): a draft with unsaved edits, to find again
 * on coming back (it was dropped without asking), without a busy state whose answer the view will not
 * see; nothing otherwise.
 */
export function keptOnLeave(s: SkillsState): SkillsState {
  if (!hasUnsavedEdits(s)) return initialSkills;
  const { busy: _b, ...rest } = s;
  return { ...rest, confirmDelete: false };
}

/** The question to ask before the open draft is dropped (another skill opened, a new one, Close). */
export const dropQuestion = (s: Pick<SkillsState, 'draft' | 'startedAs'>): string | undefined =>
  s.draft && hasUnsavedEdits(s)
    ? `Drop the unsaved edits to skill ${s.draft.name || '(unnamed)'}?`
    : undefined;

/** Skills grouped by sandbox, sandboxes and names in order. */
export function bySandbox(skills: SkillView[]): [string, SkillView[]][] {
  const m = new Map<string, SkillView[]>();
  for (const s of [...skills].sort((a, b) => a.name.localeCompare(b.name)))
    m.set(s.sandbox, [...(m.get(s.sandbox) ?? []), s]);
  return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** How a skill's state reads in the list: tested (offered), failing, or untested. */
export const statusLabel = (s: SkillView): string =>
  s.status === 'passed' ? 'tested' : s.status === 'failed' ? 'failing' : 'untested';

/** The JSON of a value, short, for a result cell. */
export const showValue = (v: unknown): string => (v === undefined ? '' : JSON.stringify(v));

/** A skill's name as the service takes it (the file and the function are named by it). */
export const SKILL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Why the source has no check to show yet, when none will come until the person acts (so the panel
 * does not say "Checking…" forever); undefined while a check is on its way.
 */
export function noCheckReason(s: Pick<SkillsState, 'draft' | 'checkError'>): string | undefined {
  if (!s.draft) return undefined;
  if (!s.draft.source.trim()) return "Write the skill's function: it is checked as you type.";
  if (!SKILL_NAME.test(s.draft.name))
    return `Not checked: the name ${s.draft.name ? `"${s.draft.name}" ` : ''}must be lower case letters, digits and _, a letter first, at most 64 characters.`;
  if (s.checkError) return `The check could not be made: ${s.checkError}`;
  return undefined;
}

/**
 * What a reload keeps of the view (lib/session-draft.ts): a draft with unsaved edits, as it was left, and
 * for one made from a run's lines ("Make a skill") the run's lines and the proposal it started from.
 */
export type KeptSkillDraft = Pick<SkillsState, 'draft' | 'startedAs' | 'tryArgs' | 'fromRun'>;

/** The draft to keep in the tab's session: one with unsaved edits (a new skill typed, an edit), else none. */
export function skillDraftToKeep(s: SkillsState): KeptSkillDraft | undefined {
  if (!s.draft || !hasUnsavedEdits(s)) return undefined;
  return {
    draft: s.draft,
    ...(s.startedAs ? { startedAs: s.startedAs } : {}),
    tryArgs: s.tryArgs,
    ...(s.fromRun?.proposal ? { fromRun: { from: s.fromRun.from, proposal: s.fromRun.proposal } } : {}),
  };
}

/**
 * The open "Make a skill" route (`fromRunId`) is the one the kept draft was made from, and the draft holds
 * edits: a new proposal for it would replace them (a reload asked the service again, and the edited
 * proposal was gone).
 */
export const keepsEditedProposal = (s: SkillsState, routeId: string | undefined): boolean =>
  !!s.fromRun?.proposal && fromRunId(s.fromRun.from) === routeId && hasUnsavedEdits(s);

function restoreFromRun(raw: unknown): SkillsState['fromRun'] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const f = r['from'] as Record<string, unknown> | undefined;
  const from = f && typeof f === 'object' ? parseFromRun(fromRunId(f as unknown as FromRun)) : undefined;
  const p = r['proposal'] as Record<string, unknown> | undefined;
  if (!from || !p || typeof p !== 'object') return undefined;
  const ok =
    typeof p['name'] === 'string' &&
    typeof p['sandbox'] === 'string' &&
    typeof p['origin'] === 'string' &&
    typeof p['source'] === 'string' &&
    LANGUAGE_VALUES.includes(p['language'] as SkillLanguage) &&
    Array.isArray(p['parameters']) &&
    (p['parameters'] as unknown[]).every(
      (x) => !!x && typeof x === 'object' && typeof (x as Record<string, unknown>)['name'] === 'string',
    ) &&
    Array.isArray(p['returns']) &&
    (p['emitted'] === undefined ||
      (Array.isArray(p['emitted']) && (p['emitted'] as unknown[]).every((e) => typeof e === 'string'))) &&
    Array.isArray(p['tests']);
  return ok ? { from, proposal: p as unknown as Proposal } : undefined;
}

const LANGUAGE_VALUES = SKILL_LANGUAGES.map((l) => l.value);

function restoreDraftFields(raw: unknown): SkillDraft | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const text = (k: string): string | undefined => {
    const v = r[k];
    return typeof v === 'string' ? v : undefined;
  };
  const [sandbox, name, source, tests] = [text('sandbox'), text('name'), text('source'), text('tests')];
  if ((r['mode'] !== 'new' && r['mode'] !== 'edit') || sandbox === undefined || name === undefined)
    return undefined;
  if (source === undefined || tests === undefined) return undefined;
  if (!LANGUAGE_VALUES.includes(r['language'] as SkillLanguage)) return undefined;
  const version = r['version'];
  return {
    mode: r['mode'],
    sandbox,
    name,
    language: r['language'] as SkillLanguage,
    source,
    tests,
    ...(typeof version === 'number' && Number.isInteger(version) ? { version } : {}),
    ...(text('origin') !== undefined ? { origin: text('origin')! } : {}),
  };
}

/**
 * The view's state from a kept draft (`skillDraftToKeep`'s JSON); undefined for anything else (another
 * version's shape, a hand edit), which is dropped.
 */
export function restoreSkillDraft(raw: unknown): SkillsState | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const draft = restoreDraftFields(r['draft']);
  if (!draft) return undefined;
  const startedAs = restoreDraftFields(r['startedAs']);
  const fromRun = restoreFromRun(r['fromRun']);
  return {
    ...initialSkills,
    draft,
    ...(startedAs ? { startedAs } : {}),
    ...(fromRun ? { fromRun } : {}),
    tryArgs: typeof r['tryArgs'] === 'string' ? r['tryArgs'] : initialSkills.tryArgs,
  };
}

/**
 * A saved skill's last Try it (its arguments, what came back, when), kept in the tab's session per skill
 * (useSkills' `tries`): a reload reopened the skill with the first case's arguments and no result.
 */
export interface KeptTry {
  args: string;
  result: SkillCaseResult;
  at: number;
  /** The source it ran (sourceStamp): Try it runs the source as it is in the editor, edits and all. */
  of?: string;
}

/**
 * A short stamp of a skill's source and language (FNV-1a, 32 bits): a kept Try it is put back only beside
 * the source it ran. Before, a try of unsaved edits that were then dropped came back after a reload beside
 * the saved source, as that source's earlier answer.
 */
export function sourceStamp(d: Pick<SkillDraft, 'source' | 'language'>): string {
  let h = 0x811c9dc5;
  const text = `${d.language}\n${d.source}`;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `${text.length}:${h.toString(16)}`;
}

/** The longest Try it kept across a reload (its JSON): a huge result is not worth the tab's storage. */
export const MAX_KEPT_TRY = 200_000;

/** The key a saved skill's Try it is kept under; undefined for a new skill (not saved: no name yet). */
export const triedKey = (d: SkillDraft | undefined): string | undefined =>
  d && d.mode !== 'new' ? `${d.sandbox}/${d.name}` : undefined;

/** The Try it as kept (JSON); undefined when it is too large to keep. */
export function triedToKeep(t: KeptTry): string | undefined {
  const text = JSON.stringify(t);
  return text.length > MAX_KEPT_TRY ? undefined : text;
}

/** The state with a kept Try it (triedToKeep's JSON) put back, marked earlier; as it was for anything else. */
export function withKeptTry(s: SkillsState, kept: string | undefined): SkillsState {
  if (kept === undefined) return s;
  let raw: unknown;
  try {
    raw = JSON.parse(kept);
  } catch {
    return s;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return s;
  const r = raw as Record<string, unknown>;
  const result = r['result'] as Record<string, unknown> | undefined;
  if (typeof r['args'] !== 'string' || typeof r['at'] !== 'number' || !Number.isFinite(r['at'])) return s;
  if (!result || typeof result !== 'object' || typeof result['passed'] !== 'boolean') return s;
  if (!Array.isArray(result['verdicts'])) return s;
  // (tried on another source than the one shown: edits since dropped, or saved over)
  if (typeof r['of'] === 'string' && s.draft && r['of'] !== sourceStamp(s.draft)) return s;
  return {
    ...s,
    tryArgs: r['args'],
    tryResult: result as unknown as SkillCaseResult,
    triedAt: r['at'],
    triedEarlier: true,
  };
}

import { describe, expect, it } from 'vitest';
import type { SkillView } from '../../../../src-main/contract/api.ts';
import {
  noCheckReason,
  bySandbox,
  draftOf,
  dropQuestion,
  fromRunId,
  hasUnsavedEdits,
  parseFromRun,
  initialSkills,
  isDirty,
  keptOnLeave,
  parseArgs,
  parseTests,
  restoreSkillDraft,
  saveRefusal,
  skillDraftToKeep,
  renameSkillFunction,
  skillsReducer,
  statusLabel,
  takenBy,
  triedKey,
  triedToKeep,
  sourceStamp,
  MAX_KEPT_TRY,
} from './skills.ts';

const skill = (name: string, over: Partial<SkillView> = {}): SkillView => ({
  name,
  sandbox: 'ecommerce',
  language: 'python',
  version: 2,
  file: `/w/skills/ecommerce/${name}.py`,
  source: `def ${name}(user_id: str) -> str:\n    """Doc."""\n    return user_id\n`,
  description: 'Doc.',
  signature: `${name}(user_id: str) -> str`,
  parameters: [],
  tools: [],
  grade: { w: 0, d: 0 },
  tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 'u1' }] }],
  status: 'passed',
  failures: [],
  testedAt: 1,
  versions: [1],
  ...over,
});

describe('the Skills view state', () => {
  it('opens a saved skill with its first case as the arguments to try', () => {
    const s = skillsReducer(initialSkills, { type: 'open', skill: skill('who') });
    expect(s.draft).toMatchObject({ mode: 'edit', name: 'who', sandbox: 'ecommerce', version: 2 });
    expect(JSON.parse(s.tryArgs)).toEqual({ user_id: 'u1' });
    expect(parseTests(s.draft!.tests)).toEqual({ tests: skill('who').tests });
  });

  it('opens a saved skill with its last Try it kept across a reload, marked earlier; junk or another shape is ignored', () => {
    const result = { args: { user_id: 'u2' }, passed: true, result: 'u2', verdicts: [] };
    const kept = triedToKeep({ args: '{"user_id": "u2"}', result, at: 1_700_000_000_000 })!;
    const s = skillsReducer(initialSkills, { type: 'open', skill: skill('who'), tried: kept });
    expect(s.tryArgs).toBe('{"user_id": "u2"}');
    expect(s.tryResult).toEqual(result);
    expect(s.triedAt).toBe(1_700_000_000_000);
    expect(s.triedEarlier).toBe(true);
    expect(triedKey(s.draft)).toBe('ecommerce/who');
    // Tried again on this page: no longer an earlier one.
    const again = skillsReducer(s, { type: 'tried', result, at: 1_700_000_000_500 });
    expect(again.triedEarlier).toBeUndefined();
    expect(again.triedAt).toBe(1_700_000_000_500);
    for (const junk of [
      '{',
      '[]',
      '{"args": 1, "result": {}, "at": 1}',
      '{"args": "{}", "result": {"passed": true}, "at": 1}',
    ]) {
      const o = skillsReducer(initialSkills, { type: 'open', skill: skill('who'), tried: junk });
      expect(o.tryResult).toBeUndefined();
      expect(JSON.parse(o.tryArgs)).toEqual({ user_id: 'u1' });
    }
    // Too large to keep; a new skill (no name saved yet) has no key.
    expect(
      triedToKeep({ args: '{}', result: { ...result, result: 'x'.repeat(MAX_KEPT_TRY) }, at: 1 }),
    ).toBeUndefined();
    expect(triedKey(skillsReducer(initialSkills, { type: 'new', sandbox: 'users' }).draft)).toBeUndefined();
  });

  it("a kept Try it comes back only beside the source it ran (a try of edits since dropped is not shown as the saved source's)", () => {
    const result = { args: { user_id: 'u2' }, passed: true, result: 'edited', verdicts: [] };
    const saved = skill('who');
    const edited = {
      source: saved.source.replace('return user_id', 'return "edited"'),
      language: 'python' as const,
    };
    const ofEdits = triedToKeep({ args: '{"user_id": "u2"}', result, at: 1, of: sourceStamp(edited) })!;
    // Before: "The result of an earlier try" beside the saved source, with what the edits answered.
    const s = skillsReducer(initialSkills, { type: 'open', skill: saved, tried: ofEdits });
    expect(s.tryResult).toBeUndefined();
    expect(s.triedEarlier).toBeUndefined();
    // The same source: shown.
    const ofSaved = triedToKeep({ args: '{"user_id": "u2"}', result, at: 1, of: sourceStamp(saved) })!;
    expect(skillsReducer(initialSkills, { type: 'open', skill: saved, tried: ofSaved }).tryResult).toEqual(
      result,
    );
    // (a stamp is the source's and language's)
    expect(sourceStamp(edited)).not.toBe(sourceStamp(saved));
    expect(sourceStamp({ ...saved, language: 'js' })).not.toBe(sourceStamp(saved));
  });

  it('a new skill may be renamed and moved; a saved one keeps its name and sandbox', () => {
    let s = skillsReducer(initialSkills, { type: 'new', sandbox: 'users' });
    expect(s.draft).toMatchObject({ mode: 'new', sandbox: 'users', name: 'new_skill' });
    expect(s.draft!.source).toContain('def new_skill(');
    s = skillsReducer(s, { type: 'edit', field: 'name', value: 'city_of' });
    s = skillsReducer(s, { type: 'edit', field: 'sandbox', value: 'ecommerce' });
    expect(s.draft).toMatchObject({ name: 'city_of', sandbox: 'ecommerce' });
    let e = skillsReducer(initialSkills, { type: 'open', skill: skill('who') });
    e = skillsReducer(e, { type: 'edit', field: 'name', value: 'other' });
    expect(e.draft!.name).toBe('who');
    e = skillsReducer(e, { type: 'edit', field: 'source', value: 'def who(): pass' });
    expect(e.draft!.source).toBe('def who(): pass');
  });

  it('a language switch swaps an untouched starting shape, keeps a written source, drops the check', () => {
    let s = skillsReducer(initialSkills, { type: 'new', sandbox: 'ecommerce' });
    expect(s.draft).toMatchObject({ language: 'python', source: expect.stringContaining('def new_skill(') });
    const check = { valid: true, problems: [], violations: [], tools: [] };
    s = skillsReducer(s, { type: 'checked', source: s.draft!.source, language: 'python', check });
    s = skillsReducer(s, { type: 'language', language: 'js' });
    expect(s.check).toBeUndefined();
    expect(s.draft).toMatchObject({
      language: 'js',
      source: expect.stringContaining('async function new_skill(user_id) {'),
    });
    s = skillsReducer(s, { type: 'language', language: 'ts' });
    expect(s.draft!.source).toContain('async function new_skill(user_id: string): Promise<string> {');
    s = skillsReducer(s, { type: 'edit', field: 'source', value: 'function mine() {}' });
    s = skillsReducer(s, { type: 'language', language: 'js' });
    expect(s.draft).toMatchObject({ language: 'js', source: 'function mine() {}' });
    // A saved skill opens in its language; another language makes the draft dirty.
    const o = skillsReducer(initialSkills, { type: 'open', skill: skill('who') });
    expect(o.draft!.language).toBe('python');
    expect(isDirty(skillsReducer(o, { type: 'language', language: 'js' }).draft!, skill('who'))).toBe(true);
  });

  it('keeps only the check of the current source', () => {
    let s = skillsReducer(initialSkills, { type: 'open', skill: skill('who') });
    const check = { valid: true, problems: [], violations: [], tools: [] };
    expect(
      skillsReducer(s, { type: 'checked', source: 'older', language: 'python', check }).check,
    ).toBeUndefined();
    expect(
      skillsReducer(s, { type: 'checked', source: s.draft!.source, language: 'js', check }).check,
    ).toBeUndefined();
    s = skillsReducer(s, { type: 'checked', source: s.draft!.source, language: 'python', check });
    expect(s.check).toBe(check);
    expect(skillsReducer(s, { type: 'edit', field: 'tests', value: '[]' }).check).toBe(check);
    expect(skillsReducer(s, { type: 'edit', field: 'source', value: 'x' }).check).toBeUndefined();
  });

  it('says why no check is coming instead of "Checking…": no source, a name not taken, a failed check', () => {
    let s = skillsReducer(initialSkills, { type: 'new', sandbox: 'ecommerce' });
    s = skillsReducer(s, { type: 'edit', field: 'name', value: 'bad name!' });
    expect(noCheckReason(s)).toMatch(/^Not checked: the name "bad name!" must be lower case letters/);
    s = skillsReducer(s, { type: 'edit', field: 'name', value: '' });
    expect(noCheckReason(s)).toMatch(/^Not checked: the name must be/);
    s = skillsReducer(s, { type: 'edit', field: 'name', value: 'ok_name' });
    expect(noCheckReason(s)).toBeUndefined(); // (a check is on its way)
    const source = s.draft!.source;
    s = skillsReducer(s, { type: 'checkFailed', source, error: 'the service does not answer' });
    expect(noCheckReason(s)).toBe('The check could not be made: the service does not answer');
    // A failure of an older source is not shown; an edit clears the shown one.
    expect(
      skillsReducer(s, { type: 'edit', field: 'source', value: 'def ok_name(): pass' }).checkError,
    ).toBeUndefined();
    s = skillsReducer(s, { type: 'edit', field: 'source', value: '   ' });
    expect(noCheckReason(s)).toMatch(/^Write the skill's function/);
  });

  it('busy, failure and outcomes: an error clears when the next action starts', () => {
    let s = skillsReducer(initialSkills, { type: 'open', skill: skill('who') });
    s = skillsReducer(s, { type: 'busy', busy: 'try' });
    s = skillsReducer(s, { type: 'failed', error: 'boom' });
    expect(s.busy).toBeUndefined();
    expect(s.error).toBe('boom');
    s = skillsReducer(s, { type: 'busy', busy: 'test' });
    expect(s.error).toBeUndefined();
    const result = { name: 'who', sandbox: 'ecommerce', passed: false, cases: [], failures: ['no case'] };
    s = skillsReducer(s, { type: 'tested', result });
    expect(s.testResult).toBe(result);
    expect(s.busy).toBeUndefined();
    s = skillsReducer(s, { type: 'saved', skill: skill('who', { version: 3 }), test: result });
    expect(s.draft!.version).toBe(3);
    s = skillsReducer(s, { type: 'confirmDelete', on: true });
    expect(s.confirmDelete).toBe(true);
    // An edit withdraws the confirmation.
    expect(skillsReducer(s, { type: 'edit', field: 'source', value: 'x' }).confirmDelete).toBe(false);
    expect(skillsReducer(s, { type: 'deleted' })).toEqual(initialSkills);
  });

  it('leaving the view keeps a draft with unsaved edits (not busy), and dropping it is asked first', () => {
    let s = skillsReducer(initialSkills, { type: 'open', skill: skill('who') });
    expect(keptOnLeave(s)).toEqual(initialSkills);
    expect(dropQuestion(s)).toBeUndefined();
    s = skillsReducer(s, { type: 'edit', field: 'source', value: 'def who(): pass' });
    s = skillsReducer(s, { type: 'busy', busy: 'try' });
    const kept = keptOnLeave(s);
    expect(kept.draft?.source).toBe('def who(): pass');
    expect(kept.busy).toBeUndefined();
    expect(dropQuestion(kept)).toBe('Drop the unsaved edits to skill who?');
  });

  it('unsaved edits (what the page asks about before a reload): changed since opened, made or saved', () => {
    expect(hasUnsavedEdits(initialSkills)).toBe(false);
    // A saved skill: its edits until they are saved, none once they are.
    let s = skillsReducer(initialSkills, { type: 'open', skill: skill('who') });
    expect(hasUnsavedEdits(s)).toBe(false);
    s = skillsReducer(s, { type: 'tryArgs', value: '{"user_id": "u9"}' });
    expect(hasUnsavedEdits(s)).toBe(false);
    s = skillsReducer(s, { type: 'edit', field: 'source', value: 'def who(): pass' });
    expect(hasUnsavedEdits(s)).toBe(true);
    s = skillsReducer(s, { type: 'edit', field: 'source', value: skill('who').source });
    expect(hasUnsavedEdits(s)).toBe(false);
    s = skillsReducer(s, { type: 'edit', field: 'tests', value: '[]' });
    expect(hasUnsavedEdits(s)).toBe(true);
    const result = { name: 'who', sandbox: 'ecommerce', passed: true, cases: [], failures: [] };
    s = skillsReducer(s, { type: 'saved', skill: skill('who', { version: 3, tests: [] }), test: result });
    expect(hasUnsavedEdits(s)).toBe(false);
    expect(hasUnsavedEdits(skillsReducer(s, { type: 'language', language: 'js' }))).toBe(true);
    // A new skill as it starts loses nothing; named or written, it does.
    s = skillsReducer(s, { type: 'new', sandbox: 'ecommerce' });
    expect(hasUnsavedEdits(s)).toBe(false);
    expect(hasUnsavedEdits(skillsReducer(s, { type: 'edit', field: 'name', value: 'city' }))).toBe(true);
    expect(hasUnsavedEdits(skillsReducer(s, { type: 'edit', field: 'sandbox', value: 'users' }))).toBe(true);
    s = skillsReducer(s, { type: 'edit', field: 'source', value: 'def new_skill(): pass' });
    expect(hasUnsavedEdits(s)).toBe(true);
    // Closed or deleted: nothing left to lose.
    expect(hasUnsavedEdits(skillsReducer(s, { type: 'close' }))).toBe(false);
    expect(hasUnsavedEdits(skillsReducer(s, { type: 'deleted' }))).toBe(false);
  });

  it('parses arguments and test cases, saying what is wrong', () => {
    expect(parseArgs('{"a": 1}')).toEqual({ args: { a: 1 } });
    expect(parseArgs('[1]')).toEqual({ error: expect.stringContaining('JSON object') });
    expect(parseArgs('{')).toEqual({ error: expect.stringContaining('not JSON') });
    expect(parseTests('[{"args": {"a": 1}}]')).toEqual({ tests: [{ args: { a: 1 }, assert: [] }] });
    expect(parseTests('{}')).toEqual({ error: expect.stringContaining('JSON array') });
    expect(parseTests('[{"args": 1}]')).toEqual({ error: 'test case 1: "args" must be an object' });
    expect(parseTests('[{"args": {}, "assert": 2}]')).toEqual({
      error: 'test case 1: "assert" must be an array',
    });
  });

  it('dirty, grouping and state labels', () => {
    const w = skill('who');
    expect(isDirty(draftOf(w), w)).toBe(false);
    expect(isDirty({ ...draftOf(w), source: 'x' }, w)).toBe(true);
    expect(isDirty({ ...draftOf(w), tests: '[]' }, w)).toBe(true);
    expect(isDirty(draftOf(w), undefined)).toBe(true);
    const groups = bySandbox([skill('b'), skill('a', { sandbox: 'users' }), skill('a')]);
    expect(groups.map(([sb, ss]) => [sb, ss.map((x) => x.name)])).toEqual([
      ['ecommerce', ['a', 'b']],
      ['users', ['a']],
    ]);
    expect(statusLabel(w)).toBe('tested');
    expect(statusLabel(skill('x', { status: 'failed' }))).toBe('failing');
    expect(statusLabel(skill('x', { status: 'untested' }))).toBe('untested');
  });

  it('"Make a skill": the route names the run lines; the proposal opens as a new skill from the run', () => {
    const from = { runId: 'r-1', attempt: 2, start: 1, end: 3 };
    expect(fromRunId(from)).toBe('from-run:r-1:2:1-3');
    expect(parseFromRun(fromRunId(from))).toEqual(from);
    expect(parseFromRun('ecommerce/who')).toBeUndefined();
    let s = skillsReducer(initialSkills, { type: 'proposing', from });
    expect(s.fromRun).toEqual({ from });
    const proposal = {
      name: 'spent_by',
      language: 'python' as const,
      source: 'def spent_by(value1: str):\n    return 1\n',
      parameters: [{ name: 'value1', type: 'str', value: 'u2', from: 'task' as const }],
      returns: ['spent'],
      tests: [{ args: { value1: 'u2' }, assert: [] }],
      sandbox: 'ecommerce',
      origin: 'r-1',
    };
    s = skillsReducer(s, { type: 'proposed', from, proposal });
    expect(s.draft).toMatchObject({ mode: 'new', name: 'spent_by', sandbox: 'ecommerce', origin: 'r-1' });
    expect(parseTests(s.draft!.tests)).toEqual({ tests: proposal.tests });
    expect(JSON.parse(s.tryArgs)).toEqual({ value1: 'u2' });
    // A proposal as the service made it loses nothing on a reload (the route asks for it again).
    expect(hasUnsavedEdits(s)).toBe(false);
    expect(hasUnsavedEdits(skillsReducer(s, { type: 'edit', field: 'source', value: 'def x(): pass' }))).toBe(
      true,
    );
    expect(skillsReducer(s, { type: 'proposeFailed', from, error: 'no lines' }).fromRun).toEqual({
      from,
      error: 'no lines',
    });
    // A JS run's proposal opens as a JS skill (its source, its language for the check and the save).
    const js = skillsReducer(s, {
      type: 'proposed',
      from,
      proposal: {
        ...proposal,
        language: 'js',
        source: '/** x */\nasync function spent_by(value1) {\n  return 1;\n}\n',
      },
    });
    expect(js.draft).toMatchObject({ mode: 'new', language: 'js', name: 'spent_by', origin: 'r-1' });
    expect(js.draft?.source).toContain('async function spent_by(value1)');
  });

  it('"Make a skill" saved: the proposal is done and its banner goes (it stayed above the saved skill)', () => {
    const from = { runId: 'r-1', attempt: 1, start: 1, end: 2 };
    const proposal = {
      name: 'new_skill',
      language: 'python' as const,
      source: 'def new_skill():\n    """Gets it."""\n    return 1\n',
      parameters: [],
      returns: [],
      emitted: ['1'],
      tests: [{ args: {}, assert: [] }],
      sandbox: 'ecommerce',
      origin: 'r-1',
    };
    let s = skillsReducer(initialSkills, { type: 'proposed', from, proposal });
    expect(s.fromRun?.proposal).toEqual(proposal);
    s = skillsReducer(s, { type: 'busy', busy: 'save' });
    s = skillsReducer(s, {
      type: 'saved',
      skill: skill('new_skill', { source: proposal.source }),
      test: { name: 'new_skill', sandbox: 'ecommerce', passed: true, cases: [], failures: [] },
    });
    expect(s.fromRun).toBeUndefined();
    expect(s.draft).toMatchObject({ mode: 'edit', name: 'new_skill' });
    expect(s.busy).toBeUndefined();
  });

  it("a proposal's function follows the skill's name while its source is as proposed; an edited one stays", () => {
    const from = { runId: 'r-1', attempt: 1, start: 1, end: 2 };
    const proposal = {
      name: 'new_skill',
      language: 'python' as const,
      source:
        'def new_skill(user_id: str):\n    """Gets it."""\n    return get_user(user_id=user_id).data["name"]\n',
      parameters: [{ name: 'user_id', type: 'str', value: 'u3', from: 'task' as const }],
      returns: [],
      tests: [{ args: { user_id: 'u3' }, assert: [] }],
      sandbox: 'ecommerce',
      origin: 'r-1',
    };
    let s = skillsReducer(initialSkills, { type: 'proposed', from, proposal });
    // Typed one key at a time, emptied on the way.
    for (const name of ['', 'u', 'us', 'user_name'])
      s = skillsReducer(s, { type: 'edit', field: 'name', value: name });
    expect(s.draft?.source).toBe(proposal.source.replace('def new_skill(', 'def user_name('));
    // The body written by hand: the name is the person's to keep in step.
    s = skillsReducer(s, { type: 'edit', field: 'source', value: `${s.draft!.source}# mine\n` });
    s = skillsReducer(s, { type: 'edit', field: 'name', value: 'user_name_2' });
    expect(s.draft?.source).toContain('def user_name(');
    // A JS proposal's `async function`.
    let js = skillsReducer(initialSkills, {
      type: 'proposed',
      from,
      proposal: {
        ...proposal,
        language: 'js',
        source: 'async function new_skill(user_id) {\n  return 1;\n}\n',
      },
    });
    js = skillsReducer(js, { type: 'edit', field: 'name', value: 'user_name' });
    expect(js.draft?.source).toBe('async function user_name(user_id) {\n  return 1;\n}\n');
    expect(renameSkillFunction('def other(x):\n    pass\n', 'new_skill', 'a', 'python')).toBe(
      'def other(x):\n    pass\n',
    );
    expect(renameSkillFunction('def f(x):\n    pass\n', 'f', 'a$&b', 'python')).toBe(
      'def a$&b(x):\n    pass\n',
    );
  });
});

describe('a draft kept for a reload (sessionStorage)', () => {
  it('keeps a new skill with edits and restores it as it was; a draft as it started is not kept', () => {
    const started = skillsReducer(initialSkills, { type: 'new', sandbox: 'ecommerce' });
    expect(skillDraftToKeep(started)).toBeUndefined();
    const typed = skillsReducer(started, { type: 'edit', field: 'name', value: 'user_city' });
    const kept = skillDraftToKeep(typed);
    expect(kept?.draft?.name).toBe('user_city');
    const back = restoreSkillDraft(JSON.parse(JSON.stringify(kept)));
    expect(back).toEqual({
      ...initialSkills,
      draft: typed.draft,
      startedAs: typed.startedAs,
      tryArgs: typed.tryArgs,
    });
    // Still unsaved after the reload: the page's guard and the drop question count it.
    expect(hasUnsavedEdits(back!)).toBe(true);
  });

  it('drops what is not a kept draft (another shape, a hand edit)', () => {
    expect(restoreSkillDraft(null)).toBeUndefined();
    expect(restoreSkillDraft({ draft: { mode: 'new', sandbox: 'x', name: 'y' } })).toBeUndefined();
    expect(
      restoreSkillDraft({
        draft: { mode: 'new', sandbox: 'x', name: 'y', language: 'cobol', source: '', tests: '[]' },
      }),
    ).toBeUndefined();
  });
});

describe('a new skill renamed', () => {
  it('its untouched starting source follows the name; a written one is kept', () => {
    const started = skillsReducer(initialSkills, { type: 'new', sandbox: 'ecommerce' });
    const renamed = skillsReducer(started, { type: 'edit', field: 'name', value: 'user_city' });
    expect(renamed.draft?.source).toContain('def user_city(user_id: str) -> str:');
    expect(renamed.draft?.source).not.toContain('new_skill');
    const js = skillsReducer(skillsReducer(started, { type: 'language', language: 'js' }), {
      type: 'edit',
      field: 'name',
      value: 'city_of',
    });
    expect(js.draft?.source).toContain('async function city_of(user_id)');
    const written = skillsReducer(renamed, { type: 'edit', field: 'source', value: 'def mine(): pass\n' });
    expect(skillsReducer(written, { type: 'edit', field: 'name', value: 'other' }).draft?.source).toBe(
      'def mine(): pass\n',
    );
  });
});

describe('a new skill under the name of one that exists', () => {
  const newDraft = (name: string) => {
    let s = skillsReducer(initialSkills, { type: 'new', sandbox: 'ecommerce' });
    s = skillsReducer(s, { type: 'edit', field: 'name', value: name });
    return s;
  };

  it('is taken until the person chooses to save over the version it is at; a newer version unticks it', () => {
    const existing = skill('who', { version: 3 });
    let s = newDraft('who');
    expect(takenBy(s.draft, existing)).toEqual({ skill: existing, replacing: false });
    s = skillsReducer(s, { type: 'replaces', version: 3 });
    expect(takenBy(s.draft, existing)).toEqual({ skill: existing, replacing: true });
    // Saved again elsewhere (v4): the choice was of v3, so it is asked again.
    expect(takenBy(s.draft, skill('who', { version: 4 }))?.replacing).toBe(false);
    // Unticked.
    expect(
      takenBy(skillsReducer(s, { type: 'replaces', version: undefined }).draft, existing)?.replacing,
    ).toBe(false);
  });

  it('a rename or another sandbox drops the choice: it was said of the other skill', () => {
    let s = skillsReducer(newDraft('who'), { type: 'replaces', version: 3 });
    expect(s.draft?.replaces).toBe(3);
    expect(skillsReducer(s, { type: 'edit', field: 'name', value: 'whom' }).draft?.replaces).toBeUndefined();
    expect(
      skillsReducer(s, { type: 'edit', field: 'sandbox', value: 'other' }).draft?.replaces,
    ).toBeUndefined();
    // Its source is kept as it was edited otherwise.
    s = skillsReducer(s, { type: 'edit', field: 'tests', value: '[]' });
    expect(s.draft?.replaces).toBe(3);
  });

  it('an open saved skill is never "taken", and its draft takes no choice', () => {
    const existing = skill('who');
    const s = skillsReducer(initialSkills, { type: 'open', skill: existing });
    expect(takenBy(s.draft, existing)).toBeUndefined();
    expect(skillsReducer(s, { type: 'replaces', version: 2 })).toBe(s);
    expect(takenBy(newDraft('who').draft, undefined)).toBeUndefined();
  });

  it("a name taken meanwhile is told in the view's words, not the CLI's --force", () => {
    const d = newDraft('who').draft!;
    expect(saveRefusal(d, 'skill who exists in sandbox ecommerce; use --force to save a new version')).toBe(
      'A skill named who was saved in sandbox ecommerce meanwhile: tick "save this as its new version" above to replace it, or choose another name.',
    );
    expect(saveRefusal(d, 'skill who: the function is named x')).toBe('skill who: the function is named x');
  });
});

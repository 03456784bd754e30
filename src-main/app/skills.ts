/**
 * Skills, the ratchet's second level: list, check, save (a new version, its tests run in the sandbox),
 * test, delete, and the skills offered to scripts (saved, tests passing, every tool they call in the
 * script's tools). SkillService sees only its narrow `SkillDeps`; ToolsmithService builds them.
 */
import { evaluateAssertion, outcomeOf, pythonLiteral } from '../core/suites/assert.ts';
import type { AssertionVerdict } from '../core/suites/assert.ts';
import type { ScriptLanguage, ValidateOptions, ValidationResult } from '../core/lang/violation.ts';
import type { RunOutcome } from '../core/orchestrator/orchestrator.ts';
import type { RunRecord } from '../core/records/records.ts';
import type { ExecutionResult } from '../core/sandbox/execution.ts';
import { scriptCallShapes } from '../core/script/context.ts';
import type { ScriptContext } from '../core/script/context.ts';
import type { OfferedSkill } from '../core/skills/offered.ts';
import {
  skillGrade,
  SkillError,
  skillSizeProblem,
  skillToolClash,
  skillTools,
} from '../core/skills/skill.ts';
import type { Skill, SkillLanguage, SkillTest } from '../core/skills/skill.ts';
import { jsSkillStub } from '../core/skills/js-skill.ts';
import {
  predicateScriptOf,
  scriptLanguageOf,
  shapeOf,
  skillCallScriptOf,
  skillOfferedTo,
} from '../core/skills/shape.ts';
import { proposeSkill } from '../core/skills/propose.ts';
import { proposeJsSkill } from '../core/skills/propose-js.ts';
import type { SkillProposal } from '../core/skills/propose.ts';
import type {
  SkillCaseResult,
  SkillCheck,
  SkillStatus,
  SkillTestResult,
  SkillView,
} from '../core/skills/views.ts';

export type { SkillCaseResult, SkillCheck, SkillStatus, SkillTestResult, SkillView };
import type { JsonValue } from '../core/tools/model.ts';
import { signatureFor } from '../core/tools/prompt.ts';
import { contentHash } from '../core/tools/registry.ts';
import { errorMessage } from '../core/errors.ts';
import type { SkillEntry, SkillFiles, SkillVerdict } from '../infra/workspace/skill-files.ts';
import { ToolsmithError } from './errors.ts';
import { requireSkillSandbox, skillProblems, skillView, skillViews } from './skill-views.ts';
import type { RunScriptRequest } from './runs.ts';

/** What SkillService needs, and nothing more. */
export interface SkillDeps {
  files: SkillFiles;
  /** The workspace's sandboxes, and the folder they are in (for "no sandbox X" messages). */
  sandboxNames(): string[];
  root: string;
  /** The script context of a sandbox without its skills (a skill calls tools, never other skills). */
  toolContext(sandbox: string, kit: string | undefined, language: ScriptLanguage): ScriptContext;
  validate(code: string, language: ScriptLanguage, options: ValidateOptions): ValidationResult;
  runs(): Promise<{
    runScript(req: RunScriptRequest): Promise<RunOutcome>;
    get(runId: string): RunRecord;
  }>;
  /** Runs a script without recording it (a test's predicate). */
  executeScript(req: {
    sandbox: string;
    language: ScriptLanguage;
    body: string;
    timeoutMs?: number;
  }): Promise<ExecutionResult>;
}

const LANGUAGE_NAMES: Readonly<Record<ScriptLanguage, string>> = {
  python: 'Python',
  js: 'JavaScript',
  ts: 'TypeScript',
};
/** Which scripts call a skill of each language (core/skills/offered.ts `skillOfferedTo`). */
const CALLERS: Readonly<Record<SkillLanguage, string>> = {
  python: 'Python',
  js: 'JavaScript and TypeScript',
  ts: 'TypeScript',
};

/** What a check found, in one line: shape problems, then each violation with its line, rule and message. */
const checkProblems = (c: SkillCheck): string =>
  [
    ...c.problems,
    ...c.violations.map((x) => `line ${x.line}:${x.column} ${x.rule}: ${x.message.split('\n')[0]}`),
  ].join('; ');

export class SkillService {
  readonly files: SkillFiles;
  private readonly deps: SkillDeps;
  /** Whether a skill file (by hash) validates against a set of tool names. */
  private readonly validFor = new Map<string, boolean>();

  constructor(deps: SkillDeps) {
    this.deps = deps;
    this.files = deps.files;
  }

  private view(e: SkillEntry & { skill: Skill }, verdicts: Record<string, SkillVerdict>): SkillView {
    return skillView(this.deps, e, verdicts);
  }

  /**
   * Throws `not_found` naming the sandbox (and the ones that exist) when `sandbox` is neither a sandbox of
   * the workspace nor a folder of skills (those of a sandbox that is gone are still listed): without it a
   * mistyped `--sandbox` listed nothing, or read as "no skill X in sandbox nosuch".
   */
  requireSandbox(sandbox: string): void {
    requireSkillSandbox(this.deps, sandbox);
  }

  /** The saved skills (of one sandbox, or all); files that do not parse are in `problems()`. */
  list(sandbox?: string): SkillView[] {
    return skillViews(this.deps, sandbox);
  }

  /**
   * The skill files that do not parse, each with the reason; and the verdicts file
   * (`.toolsmith/skill-tests.json`) when it cannot be read, or was kept aside by this process.
   */
  problems(): { file: string; error: string }[] {
    return skillProblems(this.files);
  }

  /** A skill the sandbox does not have, named with the ones it has (`show`, `test` and `delete` alike). */
  private noSkill(sandbox: string, name: string): ToolsmithError {
    return new ToolsmithError(
      'not_found',
      `no skill ${name} in sandbox ${sandbox}; available: ${
        this.list(sandbox)
          .map((s) => s.name)
          .join(', ') || 'none'
      }`,
    );
  }

  get(sandbox: string, name: string): SkillView {
    const e = this.files.get(sandbox, name);
    if (!e) this.requireSandbox(sandbox);
    if (!e) throw this.noSkill(sandbox, name);
    if (!e.skill) throw new ToolsmithError('invalid_config', e.error ?? `skill ${name} does not parse`);
    return this.view(e as SkillEntry & { skill: Skill }, this.files.verdicts());
  }

  /**
   * The skills scripts of a context may call: of a language its scripts can call (core/skills/shape.ts
   * `skillOfferedTo`), tests passing on the file as it is, and every tool each calls among the context's
   * tools (a kit without one of them does not offer the skill).
   */
  offered(ctx: Pick<ScriptContext, 'sandbox' | 'language' | 'toolMap' | 'tools'>): OfferedSkill[] {
    const verdicts = this.files.verdicts();
    const names = Object.keys(ctx.toolMap);
    // A skill's own tool calls are checked against the tools' signatures too (a tools.py edit that
    // changes one makes the verdict below be computed again).
    const shapes = scriptCallShapes(ctx);
    const shapesKey = contentHash(JSON.stringify(shapes));
    const out: OfferedSkill[] = [];
    for (const e of this.files.list(ctx.sandbox)) {
      const v = verdicts[`${e.sandbox}/${e.name}`];
      if (!e.skill || !v?.passed || v.hash !== e.hash) continue;
      const language = e.skill.language;
      if (!skillOfferedTo(language, ctx.language)) continue;
      const shape = shapeOf(e.skill.name, e.skill.source, language);
      // Valid against this context's tools: a kit without a tool the skill calls does not offer it.
      const key = `${e.hash}\0${names.join(',')}\0${shapesKey}`;
      let ok = this.validFor.get(key);
      if (ok === undefined) {
        ok = this.deps.validate(e.skill.source, language, { tools: names, requireEmit: false, shapes }).valid;
        if (this.validFor.size > 256) this.validFor.clear();
        this.validFor.set(key, ok);
      }
      if (!ok) continue;
      const tools = skillTools(shape, names);
      out.push({
        name: e.skill.name,
        language,
        source: e.skill.source,
        tool: {
          ...shape.tool,
          returns: shape.tool.returns ?? 'its return value (a skill returns plain data, not a ToolResponse)',
          grade: skillGrade(tools, ctx.tools),
          // How a JS/TS script calls it: positional parameters, awaited.
          ...(language === 'python' ? {} : { stubs: { python: '', ts: jsSkillStub(shape.tool) } }),
        },
      });
    }
    return out;
  }

  /**
   * The workspace's skills a script may not call, each with why, for the validator to say instead of
   * "x() is not defined" (and a run-time NameError to explain): a skill of another sandbox, of a language
   * the script's may not call, untested or failing, or calling a tool outside the script's tools.
   * `callable` is what the script may call (its tools and offered skills): those are left out.
   */
  notOffered(sandbox: string, language: ScriptLanguage, callable: readonly string[]): Record<string, string> {
    const have = new Set(callable);
    const verdicts = this.files.verdicts();
    const verdictsProblem = this.files.verdictsProblem();
    const out: Record<string, string> = {};
    // The script's own sandbox first: its skill of a name explains better than another sandbox's.
    const entries = this.files
      .list()
      .filter((e) => !have.has(e.name))
      .sort((a, b) => Number(a.sandbox !== sandbox) - Number(b.sandbox !== sandbox));
    for (const e of entries) {
      if (out[e.name] !== undefined) continue;
      out[e.name] = this.whyNotOffered(
        e,
        sandbox,
        language,
        have,
        verdicts[`${e.sandbox}/${e.name}`],
        verdictsProblem,
      );
    }
    // A skill of this sandbox that was deleted (or renamed: saved under another name, then deleted):
    // said so, rather than "is not defined" as for a name nobody ever had.
    for (const name of this.files.deleted(sandbox)) {
      if (have.has(name) || out[name] !== undefined) continue;
      const last = this.files.versions(sandbox, name).at(-1);
      out[name] =
        `skill ${name} of sandbox ${sandbox} was deleted (its last version, v${last}, is kept: toolsmith skill show ${name} --sandbox ${sandbox} --revision ${last}): save it again to call it, or write its steps in the script`;
    }
    return out;
  }

  private whyNotOffered(
    e: SkillEntry,
    sandbox: string,
    language: ScriptLanguage,
    have: ReadonlySet<string>,
    verdict: SkillVerdict | undefined,
    verdictsProblem: string | undefined,
  ): string {
    const what = `skill ${e.name} belongs to sandbox ${e.sandbox}`;
    if (e.sandbox !== sandbox)
      return `${what}, and a skill is offered only to scripts of its own sandbox: run this script in sandbox ${e.sandbox}, or save the skill in sandbox ${sandbox} too`;
    if (!e.skill) return `${what} but its file does not load (${e.error ?? 'unknown error'})`;
    const skillLanguage = e.skill.language;
    if (!skillOfferedTo(skillLanguage, language))
      return `${what} and is written in ${LANGUAGE_NAMES[skillLanguage]}: ${CALLERS[skillLanguage]} scripts call it, not ${LANGUAGE_NAMES[language]} ones; write its steps in the script instead`;
    const test = `toolsmith skill test ${e.name} --sandbox ${e.sandbox}, or Test in the Skills view`;
    // Its verdict may be in a file that cannot be read, or was kept aside: that is said, not "untested".
    if (!verdict && verdictsProblem)
      return `${what} but has no test verdict that can be read: ${verdictsProblem} (${test})`;
    if (!verdict || verdict.hash !== e.hash)
      return `${what} but is untested since it was last saved or edited: it is offered once its tests pass (${test})`;
    if (!verdict.passed)
      return `${what} but failed its tests${verdict.failures[0] ? ` (${verdict.failures[0]})` : ''}: it is offered once they pass (${test})`;
    let missing: string[] = [];
    let unbound: string | undefined;
    try {
      const all = this.deps.toolContext(e.sandbox, undefined, scriptLanguageOf(skillLanguage));
      missing = skillTools(shapeOf(e.name, e.skill.source, skillLanguage), Object.keys(all.toolMap)).filter(
        (t) => !have.has(t),
      );
      // Its tool calls no longer bind to the tools' signatures (tools.py changed since its tests passed).
      if (!missing.length) {
        const v = this.deps.validate(e.skill.source, skillLanguage, {
          tools: Object.keys(all.toolMap),
          requireEmit: false,
          shapes: scriptCallShapes(all),
        });
        unbound = v.violations.find(
          (x) => x.rule === 'tool-arguments' || x.rule === 'tool-argument-type',
        )?.message;
      }
    } catch {
      /* the sandbox's tools do not load: said below */
    }
    if (missing.length)
      return `${what} and calls ${missing.join(', ')}, which this script may not call (outside its kit, or above the workspace's maximum grade): run the script without the kit, or with one that has ${missing.length === 1 ? 'it' : 'them'}`;
    return unbound
      ? `${what} but its own tool call no longer fits the tool's signature (${unbound}): edit the skill to match the tool, then test it again (${test})`
      : `${what} but does not validate against this script's tools`;
  }

  /**
   * Checks a skill's source: its shape, then the script rules of its language (the sandbox's tools, no
   * emit needed).
   */
  check(req: { sandbox: string; name: string; source: string; language?: SkillLanguage }): SkillCheck {
    const language = req.language ?? 'python';
    const shape = shapeOf(req.name, req.source, language);
    let ctx: ScriptContext;
    try {
      ctx = this.deps.toolContext(req.sandbox, undefined, scriptLanguageOf(language));
    } catch (e) {
      return { valid: false, problems: [errorMessage(e)], violations: [], tools: [] };
    }
    const names = Object.keys(ctx.toolMap);
    // A skill named as one of the sandbox's tools is refused in words, before its source is judged: it
    // read "rebind-framework: do not rebind the tool get_user: use another variable name", of a
    // function the person had named on purpose (core/skills/skill.ts skillToolClash).
    const tool = ctx.tools.find((t) => t.name === req.name);
    if (tool)
      return {
        valid: false,
        problems: [skillToolClash(req.name, req.sandbox, tool)],
        violations: [],
        tools: [],
      };
    // A call of another skill of the sandbox is refused saying so (a skill calls tools only, v1), not as
    // "spent_by() is not defined: the tools are ..." of a name nobody has.
    let others: Record<string, string> = {};
    try {
      others = Object.fromEntries(
        this.files
          .list(req.sandbox)
          .filter((e) => e.name !== req.name && !names.includes(e.name))
          .map((e) => [
            e.name,
            `skill ${e.name} is another skill of sandbox ${req.sandbox}, and a skill calls the sandbox's tools only, never another skill (v1): write its steps in this skill, or call both skills from a script`,
          ]),
      );
    } catch {
      // (a skills folder that cannot be read: the call is "not defined", as before)
    }
    const v = this.deps.validate(req.source, language, {
      tools: names,
      requireEmit: false,
      shapes: scriptCallShapes(ctx),
      ...(Object.keys(others).length ? { unoffered: others } : {}),
    });
    const tools = skillTools(shape, names);
    return {
      valid: shape.problems.length === 0 && v.valid,
      problems: shape.problems,
      // An empty source is said by its shape ("a skill is exactly one function ..."): the script rule's
      // "the script is empty: write the code ... that ends with emit_result(...)" told a skill, which
      // must not emit, to emit.
      violations: v.violations.filter((x) => x.rule !== 'empty-script'),
      ...(shape.problems.length === 0 ? { signature: signatureFor(shape.tool, language) } : {}),
      tools,
      grade: skillGrade(tools, ctx.tools),
    };
  }

  /**
   * Saves a skill (a new version; the one it replaces goes to the history) after checking it, then runs
   * its tests in the sandbox: it is offered to scripts only when they pass.
   */
  async save(req: {
    sandbox: string;
    name: string;
    source: string;
    /** The skill's language; by default the saved skill's, else Python. */
    language?: SkillLanguage;
    tests?: SkillTest[];
    origin?: string;
    /** Replace an existing skill (a new version of it, possibly in another language). */
    force?: boolean;
    /** The saved version the edit started from: refused when the skill is at another now. */
    version?: number;
  }): Promise<{ skill: SkillView; test: SkillTestResult }> {
    const tooLarge = skillSizeProblem(req.source.length);
    if (tooLarge) throw new ToolsmithError('invalid_argument', `skill ${req.name}: ${tooLarge}`);
    let existing = this.files.get(req.sandbox, req.name);
    const language = req.language ?? existing?.skill?.language ?? 'python';
    const c = this.check({ ...req, language });
    if (!c.valid) throw new ToolsmithError('invalid_argument', `skill ${req.name}: ${checkProblems(c)}`);
    // The checks below and the write run with no await between them: two saves of one process (two
    // windows, MCP and the workbench) cannot both pass them and write one over the other; and holding
    // the workspace's skills lock, neither can two processes (two CLI commands saving the same skill).
    const { parseSkillText, skillText } = await import('../infra/workspace/skill-files.ts');
    const s = this.files.locked(`saving skill ${req.name}`, () => {
      existing = this.files.get(req.sandbox, req.name);
      // (a file that is there but no valid skill, broken by hand, is at the version it says it is: before,
      // it read as deleted)
      this.refuseStale(
        req,
        existing?.skill?.version ?? (existing ? this.files.ownVersion(req.sandbox, req.name) : undefined),
      );
      // An existing name is the caller's input to change (or --force), as for kits and templates.
      if (existing && !req.force)
        throw new ToolsmithError(
          'invalid_argument',
          `skill ${req.name} exists in sandbox ${req.sandbox}; use --force to save a new version`,
        );
      const s: Skill = {
        name: req.name,
        sandbox: req.sandbox,
        language,
        version: this.files.nextVersion(req.sandbox, req.name),
        source: req.source.endsWith('\n') ? req.source : `${req.source}\n`,
        tests: req.tests ?? existing?.skill?.tests ?? [],
        ...(req.origin
          ? { origin: req.origin }
          : existing?.skill?.origin
            ? { origin: existing.skill.origin }
            : {}),
      };
      try {
        // The same checks as a hand-written file gets when it is read (tests' arguments among them).
        parseSkillText(
          skillText(s),
          { sandbox: s.sandbox, name: s.name, file: `${s.sandbox}/${s.name}` },
          s.language,
        );
      } catch (e) {
        throw new ToolsmithError('invalid_argument', e instanceof SkillError ? e.message : errorMessage(e));
      }
      this.files.write(s);
      return s;
    });
    let test: SkillTestResult;
    try {
      test = await this.test(req.sandbox, req.name);
    } catch (e) {
      // The skill is saved whatever its test met (a verdicts file that cannot be written, a sandbox that
      // cannot start): said first, or the refusal read as a save undone ("the test verdict ... was not
      // saved", exit 3) and its retry was refused as a name that exists.
      throw led(e, `skill ${req.name} was saved as v${s.version}; `);
    }
    return { skill: this.get(req.sandbox, req.name), test };
  }

  /**
   * Refuses an edit of version `req.version` when the skill is at another now (`current`, undefined when
   * it was deleted): the workbench keeps a draft across reloads, and its Save of a skill the CLI, MCP or
   * another window saved meanwhile replaced that version with the draft's older text, silently.
   */
  private refuseStale(req: { sandbox: string; name: string; version?: number }, current: number | undefined) {
    if (req.version === undefined || req.version === current) return;
    const now =
      current === undefined
        ? `was deleted since you opened v${req.version} (its versions are kept: toolsmith skill show ${req.name} --sandbox ${req.sandbox} --revision ${req.version})`
        : current === 0
          ? `was changed since you opened v${req.version}: its file names no version now`
          : `is at v${current} now: it was saved again since you opened v${req.version}`;
    throw new ToolsmithError(
      'refused',
      `skill ${req.name} of sandbox ${req.sandbox} ${now}; your edit was not saved, so as not to replace that version: open the skill again and make your edit there (copy your text first)`,
    );
  }

  /**
   * "Make a skill" from lines of a run's script (its last successful attempt, or `attempt`): the lines
   * as a function, the task's literals and the names it uses as parameters, the run's values as the first
   * test case (core/skills/propose.ts). A proposal for the form; nothing is saved.
   */
  async propose(req: {
    runId: string;
    attempt?: number;
    start: number;
    end: number;
    name?: string;
  }): Promise<SkillProposal & { sandbox: string; origin: string }> {
    const rec = (await this.deps.runs()).get(req.runId);
    const a =
      req.attempt !== undefined
        ? rec.attempts.find((x) => x.n === req.attempt)
        : [...rec.attempts].reverse().find((x) => x.execution?.success);
    if (!a?.script)
      throw new ToolsmithError(
        'invalid_argument',
        `run ${req.runId} has no successful script to make a skill from`,
      );
    const language = a.script.language;
    const ctx = this.deps.toolContext(rec.started.sandbox, rec.started.kit, language);
    const from = {
      body: a.script.body,
      start: req.start,
      end: req.end,
      task: rec.started.task,
      tools: Object.keys(ctx.toolMap),
      ...(req.name ? { name: req.name } : {}),
    };
    try {
      return {
        ...(language === 'python' ? proposeSkill(from) : proposeJsSkill({ ...from, language })),
        sandbox: rec.started.sandbox,
        origin: rec.id,
      };
    } catch (e) {
      throw new ToolsmithError('invalid_argument', errorMessage(e));
    }
  }

  /**
   * Try it: calls a skill's source (saved or not) once with `args` in its sandbox, as a recorded run of
   * kind `skill_test`. Refused unless the source checks.
   */
  async tryIt(req: {
    sandbox: string;
    name: string;
    source: string;
    language?: SkillLanguage;
    args: Record<string, JsonValue>;
  }): Promise<SkillCaseResult> {
    const language = req.language ?? 'python';
    const c = this.check({ ...req, language });
    if (!c.valid) throw new ToolsmithError('invalid_argument', `skill ${req.name}: ${checkProblems(c)}`);
    const shape = shapeOf(req.name, req.source, language);
    const runs = await this.deps.runs();
    const o = await runs.runScript({
      sandbox: req.sandbox,
      language: scriptLanguageOf(language),
      body: skillCallScriptOf(req.name, req.source, language, req.args),
      task: `skill try ${req.sandbox}/${req.name}`,
      kind: 'skill_test',
      skills: [
        {
          name: req.name,
          language,
          source: req.source,
          tool: { ...shape.tool, grade: c.grade ?? { w: 0, d: 0 } },
        },
      ],
    });
    return {
      args: req.args,
      passed: o.status === 'succeeded',
      runId: o.runId,
      ...(o.result !== undefined ? { result: o.result } : {}),
      ...(o.error ? { error: o.error } : {}),
      verdicts: [],
    };
  }

  delete(sandbox: string, name: string): void {
    this.requireSandbox(sandbox);
    if (!this.files.delete(sandbox, name)) throw this.noSkill(sandbox, name);
  }

  /**
   * Runs a skill's test cases in its sandbox, each a recorded run of kind `skill_test` calling the skill
   * with the case's arguments; records the verdict for the file as it is now.
   */
  async test(sandbox: string, name: string): Promise<SkillTestResult> {
    const e = this.files.get(sandbox, name);
    if (!e) this.requireSandbox(sandbox);
    if (!e) throw this.noSkill(sandbox, name);
    if (!e.skill) throw new ToolsmithError('invalid_config', e.error ?? `skill ${name} does not parse`);
    const s = e.skill;
    // A file written by hand is checked as a saved one is: code that does not validate never runs.
    const c = this.check(s);
    if (!c.valid) {
      const failures = [`the skill does not validate: ${checkProblems(c)}`];
      this.recordVerdict(sandbox, name, { hash: e.hash, passed: false, at: Date.now(), failures });
      return { name, sandbox, passed: false, cases: [], failures };
    }
    const shape = shapeOf(s.name, s.source, s.language);
    const language = scriptLanguageOf(s.language);
    const ctx = this.deps.toolContext(sandbox, undefined, language);
    const own: OfferedSkill = {
      name: s.name,
      language: s.language,
      source: s.source,
      tool: { ...shape.tool, grade: skillGrade(skillTools(shape, Object.keys(ctx.toolMap)), ctx.tools) },
    };
    const runs = await this.deps.runs();
    const cases: SkillCaseResult[] = [];
    for (const [i, t] of s.tests.entries()) {
      const o = await runs.runScript({
        sandbox,
        language,
        body: skillCallScriptOf(s.name, s.source, s.language, t.args),
        task: `skill test ${sandbox}/${name} case ${i + 1}`,
        kind: 'skill_test',
        skills: [own],
      });
      const outcome = outcomeOf(runs.get(o.runId));
      const verdicts: AssertionVerdict[] = [];
      for (const a of t.assert) {
        if (a.type !== 'predicate') {
          verdicts.push(evaluateAssertion(a, outcome));
          continue;
        }
        if (o.status !== 'succeeded') {
          verdicts.push({ type: 'predicate', passed: false, message: `no result: the run ${o.status}` });
          continue;
        }
        // The predicate is a script of the skill's language, with the result bound to `result`.
        const r = await this.deps.executeScript({
          sandbox,
          language,
          body: predicateScriptOf(s.language, a.script, {
            python: pythonLiteral(o.result),
            json: JSON.stringify(o.result ?? null),
          }),
          timeoutMs: 30_000,
        });
        verdicts.push({
          type: 'predicate',
          passed: r.success && r.data === true,
          message: !r.success
            ? `predicate failed: ${r.error ? `${r.error.type}: ${r.error.message}` : r.exitReason}`
            : r.data === true
              ? 'predicate true'
              : `predicate returned ${JSON.stringify(r.data)}`,
        });
      }
      cases.push({
        args: t.args,
        passed: o.status === 'succeeded' && verdicts.every((v) => v.passed),
        runId: o.runId,
        ...(o.result !== undefined ? { result: o.result } : {}),
        ...(o.error ? { error: o.error } : {}),
        verdicts,
      });
    }
    // A skill without tests is never offered: its tests are what says it works.
    const passed = cases.length > 0 && cases.every((c) => c.passed);
    const failures = cases.flatMap((c, i) =>
      c.passed
        ? []
        : [
            `case ${i + 1}: ${
              c.error ??
              c.verdicts
                .filter((v) => !v.passed)
                .map((v) => v.message)
                .join('; ')
            }`,
          ],
    );
    if (!cases.length) failures.push('no test cases: a skill is offered once it has tests and they pass');
    this.recordVerdict(sandbox, name, { hash: e.hash, passed, at: Date.now(), failures });
    return { name, sandbox, passed, cases, failures };
  }

  /**
   * Records a test's verdict. One that cannot be written (a verdicts file that cannot be read is never
   * written over) says what the tests found: they ran, and their outcome was otherwise lost with it.
   */
  private recordVerdict(sandbox: string, name: string, v: SkillVerdict): void {
    try {
      this.files.setVerdict(sandbox, name, v);
    } catch (e) {
      throw led(
        e,
        `the tests of skill ${name} ${v.passed ? 'passed' : `failed (${v.failures.join('; ')})`}, but `,
      );
    }
  }
}

/**
 * The same error (its class, code, file and details: how front ends answer it) with `lead` before its
 * message; a copy, so an error a lower layer keeps and throws again is not changed for its next caller.
 */
function led(e: unknown, lead: string): unknown {
  if (!(e instanceof Error)) return e;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(e) as object) as Error, e);
  copy.message = `${lead}${e.message}`;
  if (e.stack !== undefined) copy.stack = e.stack;
  if ('cause' in e) copy.cause = e.cause;
  return copy;
}

/**
 * The saved skills as `skill list` shows them (their shape, tools, grade and last verdict), read from
 * the workspace's `skills/` folder and the sandboxes' tools: used by the skill service (app/skills.ts)
 * and by the read-only opener of the listing verbs (app/workspace-reader.ts), which loads none of the
 * service's other modules (the validators, the skill proposers, the suites' assertions).
 */
import type { ScriptLanguage } from '../core/lang/violation.ts';
import type { ScriptContext } from '../core/script/context.ts';
import { scriptLanguageOf, shapeOf } from '../core/skills/shape.ts';
import { skillGrade, skillTools } from '../core/skills/skill.ts';
import type { Skill } from '../core/skills/skill.ts';
import type { SkillView } from '../core/skills/views.ts';
import type { Grade } from '../core/tools/grade.ts';
import { signatureFor } from '../core/tools/prompt.ts';
import { didYouMean } from '../core/text/near-names.ts';
import type { SkillEntry, SkillFiles, SkillVerdict } from '../infra/workspace/skill-files.ts';
import { ToolsmithError } from './errors.ts';

/** What listing skills reads: their files, the workspace's sandboxes and their tools. */
export interface SkillViewDeps {
  files: SkillFiles;
  /** The workspace's sandboxes, and the folder they are in (for "no sandbox X" messages). */
  sandboxNames(): string[];
  root: string;
  /** The script context of a sandbox without its skills (a skill calls tools, never other skills). */
  toolContext(sandbox: string, kit: string | undefined, language: ScriptLanguage): ScriptContext;
}

/** A skill as it is listed and shown. */
export function skillView(
  deps: SkillViewDeps,
  e: SkillEntry & { skill: Skill },
  verdicts: Record<string, SkillVerdict>,
): SkillView {
  const s = e.skill;
  const shape = shapeOf(s.name, s.source, s.language);
  let tools: string[] = [];
  let grade: Grade = { w: 0, d: 0 };
  try {
    const ctx = deps.toolContext(s.sandbox, undefined, scriptLanguageOf(s.language));
    tools = skillTools(shape, Object.keys(ctx.toolMap));
    grade = skillGrade(tools, ctx.tools);
  } catch {
    /* the sandbox is gone: the skill is listed, never offered */
  }
  const v = verdicts[`${s.sandbox}/${s.name}`];
  const current = v && v.hash === e.hash ? v : undefined;
  return {
    name: s.name,
    sandbox: s.sandbox,
    language: s.language,
    version: s.version,
    file: e.file,
    source: s.source,
    description: shape.tool.description,
    // In the skill's language, as the manual a script of that language reads shows it (a JS/TS skill:
    // positional parameters with JS types, `order_total(user_id: string)`; it read `user_id: str`).
    signature: signatureFor(shape.tool, s.language),
    parameters: shape.tool.parameters,
    ...(shape.tool.returns ? { returns: shape.tool.returns } : {}),
    tools,
    grade,
    tests: s.tests,
    ...(s.origin ? { origin: s.origin } : {}),
    status: current ? (current.passed ? 'passed' : 'failed') : 'untested',
    failures: current?.failures ?? [],
    testedAt: current?.at ?? null,
    versions: deps.files.versions(s.sandbox, s.name),
  };
}

/**
 * Throws `not_found` naming the sandbox (and the ones that exist) when `sandbox` is neither a sandbox of
 * the workspace nor a folder of skills (those of a sandbox that is gone are still listed).
 */
export function requireSkillSandbox(deps: SkillViewDeps, sandbox: string): void {
  if (deps.sandboxNames().includes(sandbox) || deps.files.list(sandbox).length > 0) return;
  throw new ToolsmithError(
    'not_found',
    `no sandbox ${sandbox} in ${deps.root}; ${didYouMean(sandbox, deps.sandboxNames())}available: ${deps.sandboxNames().join(', ') || 'none'}`,
  );
}

/** The saved skills (of one sandbox, or all); files that do not parse are in `skillProblems`. */
export function skillViews(deps: SkillViewDeps, sandbox?: string): SkillView[] {
  const verdicts = deps.files.verdicts();
  return deps.files
    .list(sandbox)
    .flatMap((e) => (e.skill ? [skillView(deps, e as SkillEntry & { skill: Skill }, verdicts)] : []));
}

/**
 * The skill files that do not parse, each with the reason; and the verdicts file
 * (`.toolsmith/skill-tests.json`) when it cannot be read, or was kept aside by this process.
 */
export function skillProblems(files: SkillFiles): { file: string; error: string }[] {
  const verdicts = files.verdictsProblem();
  return [
    ...files.list().flatMap((e) => (e.error ? [{ file: e.file, error: e.error }] : [])),
    ...(verdicts ? [{ file: files.verdictsFile, error: verdicts }] : []),
  ];
}

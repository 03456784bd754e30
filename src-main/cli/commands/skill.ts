import type { Command } from 'commander';
import type { SkillTest } from '../../core/skills/skill.ts';
import { formatGrade } from '../../core/tools/grade.ts';
import type { SkillTestResult } from '../../app/skills.ts';
import { json, languageArg, UsageError } from '../context.ts';
import { skillLanguageOf } from '../../core/skills/shape.ts';
import { visible } from '../../core/text/visible.ts';
import type { SkillLanguage } from '../../core/skills/skill.ts';
import type { CliContext } from '../context.ts';
import { readInput } from './validate.ts';

const SKILL_DESCRIPTION = 'skills: tested functions, saved from scripts, that later scripts call';

/** `--case '{"args": {...}, "expect": value}'`: a test case (expect: an `equals` assertion). */
function parseCase(text: string): SkillTest {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new UsageError(`--case takes JSON such as '{"args": {"user_id": "u1"}, "expect": 3}', got ${text}`);
  }
  const o = v as { args?: unknown; expect?: unknown; assert?: unknown };
  if (
    typeof o !== 'object' ||
    o === null ||
    Array.isArray(o) ||
    typeof o.args !== 'object' ||
    o.args === null ||
    Array.isArray(o.args)
  )
    throw new UsageError('--case needs an "args" object');
  // A key the case does not know (`expected`, `asserts`) or an `assert` that is not a list was dropped,
  // and the case then passed on any result.
  const unknown = Object.keys(o).filter((k) => !['args', 'expect', 'assert'].includes(k));
  if (unknown.length)
    throw new UsageError(
      `--case takes "args", "expect" and "assert" (a list of assertions), not ${unknown.map((k) => JSON.stringify(k)).join(', ')}`,
    );
  if ('assert' in o && !Array.isArray(o.assert))
    throw new UsageError('--case "assert" takes a list of assertions, e.g. [{"type": "equals", "value": 3}]');
  const asserts = Array.isArray(o.assert) ? (o.assert as SkillTest['assert']) : [];
  if ('expect' in o) asserts.unshift({ type: 'equals', value: o.expect });
  return { args: o.args as SkillTest['args'], assert: asserts };
}

const printTest = (ctx: CliContext, r: SkillTestResult) => {
  if (!r.cases.length) ctx.out(`FAIL ${r.sandbox}/${r.name}: ${visible(r.failures.join('; '), '  ')}\n`);
  for (const c of r.cases) {
    const why =
      c.error ??
      c.verdicts
        .filter((v) => !v.passed)
        .map((v) => v.message)
        .join('; ');
    ctx.out(
      `${c.passed ? 'PASS' : 'FAIL'} ${visible(JSON.stringify(c.args))}${c.result !== undefined ? ` -> ${visible(JSON.stringify(c.result))}` : ''}${c.passed ? '' : ` (${visible(why, '  ')})`}${c.runId ? `  run ${c.runId}` : ''}\n`,
    );
  }
};

export function registerSkill(program: Command, ctx: CliContext): void {
  const skill = program.command('skill').description(SKILL_DESCRIPTION);
  skill
    .command('create')
    .description('save a skill (a Python, JS or TS function) from a file, then run its tests in the sandbox')
    .argument('<name>', 'skill name: the function name (lower case, digits, _)')
    .requiredOption('--sandbox <name>', 'the sandbox it belongs to')
    .requiredOption(
      '--file <file>',
      'the function (Python: def <name>(...) with typed parameters and a docstring; JS/TS: one function <name>(...) with a JSDoc comment), - for stdin',
    )
    .option(
      '--language <language>',
      "python | js | ts (default: by the file's extension .py/.js/.ts, else the saved skill's, else python)",
      languageArg('--language'),
    )
    .option(
      '--case <json>',
      'a test case: {"args": {...}, "expect": value} (repeatable; kept cases are replaced)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--force', 'save a new version of an existing skill')
    .option('--json', 'print JSON')
    .action(
      async (
        name: string,
        o: {
          sandbox: string;
          file: string;
          language?: SkillLanguage;
          case?: string[];
          force?: boolean;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        const tests = o.case?.map(parseCase);
        const language = o.language ?? skillLanguageOf(o.file);
        const r = await ctx
          .service(cmd)
          .skills()
          .save({
            sandbox: o.sandbox,
            name,
            source: readInput(o.file),
            ...(language ? { language } : {}),
            ...(tests ? { tests } : {}),
            ...(o.force ? { force: true } : {}),
          });
        if (o.json) ctx.out(json(r));
        else {
          ctx.out(`saved skill ${r.skill.sandbox}/${r.skill.name} v${r.skill.version} (${r.skill.file})\n`);
          printTest(ctx, r.test);
          ctx.out(r.test.passed ? 'offered to scripts\n' : 'not offered to scripts until its tests pass\n');
        }
        ctx.exitCode = r.test.passed ? 0 : 1;
      },
    );
  skill
    .command('list')
    .description('list skills with their status (passed: offered to scripts)')
    .option('--sandbox <name>', 'one sandbox only')
    .option('--json', 'print JSON')
    .action(async (o: { sandbox?: string; json?: boolean }, cmd: Command) => {
      // (the workspace read only, app/workspace-reader.ts: none of the service's modules load)
      const { skills: list, problems } = await (await ctx.reader(cmd)).skills(o.sandbox);
      if (o.json) return ctx.out(json({ skills: list, problems }));
      // (said on stderr: stdout stays one line per skill for a pipe)
      if (list.length === 0)
        ctx.err(
          `no skills ${o.sandbox !== undefined ? `in sandbox ${o.sandbox}` : 'in this workspace'}: save a function as one with \`toolsmith skill create NAME --sandbox SANDBOX --file FILE\`\n`,
        );
      for (const s of list)
        ctx.out(
          `${`${s.sandbox}/${s.name}`.padEnd(28)} ${s.language.padEnd(6)} v${String(s.version).padEnd(3)} ${s.status.padEnd(8)} ${formatGrade(s.grade)}  ${s.signature}\n`,
        );
      for (const p of problems) ctx.err(`${visible(p.error)}\n`);
    });
  skill
    .command('show')
    .description('print a skill: its source, signature, tools, grade, tests and status')
    .argument('<name>', 'skill name')
    .requiredOption('--sandbox <name>', 'the sandbox it belongs to')
    .option('--revision <n>', 'an earlier version (from the history) instead of the current one')
    .option('--json', 'print JSON')
    .action((name: string, o: { sandbox: string; revision?: string; json?: boolean }, cmd: Command) => {
      const skills = ctx.service(cmd).skills();
      if (o.revision !== undefined) {
        const v = Number(o.revision);
        if (!Number.isInteger(v) || v < 1)
          throw new UsageError(`--revision takes a version number, got ${o.revision}`);
        const text = skills.files.version(o.sandbox, name, v);
        if (text === undefined) skills.requireSandbox(o.sandbox);
        if (text === undefined)
          throw new UsageError(
            `no version ${v} of ${o.sandbox}/${name} in the history; kept: ${skills.files.versions(o.sandbox, name).join(', ') || 'none'}`,
          );
        return ctx.out(o.json ? json({ name, sandbox: o.sandbox, version: v, text }) : text);
      }
      const s = skills.get(o.sandbox, name);
      if (o.json) return ctx.out(json(s));
      ctx.out(
        `${s.sandbox}/${s.name} v${s.version} (${s.language})  ${s.status}${s.failures.length ? ` (${s.failures.join('; ')})` : ''}\n` +
          `signature: ${s.signature}\ntools: ${s.tools.join(', ') || '(none)'}  grade ${formatGrade(s.grade)}\n` +
          `tests: ${s.tests.length}  earlier versions: ${s.versions.join(', ') || 'none'}\nfile: ${s.file}\n\n${s.source}`,
      );
    });
  skill
    .command('test')
    .description("run a skill's test cases in its sandbox; exit 0 when they pass")
    .argument('<name>', 'skill name')
    .requiredOption('--sandbox <name>', 'the sandbox it belongs to')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { sandbox: string; json?: boolean }, cmd: Command) => {
      const r = await ctx.service(cmd).skills().test(o.sandbox, name);
      if (o.json) ctx.out(json(r));
      else printTest(ctx, r);
      ctx.exitCode = r.passed ? 0 : 1;
    });
  skill
    .command('delete')
    .description('delete a skill (its earlier versions stay in the history)')
    .argument('<name>', 'skill name')
    .requiredOption('--sandbox <name>', 'the sandbox it belongs to')
    .action((name: string, o: { sandbox: string }, cmd: Command) => {
      ctx.service(cmd).skills().delete(o.sandbox, name);
      ctx.out(`deleted skill ${o.sandbox}/${name}\n`);
    });
}

export { SKILL_DESCRIPTION };

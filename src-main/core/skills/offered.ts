/**
 * A skill as scripts see it, and how its source joins a script (kept apart from skill.ts so that the
 * assembler loads no parser).
 */
import type { ScriptLanguage } from '../lang/violation.ts';
import type { SandboxTool } from '../tools/extract.ts';

/** A skill as it is offered to scripts: its source, its manual entry and its grade. */
export interface OfferedSkill {
  name: string;
  /** Its language (python when absent). */
  language?: ScriptLanguage;
  source: string;
  tool: SandboxTool;
}

/**
 * Whether scripts of a language may call skills of another: Python with Python; JS skills in JS and TS
 * scripts (JS is TS, and the node worker strips a TS job's types as a whole); TS skills in TS scripts.
 */
export const skillOfferedTo = (skill: ScriptLanguage, script: ScriptLanguage): boolean =>
  skill === script || (skill === 'js' && script === 'ts');

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/g;

/** The offered skills a script body names (whole identifiers), in name order. */
export function skillsUsed(
  body: string,
  skills: readonly OfferedSkill[],
  language: ScriptLanguage = 'python',
): OfferedSkill[] {
  if (!skills.length) return [];
  const names = new Set(body.match(IDENT) ?? []);
  return skills
    .filter((s) => names.has(s.name) && skillOfferedTo(s.language ?? 'python', language))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The skills' source as it goes ahead of a body: each function after a comment naming it (`# skill:
 * NAME`, `SKILL_MARK`: the line before its source's first line, so a traceback frame in it is mapped to
 * a line of the skill's own source), a blank line after it.
 */
export function skillsPrelude(skills: readonly OfferedSkill[]): string {
  return skills
    .map(
      (s) =>
        `${(s.language ?? 'python') === 'python' ? '#' : '//'} skill: ${s.name}\n${s.source.replace(/\s+$/, '')}\n\n`,
    )
    .join('');
}

/** The comment line `skillsPrelude` puts before a skill's source, with the skill's name. */
export const SKILL_MARK = /^(?:#|\/\/) skill: ([A-Za-z_$][\w$]*)$/;

/**
 * A skill of any language: its shape check, the file's front matter markers, the script a test case
 * runs, and which script languages it is offered to (kept apart so each language's module stays small).
 */
import { escapeBidi } from '../lang/bidi.ts';
import type { ScriptLanguage } from '../lang/violation.ts';
import type { JsonValue } from '../tools/model.ts';
import { jsSkillCallScript, jsSkillFileText, jsSkillShape, splitJsSkillFile } from './js-skill.ts';
import { skillCallScript, skillFileText, skillShape, splitSkillFile } from './skill.ts';
import type { SkillLanguage, SkillShape } from './skill.ts';

export const SKILL_LANGUAGES: readonly SkillLanguage[] = ['python', 'js', 'ts'];

/** The file extension of a skill of each language (`skills/<sandbox>/<name>.<ext>`). */
export const SKILL_EXT: Readonly<Record<SkillLanguage, string>> = { python: 'py', js: 'js', ts: 'ts' };

/** The language of a skill file by its extension, undefined for any other file. */
export function skillLanguageOf(file: string): SkillLanguage | undefined {
  const ext = /\.([a-z]+)$/.exec(file)?.[1];
  return SKILL_LANGUAGES.find((l) => SKILL_EXT[l] === ext);
}

/** The shape check of a skill's source in its language. */
export const shapeOf = (name: string, source: string, language: SkillLanguage): SkillShape =>
  language === 'python' ? skillShape(name, source) : jsSkillShape(name, source, language);

/** Splits a skill file of a language into its front matter (TOML) and its function. */
export const splitSkillFileOf = (text: string, language: SkillLanguage, file?: string) =>
  language === 'python' ? splitSkillFile(text, file) : splitJsSkillFile(text, file);

/** A skill file's text: the front matter (TOML, serialized) in the language's comments, then the function. */
export const skillFileTextOf = (frontToml: string, source: string, language: SkillLanguage): string =>
  language === 'python' ? skillFileText(frontToml, source) : jsSkillFileText(frontToml, source);

/** The script a test case runs: the skill called with the case's arguments, its value emitted. */
export function skillCallScriptOf(
  name: string,
  source: string,
  language: SkillLanguage,
  args: Record<string, JsonValue>,
): string {
  return language === 'python'
    ? skillCallScript(name, args)
    : jsSkillCallScript(name, args, jsSkillShape(name, source, language).tool.parameters);
}

export { skillOfferedTo } from './offered.ts';

/** The script language a skill's own tests and tries run in. */
export const scriptLanguageOf = (skill: SkillLanguage): ScriptLanguage => skill;

/** A test predicate's script with the result bound to `result`, in the skill's language. */
export function predicateScriptOf(
  language: SkillLanguage,
  script: string,
  resultLiteral: { python: string; json: string },
): string {
  return language === 'python'
    ? `result = ${escapeBidi(resultLiteral.python)}\n${script}`
    : `const result = ${escapeBidi(resultLiteral.json)};\n${script}`;
}

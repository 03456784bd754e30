/** One entry point for every script language. */
import { validateJs } from './js/validate.ts';
import { validatePython } from './python/validate.ts';
import type { ScriptLanguage, ValidateOptions, ValidationResult } from './violation.ts';

export function validateScript(
  code: string,
  language: ScriptLanguage,
  options: ValidateOptions,
): ValidationResult {
  if (language === 'python') return validatePython(code, options);
  return validateJs(code, { ...options, typescript: language === 'ts' });
}

/** The language of a file name, or undefined (the runtime is never guessed from the code itself). */
export function languageOfFile(file: string): ScriptLanguage | undefined {
  if (/\.py$/i.test(file)) return 'python';
  if (/\.(m|c)?js$/i.test(file)) return 'js';
  if (/\.(m|c)?ts$/i.test(file)) return 'ts';
  return undefined;
}

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

export { languageOfFile } from './validate-lazy.ts';

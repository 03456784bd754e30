/**
 * The validator of one language, loaded on first use: a one-shot `validate` of a Python script does
 * not load the JavaScript parser (Babel), nor a JavaScript one pyright's parser.
 */
import type { ScriptLanguage, ValidateOptions, ValidationResult } from './violation.ts';

export type Validator = (code: string, options: ValidateOptions) => ValidationResult;

export async function loadValidator(language: ScriptLanguage): Promise<Validator> {
  if (language === 'python') return (await import('./python/validate.ts')).validatePython;
  const { validateJs } = await import('./js/validate.ts');
  return (code, options) => validateJs(code, { ...options, typescript: language === 'ts' });
}

/** The language of a file name, or undefined (the runtime is never guessed from the code itself). */
export function languageOfFile(file: string): ScriptLanguage | undefined {
  if (/\.py$/i.test(file)) return 'python';
  if (/\.(m|c)?js$/i.test(file)) return 'js';
  if (/\.(m|c)?ts$/i.test(file)) return 'ts';
  return undefined;
}

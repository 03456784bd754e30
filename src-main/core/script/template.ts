/**
 * A tiny renderer for the prompt files under resources/prompts: `{{name}}` is replaced by the variable,
 * `{{#name}}...{{/name}}` keeps its content only when the variable is non-empty, and
 * `{{^name}}...{{/name}}` only when it is empty. Unknown variables are an error, so a typo in a prompt
 * file fails loudly instead of sending an LLM a literal `{{task}}`.
 */
export type PromptVars = Record<string, string | number | boolean | undefined>;

export class PromptTemplateError extends Error {
  override name = 'PromptTemplateError';
}

const truthy = (v: PromptVars[string]) => v !== undefined && v !== '' && v !== false && v !== 0;

export function renderTemplate(template: string, vars: PromptVars, name = 'prompt'): string {
  const sections = /\{\{([#^])([a-z_][a-z0-9_]*)\}\}([\s\S]*?)\{\{\/\2\}\}/g;
  let out = template;
  // Sections may nest one level deep in different variables; resolve until stable.
  for (let i = 0; i < 4 && /\{\{[#^]/.test(out); i++) {
    out = out.replace(sections, (_m, kind: string, key: string, body: string) => {
      if (!(key in vars)) throw new PromptTemplateError(`${name}: unknown variable ${key}`);
      return truthy(vars[key]) === (kind === '#') ? body : '';
    });
  }
  out = out.replace(/\{\{([a-z_][a-z0-9_]*)\}\}/g, (_m, key: string) => {
    if (!(key in vars)) throw new PromptTemplateError(`${name}: unknown variable ${key}`);
    const v = vars[key];
    return v === undefined ? '' : String(v);
  });
  return out.replace(/\n{3,}/g, '\n\n');
}

/**
 * The script context: what a script for one sandbox, kit and language sees (its tools under their kit
 * aliases, the alias -> tool map the sandbox resolves calls with, the framework helpers) and the tools
 * manual its prompt shows. Computed here only, for runs, edited scripts, `exec`, prompts and templates.
 */
import type { ResolvedKit } from '../kits/kit.ts';
import { kitToolView } from '../kits/kit.ts';
import { JS_FRAMEWORK_NAMES, PYTHON_FRAMEWORK_NAMES } from '../lang/builtins.ts';
import type { CallShape } from '../lang/signature.ts';
import type { ScriptLanguage } from '../lang/violation.ts';
import type { OfferedSkill } from '../skills/offered.ts';
import { callShapes } from '../tools/call-shape.ts';
import type { SandboxTool } from '../tools/extract.ts';
import { assembleScript } from './assemble.ts';
import type { AssembledScript } from './assemble.ts';
import type { SandboxContext } from './generator.ts';

export interface ScriptContext {
  sandbox: string;
  /** The kit chosen by name; absent for the sandbox's default kit (every tool within the maximum grade). */
  kit?: string;
  language: ScriptLanguage;
  /** The tools as scripts call them (kit aliases applied). */
  tools: SandboxTool[];
  /** Script-visible name -> tool name (kit aliases; identity otherwise). */
  toolMap: Record<string, string>;
  /** The framework helpers a script may call (`emit_result`...). */
  helpers: readonly string[];
  /**
   * The registry's cached tools manual, rendered on first call (a script that only runs needs none);
   * absent with a kit, whose manual the prompt builder renders from its aliased tools.
   */
  toolsPrompt?: () => string;
  /**
   * The skills offered to scripts of this context (core/skills): saved functions whose tests pass and
   * whose tools are all in this context. A body that names one gets its source ahead of it.
   */
  skills?: readonly OfferedSkill[];
}

/** The framework helpers of a language. */
export const frameworkHelpers = (language: ScriptLanguage): readonly string[] =>
  language === 'python' ? PYTHON_FRAMEWORK_NAMES : JS_FRAMEWORK_NAMES;

/**
 * The context of a script for a sandbox: `kit` is the resolved kit (the default kit when `kitName` is
 * absent); `manual` renders the registry's cached tools manual for the default kit's tools.
 */
export function scriptContext(opts: {
  sandbox: string;
  kit: ResolvedKit;
  kitName?: string | undefined;
  language: ScriptLanguage;
  manual: (tools: SandboxTool[]) => string;
}): ScriptContext {
  return {
    sandbox: opts.sandbox,
    ...(opts.kitName ? { kit: opts.kitName } : {}),
    language: opts.language,
    tools: kitToolView(opts.kit),
    toolMap: Object.fromEntries(opts.kit.tools.map((k) => [k.alias, k.tool.name])),
    helpers: frameworkHelpers(opts.language),
    ...(opts.kitName ? {} : { toolsPrompt: () => opts.manual(opts.kit.tools.map((k) => k.tool)) }),
  };
}

/** The script-visible names a script may call: the tools (kit aliases applied), then the offered skills. */
export const scriptToolNames = (ctx: Pick<ScriptContext, 'toolMap' | 'skills'>): string[] => [
  ...Object.keys(ctx.toolMap),
  ...(ctx.skills ?? []).map((s) => s.name),
];

/**
 * What a call of each tool (under its kit alias) and offered skill may pass: the validator checks a
 * script's calls against it (`tool-arguments`, core/lang/signature.ts).
 */
export const scriptCallShapes = (
  ctx: Pick<ScriptContext, 'tools' | 'skills' | 'language'>,
): Record<string, CallShape> =>
  callShapes([...ctx.tools, ...(ctx.skills ?? []).map((s) => s.tool)], ctx.language);

/** What the prompt builder needs of a script context. */
export function sandboxContext(ctx: ScriptContext): SandboxContext {
  // Skills are listed after the tools, in the same manual (the cached one holds tools only).
  if (ctx.skills?.length)
    return {
      name: ctx.sandbox,
      tools: [...ctx.tools, ...ctx.skills.map((s) => s.tool)],
      language: ctx.language,
      ...(ctx.kit ? { kit: ctx.kit } : {}),
    };
  return {
    name: ctx.sandbox,
    tools: ctx.tools,
    language: ctx.language,
    ...(ctx.kit ? { kit: ctx.kit } : ctx.toolsPrompt ? { toolsPrompt: ctx.toolsPrompt() } : {}),
  };
}

/**
 * A script body (or an LLM answer) assembled for this context: preamble (with the source of the skills
 * the body names), body, postamble.
 */
export const assembleIn = (
  ctx: Pick<ScriptContext, 'sandbox' | 'toolMap' | 'language' | 'skills'>,
  body: string,
): AssembledScript =>
  assembleScript(body, {
    sandbox: ctx.sandbox,
    tools: Object.keys(ctx.toolMap),
    helpers: frameworkHelpers(ctx.language),
    language: ctx.language,
    ...(ctx.skills?.length ? { skills: ctx.skills } : {}),
  });

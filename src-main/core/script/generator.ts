/**
 * The script generator: builds the prompt an LLM gets for a task (first attempt, or a retry carrying the
 * previous script and its error with hints), and the feedback text for validation failures. Prompt
 * texts come from resources/prompts (passed in as `PromptFiles`, loaded by infra or bundled by Vite).
 */
import { JS_SAFE_GLOBALS, PYTHON_SAFE_BUILTINS, pythonModulesSummary } from '../lang/builtins.ts';
import type { ScriptLanguage, Violation } from '../lang/violation.ts';
import { frameWhere } from '../sandbox/execution.ts';
import type { ExecutionError, ToolCallTrace } from '../sandbox/execution.ts';
import type { JsonValue, Tool } from '../tools/model.ts';
import { toolsPrompt } from '../tools/prompt.ts';
import { hintsFor } from './hints.ts';
import type { Hinter } from './hints.ts';
import { renderTemplate } from './template.ts';

/** The prompt files, by name without extension (`system`, `rules-python`, `plan-first`, ...). */
export type PromptFiles = Readonly<Record<string, string>>;

export const REQUIRED_PROMPTS = [
  'system',
  'rules-python',
  'rules-js',
  'plan-first',
  'plan-retry',
  'validation-feedback',
  'interactive-step',
  'interactive-final',
] as const;

export interface SandboxContext {
  name: string;
  /** The tools as scripts call them (kit aliases applied). */
  tools: readonly Tool[];
  language?: ScriptLanguage;
  kit?: string;
  /** A cached tools manual (ToolRegistry.prompt); rendered from `tools` when absent. */
  toolsPrompt?: string;
  /** The manual shows an index of the tools (core/tools/disclosure.ts), not every tool in full. */
  indexed?: boolean;
}

export interface PromptOptions {
  previousScript?: string;
  previousError?: string | ExecutionError;
  /** 1-based attempt number; > 1 with a previous script makes a retry prompt. */
  attempt?: number;
  /**
   * The run's budget, told in a retry prompt: the attempt this answer is for and how many attempts the
   * run has in all (PLAN: 1 + max_retries), so the model knows how many are left after it.
   */
  budget?: { attempt: number; of: number };
  hinters?: readonly Hinter[];
}

export interface StepPromptOptions {
  step: number;
  maxSteps: number;
  /** Data reported by earlier steps, in step order. */
  collected: readonly JsonValue[];
  /** One line per earlier step. */
  history: readonly string[];
  previousScript?: string;
  previousError?: string | ExecutionError;
  /** The forced final step after stagnation: answer from `collected` only. */
  final?: boolean;
  /**
   * The correction of this step's own script, rejected by the validator: `previousScript` and
   * `previousError` are that script and its violations (not an earlier step's failure).
   */
  correction?: boolean;
  hinters?: readonly Hinter[];
}

/** Largest `collected` JSON shown in a prompt; the script still receives all of it. */
export const MAX_COLLECTED_CHARS = 12_000;

export interface PromptSection {
  title: string;
  text: string;
}

export interface BuiltPrompt {
  kind: 'first' | 'retry' | 'step' | 'final';
  attempt: number;
  system: string;
  user: string;
  hints: string[];
  /** The user message split into titled parts, for collapsible display. */
  sections: PromptSection[];
}

export class PromptMissingError extends Error {
  override name = 'PromptMissingError';
}

export const LANGUAGE_NAMES: Record<ScriptLanguage, string> = {
  python: 'Python',
  js: 'JavaScript',
  ts: 'TypeScript',
};
/** The fence tag a prompt asks a language's script in. */
export const FENCES: Record<ScriptLanguage, string> = {
  python: 'python',
  js: 'javascript',
  ts: 'typescript',
};

/** An ExecutionError as the text an LLM reads: traceback frames then `Type: message`. */
export function formatExecutionError(e: string | ExecutionError): string {
  if (typeof e === 'string') return e.trim();
  const frames = e.frames.map(
    (f) => `  ${frameWhere(f)}, in ${f.name}${f.text ? `\n    ${f.text.trim()}` : ''}`,
  );
  return [
    ...(frames.length ? ['Traceback (most recent call last):', ...frames] : []),
    `${e.type}: ${e.message}`,
  ].join('\n');
}

const MAX_FAILED_CALLS = 5;
const MAX_FAILED_CALL_CHARS = 500;

/**
 * A failed run's error with the tool calls that failed before it (a `ToolResponse(success=False,
 * message=...)` or a tool that raised), each with its arguments and its message: the tool's own words
 * ("no user with id 'u9'; known ids: ...") are what a retry needs, and the traceback alone (`'NoneType'
 * object is not subscriptable`) does not carry them. The first few calls, each cut to a bound.
 */
export function formatExecutionFailure(
  e: ExecutionError,
  toolCalls: readonly Pick<ToolCallTrace, 'name' | 'args' | 'result' | 'error'>[],
): string {
  const failed = toolCalls.filter((c) => c.error !== undefined || c.result?.success === false);
  const base = formatExecutionError(e);
  if (!failed.length) return base;
  const cut = (s: string) =>
    s.length <= MAX_FAILED_CALL_CHARS ? s : `${s.slice(0, MAX_FAILED_CALL_CHARS)}… (cut)`;
  const lines = failed.slice(0, MAX_FAILED_CALLS).map((c) => {
    const args = Object.entries(c.args)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ');
    const why = c.error ?? c.result?.message ?? '(the tool gave no message)';
    return `- ${c.name}(${cut(args)}) failed: ${cut(why)}`;
  });
  if (failed.length > MAX_FAILED_CALLS) lines.push(`- … and ${failed.length - MAX_FAILED_CALLS} more`);
  return `${base}\n\nTool calls that failed before it:\n${lines.join('\n')}`;
}

export class ScriptGenerator {
  private readonly prompts: PromptFiles;

  constructor(prompts: PromptFiles) {
    for (const name of REQUIRED_PROMPTS) {
      if (typeof prompts[name] !== 'string')
        throw new PromptMissingError(`prompt file ${name}.md is missing`);
    }
    this.prompts = prompts;
  }

  private file(name: string): string {
    const t = this.prompts[name];
    if (t === undefined) throw new PromptMissingError(`prompt file ${name}.md is missing`);
    return t;
  }

  /**
   * The rules block for a language, with the builtins and modules lists filled in from data; `skills`:
   * the manual lists skills, which return their value (the rule that every tool returns a ToolResponse
   * had a model check `.success` on a skill's float: AttributeError).
   */
  rules(language: ScriptLanguage, skills = false): string {
    const has = skills ? 'yes' : '';
    return language === 'python'
      ? renderTemplate(this.file('rules-python'), {
          modules: pythonModulesSummary(),
          builtins: PYTHON_SAFE_BUILTINS.join(', '),
          skills: has,
        })
      : renderTemplate(this.file('rules-js'), { modules: JS_SAFE_GLOBALS.join(', '), skills: has });
  }

  /**
   * What a PLAN prompt and an INTERACTIVE step prompt share: the template variables of the task, the
   * sandbox, its tools manual, the language's rules and fence, the previous error in words, and the
   * hints for it when `withHints` says the prompt carries them.
   */
  private shared(
    task: string,
    sandbox: SandboxContext,
    options: Pick<PromptOptions, 'previousScript' | 'previousError' | 'hinters'>,
    withHints: (previousError: string) => boolean,
  ) {
    const language = sandbox.language ?? 'python';
    const previousError =
      options.previousError === undefined ? '' : formatExecutionError(options.previousError);
    const hints = withHints(previousError)
      ? hintsFor(
          { error: previousError, script: options.previousScript ?? '', tools: sandbox.tools, language },
          options.hinters,
        )
      : [];
    const vars = {
      task: task.trim(),
      sandbox: sandbox.name,
      // A JS/TS script calls a tool with one object of named arguments: its manual shows that call, not
      // the Python signature the cached manual has.
      tools:
        language === 'python'
          ? (sandbox.toolsPrompt ?? toolsPrompt(sandbox.tools))
          : toolsPrompt(sandbox.tools, language),
      rules: this.rules(
        language,
        sandbox.tools.some((t) => t.location === 'skill'),
      ),
      language_name: LANGUAGE_NAMES[language],
      fence: FENCES[language],
      hints: hints.map((h) => `- ${h}`).join('\n'),
    };
    return { previousError, hints, vars };
  }

  buildPrompt(task: string, sandbox: SandboxContext, options: PromptOptions = {}): BuiltPrompt {
    const attempt = options.attempt ?? 1;
    const retry = attempt > 1 && options.previousScript !== undefined;
    const { previousError, hints, vars: common } = this.shared(task, sandbox, options, () => retry);
    const { tools, rules } = common;
    const vars = {
      ...common,
      kit: sandbox.kit ?? '',
      attempt: options.budget?.attempt ?? attempt,
      budget: options.budget ? budgetText(options.budget) : '',
      previous_script: (options.previousScript ?? '').replace(/\s+$/, ''),
      previous_error: previousError || '(no error text was recorded)',
    };
    const name = retry ? 'plan-retry' : 'plan-first';
    const user = renderTemplate(this.file(name), vars, name);
    const system = renderTemplate(this.file('system'), vars, 'system').trim();
    const sections: PromptSection[] = [
      { title: 'Task', text: vars.task },
      { title: 'Rules', text: rules.trim() },
      { title: 'Tools', text: tools.trim() },
    ];
    if (retry) {
      if (vars.previous_script) sections.push({ title: 'Previous script', text: vars.previous_script });
      sections.push({ title: 'Error', text: vars.previous_error });
      if (hints.length) sections.push({ title: 'Hints', text: vars.hints });
    }
    return { kind: retry ? 'retry' : 'first', attempt, system, user, hints, sections };
  }

  /** The prompt for one INTERACTIVE step (or the forced final step). */
  buildStepPrompt(task: string, sandbox: SandboxContext, options: StepPromptOptions): BuiltPrompt {
    let collected = options.collected.length ? JSON.stringify(options.collected, null, 1) : '';
    if (collected.length > MAX_COLLECTED_CHARS)
      collected = `${collected.slice(0, MAX_COLLECTED_CHARS)}\n... (truncated; the script gets all of it)`;
    const { previousError, hints, vars: common } = this.shared(task, sandbox, options, (e) => e !== '');
    const { tools, rules } = common;
    const correction = options.correction === true && options.previousScript !== undefined;
    const vars = {
      ...common,
      step: options.step,
      max_steps: options.maxSteps,
      // The budget's last step (not the forced final one, whose prompt says it already): answer now.
      last_step: !options.final && options.step >= options.maxSteps,
      collected,
      history: options.history.map((h) => `- ${h}`).join('\n'),
      // A correction keeps the step's framing (collected, history) and shows the rejected script with
      // its violations; an earlier step's failure is `previous_error`.
      previous_error: correction ? '' : previousError,
      rejected_script: correction ? (options.previousScript ?? '').replace(/\s+$/, '') : '',
      rejected_error: correction ? previousError : '',
    };
    const name = options.final ? 'interactive-final' : 'interactive-step';
    const user = renderTemplate(this.file(name), vars, name);
    const system = renderTemplate(this.file('system'), vars, 'system').trim();
    const sections: PromptSection[] = [
      { title: 'Task', text: vars.task },
      { title: 'Rules', text: rules.trim() },
    ];
    if (!options.final) sections.push({ title: 'Tools', text: tools.trim() });
    // The notice as the template words it, so the workbench shows what the model was told.
    const notice = /\{\{#last_step\}\}([\s\S]*?)\{\{\/last_step\}\}/.exec(this.file(name))?.[1]?.trim();
    if (vars.last_step && notice) sections.push({ title: 'Last step', text: notice });
    if (collected) sections.push({ title: 'Collected', text: collected });
    if (vars.history) sections.push({ title: 'History', text: vars.history });
    if (correction && vars.rejected_script)
      sections.push({ title: 'Previous script', text: vars.rejected_script });
    if (previousError) sections.push({ title: 'Error', text: previousError });
    if (hints.length) sections.push({ title: 'Hints', text: vars.hints });
    return { kind: options.final ? 'final' : 'step', attempt: options.step, system, user, hints, sections };
  }

  /**
   * The description of the MCP `code` tool: how to write the script, the rules of both languages and the
   * tools manual of every sandbox (signatures are written the Python way; TS/JS pass the same names in
   * one object).
   */
  codeToolDescription(
    sandboxes: readonly SandboxContext[],
    defaultSandbox: string,
    kits: readonly { name: string; sandbox: string }[] = [],
  ): string {
    const tools = sandboxes
      .map(
        (s) =>
          `Tools of the sandbox \`${s.name}\`${s.name === defaultSandbox ? ' (the default)' : ''}:\n` +
          (s.toolsPrompt ?? toolsPrompt(s.tools)),
      )
      .join('\n');
    // (each entry of a skill says which scripts call it: "(A skill: js and ts scripts call it.)")
    const skills = sandboxes.some((s) => s.tools.some((t) => t.location === 'skill'));
    return renderTemplate(
      this.file('mcp-code'),
      {
        default_sandbox: defaultSandbox,
        sandboxes: sandboxes.map((s) => s.name).join(', '),
        kits: kits.map((k) => `${k.name} (${k.sandbox})`).join(', '),
        // The run-time lookups are named only where a sandbox's tools are shown as an index.
        index: sandboxes.some((s) => s.indexed) ? 'yes' : '',
        rules_python: this.rules('python', skills),
        rules_js: this.rules('js', skills),
        tools,
      },
      'mcp-code',
    ).trim();
  }

  /**
   * The text an LLM gets to correct a script the validator rejected; `person`: the same problems for a
   * person who ran the script (`toolsmith exec`), who is not asked to "return" anything.
   */
  validationErrorMessage(violations: readonly Violation[], reader: 'model' | 'person' = 'model'): string {
    if (reader === 'person')
      return `The script was rejected before it ran. Fix every problem below, then run it again:\n${formatViolations(violations)}`.trim();
    return renderTemplate(this.file('validation-feedback'), {
      violations: formatViolations(violations),
    }).trim();
  }
}

/**
 * What a retry prompt says of the attempts left (it said only "Attempt 2."): how many more after this one,
 * or that this is the last and what happens if it fails.
 */
export function budgetText(b: { attempt: number; of: number }): string {
  const left = Math.max(0, b.of - b.attempt);
  return left > 0
    ? `You have ${left} more attempt${left === 1 ? '' : 's'} after this one (${b.of} in all).`
    : `This is your last attempt (${b.of} in all): if this script fails, the run ends without a result.`;
}

/** One line per violation: `- line 3, column 5 [no-import]: message`. */
export function formatViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `- line ${v.line}, column ${v.column} [${v.rule}]: ${v.message}`).join('\n');
}

/**
 * Templates, the ratchet: list, propose from a run, create (validated), delete, and test against their
 * saved examples. TemplateService sees only its narrow `TemplateDeps`; ToolsmithService builds them.
 */
import type { ScriptLanguage } from '../core/lang/violation.ts';
import type { RunOutcome, Validate } from '../core/orchestrator/orchestrator.ts';
import type { RunRecord } from '../core/records/records.ts';
import { scriptCallShapes, scriptToolNames } from '../core/script/context.ts';
import type { ScriptContext } from '../core/script/context.ts';
import type { CallShape } from '../core/lang/signature.ts';
import { proposeTemplate } from '../core/templates/propose.ts';
import { checkTemplate, instantiate } from '../core/templates/slots.ts';
import { matchTemplate } from '../core/templates/template.ts';
import type {
  SlotType,
  Template,
  TemplateExample,
  TemplateProposal,
  TemplateTestResult,
  TemplateView,
} from '../core/templates/template.ts';
import type { JsonValue } from '../core/tools/model.ts';
import type { RunStore } from '../infra/store/run-store.ts';
import type { TemplateFiles } from '../infra/workspace/files.ts';
import { ToolsmithError } from './errors.ts';
import { templateProblems, templateViews } from './template-views.ts';
import type { RunScriptRequest } from './runs.ts';

export type { TemplateProposal, TemplateTestResult, TemplateView };

/** A value of each slot type, for validating a template that has no example to take values from. */
const SAMPLE_VALUE: Record<SlotType, JsonValue> = { str: 'x', int: 1, float: 1.5 };

/** What TemplateService needs, and nothing more. */
export interface TemplateDeps {
  /** The workspace's `templates/` folder. */
  files: TemplateFiles;
  /** The counters of template uses, and the runs templates are promoted from. */
  store: Pick<RunStore, 'templateStats' | 'resetTemplateStats' | 'get'>;
  runs: {
    get(runId: string): RunRecord;
    runScript(req: RunScriptRequest): Promise<RunOutcome>;
  };
  validate: Validate;
  scriptContext(sandbox: string, kit: string | undefined, language: ScriptLanguage): ScriptContext;
}

export class TemplateService {
  readonly files: TemplateFiles;
  private readonly deps: TemplateDeps;

  constructor(deps: TemplateDeps) {
    this.deps = deps;
    this.files = deps.files;
  }

  /** The saved templates with their counters (files that do not parse are in `problems()`). */
  list(): TemplateView[] {
    return templateViews(this.files, this.deps.store);
  }

  /** The template files that do not parse, each with the reason. */
  problems(): { file: string; error: string }[] {
    return templateProblems(this.files);
  }

  /**
   * A template proposed from a run: the pattern and slots from its task, the body from its last
   * successful attempt's script (else its last attempt's, or `attempt`'s) with the slot values replaced.
   */
  propose(runId: string, attempt?: number): TemplateProposal {
    const rec = this.deps.runs.get(runId);
    const a =
      attempt !== undefined
        ? rec.attempts.find((x) => x.n === attempt)
        : ([...rec.attempts].reverse().find((x) => x.execution?.success) ??
          rec.attempts[rec.attempts.length - 1]);
    if (!a?.script)
      throw new ToolsmithError(
        'invalid_argument',
        attempt !== undefined
          ? `run ${runId} has no script at attempt ${attempt}`
          : `run ${runId} has no script to promote`,
      );
    const p = proposeTemplate(
      rec.started.task,
      a.script.body,
      a.script.language,
      this.shapes(rec.started.sandbox, rec.started.kit, a.script.language),
    );
    return {
      pattern: p.pattern,
      slots: p.slots,
      body: p.body,
      sandbox: rec.started.sandbox,
      ...(rec.started.kit ? { kit: rec.started.kit } : {}),
    };
  }

  /**
   * Promotes a script to a template. From a run: its last successful attempt's script (or `attempt`);
   * the pattern defaults to the run's task with proposed slots. Refused unless the body validates.
   */
  create(req: {
    name: string;
    fromRun?: string;
    attempt?: number;
    body?: string;
    pattern?: string;
    slots?: Record<string, SlotType>;
    sandbox?: string;
    kit?: string;
    language?: ScriptLanguage;
    examples?: TemplateExample[];
    description?: string;
    force?: boolean;
  }): TemplateView {
    let body = req.body;
    let sandbox = req.sandbox;
    let kit = req.kit;
    let language = req.language ?? 'python';
    let task: string | undefined;
    if (req.fromRun) {
      const rec = this.deps.runs.get(req.fromRun);
      const attempt =
        req.attempt !== undefined
          ? rec.attempts.find((a) => a.n === req.attempt)
          : [...rec.attempts].reverse().find((a) => a.execution?.success);
      // Its script is a template's already: promoting it made a second template of the same body.
      if (attempt?.script?.source === 'template')
        throw new ToolsmithError(
          'invalid_argument',
          `run ${req.fromRun}'s attempt ${attempt.n} was served by ${rec.template ? `the template ${rec.template}` : 'a template'}: its script is that template's already; change the template${rec.template ? ` (templates/${rec.template}.tmpl)` : ''}, or promote a script an LLM or a person wrote`,
        );
      if (!attempt?.script)
        throw new ToolsmithError(
          'invalid_argument',
          req.attempt !== undefined
            ? `run ${req.fromRun} has no script at attempt ${req.attempt}`
            : `run ${req.fromRun} has no successful attempt to promote`,
        );
      // A template is a verified script: an attempt that was rejected, raised or timed out is not one
      // (every intent it served would fail the same way, each counted against the template).
      if (req.attempt !== undefined && !attempt.execution?.success) {
        const why = attempt.execution?.error
          ? `${attempt.execution.error.type}: ${attempt.execution.error.message.split('\n')[0]}`
          : attempt.execution
            ? attempt.execution.exitReason
            : 'it never ran';
        const ok = rec.attempts.filter((a) => a.script && a.execution?.success).map((a) => a.n);
        throw new ToolsmithError(
          'invalid_argument',
          `run ${req.fromRun}'s attempt ${req.attempt} did not succeed (${why}); a template is a verified script: ${
            ok.length
              ? `promote a successful attempt (--attempt ${ok.join(' or ')}), or omit --attempt for the last one`
              : 'the run has no successful attempt'
          }`,
        );
      }
      body ??= attempt.script.body;
      // An INTERACTIVE step may read `collected` (what the steps before it reported): a template runs
      // alone, where no such variable exists, so every use would fail with a NameError.
      if (rec.started.mode === 'interactive' && /\bcollected\b/.test(body))
        throw new ToolsmithError(
          'invalid_argument',
          `run ${req.fromRun} is INTERACTIVE and the script of its step ${attempt.n} reads \`collected\` (what the steps before it reported), which a template does not have: promote a step that does not read it, or a script that does the whole task`,
        );
      sandbox ??= rec.started.sandbox;
      kit ??= rec.started.kit;
      language = attempt.script.language;
      task = rec.started.task;
    }
    if (!body || !sandbox)
      throw new ToolsmithError(
        'invalid_argument',
        'a template needs a script (--from-run or --file) and a sandbox',
      );
    let pattern = req.pattern;
    let slots = req.slots;
    if (!pattern) {
      if (!task)
        throw new ToolsmithError(
          'invalid_argument',
          'a template needs --pattern (or --from-run to propose one from the task)',
        );
      const proposal = proposeTemplate(task, body, language, this.shapes(sandbox, kit, language));
      pattern = proposal.pattern;
      slots ??= proposal.slots;
      body = proposal.body;
    } else if (!slots) {
      slots = Object.fromEntries(
        [...pattern.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => [m[1] as string, 'str']),
      );
    }
    const examples = req.examples ?? (task ? [{ intent: task }] : []);
    const t: Template = {
      name: req.name,
      pattern,
      slots: slots ?? {},
      sandbox,
      language,
      body,
      examples,
      ...(kit ? { kit } : {}),
      ...(req.description ? { description: req.description } : {}),
      ...(req.fromRun ? { origin: req.fromRun } : {}),
    };
    const problems = checkTemplate(t);
    if (problems.length)
      throw new ToolsmithError('invalid_argument', `template ${req.name}: ${problems.join('; ')}`);
    // A template is a verified script: it is validated against the sandbox's tools (as `validate` and a
    // skill's save do) with each example's slot values, or, with no example (`--file --pattern`), with a
    // plain value of each slot's type, so no script that breaks the rules is saved.
    const samples: Record<string, JsonValue>[] = [];
    for (const ex of t.examples) {
      const values = matchTemplate(t, ex.intent);
      if (!values)
        throw new ToolsmithError(
          'invalid_argument',
          `the example ${JSON.stringify(ex.intent)} does not match the pattern ${JSON.stringify(t.pattern)}`,
        );
      samples.push(values);
    }
    if (samples.length === 0)
      samples.push(Object.fromEntries(Object.entries(t.slots).map(([k, type]) => [k, SAMPLE_VALUE[type]])));
    const ctx = this.deps.scriptContext(sandbox, kit, language);
    const tools = scriptToolNames(ctx);
    const shapes = scriptCallShapes(ctx);
    for (const values of samples) {
      const v = this.deps.validate(instantiate(t, values), language, tools, sandbox, shapes);
      if (!v.valid)
        throw new ToolsmithError(
          'invalid_argument',
          `template ${t.name}: the script does not validate: ${v.violations
            .map((x) => `line ${x.line}:${x.column} ${x.rule}: ${x.message.split('\n')[0]}`)
            .join('; ')}`,
          { violations: v.violations },
        );
    }
    if (!req.force && this.files.list().some((e) => e.template?.name === t.name)) {
      // An existing name is the caller's input to change (or --force), as for kits and skills.
      throw new ToolsmithError('invalid_argument', `template ${t.name} exists; use --force to replace it`);
    }
    const file = this.files.write(t);
    this.deps.store.resetTemplateStats(t.name);
    return { ...t, file, successes: 0, failures: 0, lastUsed: null };
  }

  /**
   * The signatures of what a script of the sandbox may call (slots passed by position are named after the
   * parameter they fill); none when the sandbox cannot be read (the slots keep the names the rest gives).
   */
  private shapes(
    sandbox: string,
    kit: string | undefined,
    language: ScriptLanguage,
  ): Record<string, CallShape> | undefined {
    try {
      return scriptCallShapes(this.deps.scriptContext(sandbox, kit, language));
    } catch {
      return undefined;
    }
  }

  /** A name that is no template, with the names that are. */
  private notFound(name: string): ToolsmithError {
    const names = this.list().map((x) => x.name);
    return new ToolsmithError('not_found', `no template ${name}; available: ${names.join(', ') || 'none'}`);
  }

  delete(name: string): void {
    if (!this.files.delete(name)) throw this.notFound(name);
    this.deps.store.resetTemplateStats(name);
  }

  /** Runs a template against its saved examples in the sandbox (not counted as uses of the template). */
  async test(name: string): Promise<TemplateTestResult> {
    const t = this.list().find((x) => x.name === name);
    if (!t) throw this.notFound(name);
    if (!t.examples.length)
      throw new ToolsmithError('invalid_argument', `template ${name} has no examples to test`);
    const out: TemplateTestResult['examples'] = [];
    for (const ex of t.examples) {
      const values = matchTemplate(t, ex.intent);
      if (!values) {
        out.push({
          intent: ex.intent,
          matched: false,
          success: false,
          error: 'the example does not match the pattern',
        });
        continue;
      }
      const o = await this.deps.runs.runScript({
        sandbox: t.sandbox,
        ...(t.kit ? { kit: t.kit } : {}),
        language: t.language,
        body: instantiate(t, values),
        task: `template test ${name}: ${ex.intent}`,
        // Its own kind: the run list hides template tests unless asked (they check a template).
        kind: 'template_test',
        ...(t.origin && this.deps.store.get(t.origin)
          ? { origin: { runId: t.origin, kind: 'test' as const } }
          : {}),
      });
      const data = o.result;
      const ok =
        o.status === 'succeeded' &&
        (ex.expect === undefined || JSON.stringify(data) === JSON.stringify(ex.expect));
      // A test is not a use: the counters say how the template served real tasks.
      out.push({
        intent: ex.intent,
        matched: true,
        success: ok,
        ...(data !== undefined ? { data } : {}),
        ...(ex.expect !== undefined ? { expected: ex.expect } : {}),
        ...(o.error ? { error: o.error } : !ok ? { error: 'the result differs from the expected one' } : {}),
      });
    }
    return { name, examples: out, passed: out.every((e) => e.success) };
  }
}

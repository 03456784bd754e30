/**
 * Test suites: load and check suite files, run every case instance x column x repeat as a normal recorded
 * run (tagged with the suite run) with bounded concurrency, evaluate assertions (predicates in the
 * sandbox), store each result as it ends, and derive matrices and comparisons.
 */
import { createHash } from 'node:crypto';
import type { LlmProvider } from '../core/ports/llm.ts';
import { deriveRun } from '../core/records/records.ts';
import { evaluateAssertion, outcomeOf, pythonLiteral } from '../core/suites/assert.ts';
import type { AssertionVerdict, CaseOutcome } from '../core/suites/assert.ts';
import { GatedProvider, RateGate } from '../core/suites/gate.ts';
import { buildMatrix, compareMatrices, costOf, infraErrorOf } from '../core/suites/matrix.ts';
import type { CaseResult, SuiteColumn, SuiteComparison } from '../core/suites/matrix.ts';
import { expandCases, formatPath, locateInSuite } from '../core/suites/schema.ts';
import { stringify as stringifyToml } from 'smol-toml';
import { parseSuite } from '../infra/workspace/suite-toml.ts';
import type { Assertion, CaseInstance, Suite, SuiteProblem } from '../core/suites/schema.ts';
import { SuiteStore } from '../infra/store/suite-store.ts';
import { DiskFullError, StoreOverwrittenError } from '../infra/store/run-store.ts';
import { readThroughOverwrite as readThrough } from '../infra/store/read-through.ts';
import type { SuiteProgress, SuiteRunFull, SuiteRunSpec, SuiteRunSummary } from '../core/suites/run.ts';
import type { Request } from '../contract/api.ts';
import { WorkspaceError } from '../infra/workspace/files.ts';
import { SuiteFiles } from '../infra/workspace/suite-files.ts';
import { PROVIDER_DEFAULTS } from './config.ts';
import type { ProviderConfig } from './config.ts';
import { ToolsmithError } from './errors.ts';
import { envKey, makeProvider, tuneProvider } from './providers.ts';
import type { KeyLookup } from './providers.ts';
import type { RunService } from './runs.ts';
import type { ConfigDeps, PushDeps, WorkspaceDeps } from './deps.ts';
import type { ScriptLanguage, ValidateOptions, ValidationResult } from '../core/lang/violation.ts';
import type { ExecutionResult } from '../core/sandbox/execution.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import { errorMessage } from '../core/errors.ts';
import { skillSavings } from '../core/skills/savings.ts';
import type { SavingRun, SavingSkill, SkillSaving } from '../core/skills/savings.ts';

export type { SuiteProgress };
/** A suite run with its results and matrix, as `get` and `start` answer it. */
export type SuiteRunView = SuiteRunFull;

/** The ids an ambiguous start of a suite run id names at most. */
const AMBIGUOUS_SHOWN = 5;

/** `suites.start` of the contract (the suite by its name), plus what only in-process callers give. */
export type StartSuiteRequest = Omit<Request<'suites.start'>, 'name'> & {
  suite: string;
  /** An OpenAI-compatible endpoint used for every model given as a bare name (CLI `--base-url`). */
  baseUrl?: string;
  keyFor?: KeyLookup;
  onProgress?: (p: SuiteProgress) => void;
  /** Every column's LLM request timeout and retries (CLI `--timeout-ms`, `--retries`; see tuneProvider). */
  timeoutMs?: number;
  maxRetries?: number;
};

interface Job {
  instance: CaseInstance;
  column: SuiteColumn;
  provider: LlmProvider;
  rep: number;
}

/** What checking a suite needs: the tools a script of its sandbox and kit sees, and validation. */
export interface SuiteCheckDeps {
  scriptTools(sandbox: string, kit?: string): { tools: SandboxTool[] };
  validateCode(code: string, language: ScriptLanguage, options: ValidateOptions): ValidationResult;
}

/** Connecting the MCP servers a sandbox takes tools from: those that could not be reached, with why. */
export interface SuiteMcpDeps {
  prepareMcp(sandbox: string): Promise<{ server: string; error: string }[]>;
}

/** A suite's sandbox's MCP servers that could not be reached, as one message naming each and why. */
export const mcpDownMessage = (sandbox: string, down: { server: string; error: string }[]): string =>
  `sandbox ${sandbox} takes tools from MCP servers that could not be reached: ${down
    .map((f) => `MCP server ${f.server}: ${f.error}`)
    .join('; ')}`;

/**
 * `checkSuiteText` after connecting the MCP servers of the suite's sandbox: their tools are the
 * sandbox's tools, so a check before they are connected refused `tool_called` on them ("no tool X")
 * and the cases' scripts failed with "X() is not defined". `down`: the servers that could not be
 * reached (each with why); the tool checks are then skipped (they would name the wrong cause).
 */
export async function checkSuite(
  svc: SuiteCheckDeps & SuiteMcpDeps,
  text: string,
): Promise<{ suite?: Suite; problems: SuiteProblem[]; down: { server: string; error: string }[] }> {
  const r = parseSuite(text);
  if (!r.ok) return { problems: r.problems, down: [] };
  const down = await svc.prepareMcp(r.suite.sandbox);
  if (down.length)
    return {
      suite: r.suite,
      down,
      problems: [
        {
          ...locateInSuite(text, ['sandbox']),
          path: 'sandbox',
          message: mcpDownMessage(r.suite.sandbox, down),
        },
      ],
    };
  return { ...checkSuiteText(svc, text), down };
}

/**
 * What running suites needs besides the run service: the workspace, the running config (providers,
 * prices), progress pushed to front ends, and running a predicate script in the suite's sandbox.
 */
export interface SuiteDeps extends SuiteCheckDeps, SuiteMcpDeps, WorkspaceDeps, ConfigDeps, PushDeps {
  /** The sandbox's skills, for the report of the steps they would have saved. */
  skills(): { list(sandbox?: string): SavingSkill[] };
  executeScript(req: {
    sandbox: string;
    kit?: string;
    language: ScriptLanguage;
    body: string;
    timeoutMs?: number;
  }): Promise<ExecutionResult>;
}

/** How long the suite runner waits, at most, for a `runs.db` being overwritten in place to be acted on. */
const OVERWRITE_WAIT_MS = 60_000;

/**
 * A read of the run store by the suite runner, made again every 100 ms while `runs.db` is being
 * overwritten in place (infra/store/read-through.ts), for at most OVERWRITE_WAIT_MS. Before, a case
 * whose run ended during a copy read as an infrastructure error ("the case could not start: the run
 * store ... is being overwritten in place ...") and the suite run ended `error`. `signal`: the suite
 * run's own (aborted by a cancel: `suites.cancel`, the MCP `run_suite` call cancelled, the service
 * closing at `serve`'s or `eval`'s stop signal), which ends the wait at once with the last refusal.
 * Before, a cancelled suite run went on asking the store every 100 ms for up to 60 s, and a close
 * waited 15 s for it.
 */
const readThroughOverwrite = <T>(read: () => T, signal: AbortSignal): Promise<T> =>
  readThrough(read, OVERWRITE_WAIT_MS, signal);

/** Parses a suite; problems (TOML, schema, predicate validation) carry line numbers. */
export function checkSuiteText(
  svc: SuiteCheckDeps,
  text: string,
): { suite?: Suite; problems: SuiteProblem[] } {
  const r = parseSuite(text);
  if (!r.ok) return { problems: r.problems };
  const problems: SuiteProblem[] = [];
  const at = (path: (string | number)[], message: string) =>
    problems.push({ ...locateInSuite(text, path), path: formatPath(path), message });
  let tools: string[] = [];
  try {
    tools = svc.scriptTools(r.suite.sandbox, r.suite.kit).tools.map((t) => t.name);
  } catch (e) {
    at([r.suite.kit ? 'kit' : 'sandbox'], errorMessage(e));
    return { suite: r.suite, problems };
  }
  r.suite.cases.forEach((c, i) =>
    c.assert.forEach((a, j) => {
      if (a.type === 'predicate') {
        const v = svc.validateCode(predicateBody(a.script, null), 'python', { tools });
        for (const x of v.violations)
          at(['cases', i, 'assert', j, 'script'], `predicate line ${x.line - 1}: [${x.rule}] ${x.message}`);
      }
      if ((a.type === 'tool_called' || a.type === 'tool_not_called') && !tools.includes(a.tool))
        at(
          ['cases', i, 'assert', j, 'tool'],
          `no tool ${a.tool} in ${r.suite.sandbox}; tools: ${tools.join(', ')}`,
        );
    }),
  );
  return { suite: r.suite, problems };
}

const predicateBody = (script: string, result: unknown) => `result = ${pythonLiteral(result)}\n${script}`;

export class SuiteService {
  readonly files: SuiteFiles;
  readonly store: SuiteStore;
  private readonly svc: SuiteDeps;
  private readonly runs: RunService;
  private readonly active = new Map<
    string,
    { abort: AbortController; runIds: Set<string>; done?: Promise<unknown> }
  >();

  constructor(svc: SuiteDeps, runs: RunService) {
    this.svc = svc;
    this.runs = runs;
    this.files = new SuiteFiles(svc.files.root);
    this.store = new SuiteStore(runs.store);
  }

  list(): { name: string; cases: number; error?: string; last?: SuiteRunSummary }[] {
    return this.files.names().map((name) => {
      const last = this.store.list(name, 1)[0];
      let text: string;
      try {
        text = this.files.read(name);
      } catch (e) {
        // A suite file that cannot be read (a folder in its place) is one suite's problem, not the list's.
        if (!(e instanceof WorkspaceError)) throw e;
        return { name, cases: 0, error: e.message, ...(last ? { last } : {}) };
      }
      const r = parseSuite(text);
      return {
        name,
        cases: r.ok ? expandCases(r.suite).length : 0,
        ...(r.ok ? {} : { error: r.problems.map((p) => `${p.line}:${p.column} ${p.message}`).join('; ') }),
        ...(last ? { last } : {}),
      };
    });
  }

  read(name: string): string {
    try {
      if (!this.files.exists(name))
        throw new ToolsmithError(
          'not_found',
          `no suite ${name} in ${this.files.dir}; available: ${this.files.names().join(', ') || 'none'}`,
        );
      return this.files.read(name);
    } catch (e) {
      if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_argument', e.message);
      throw e;
    }
  }

  /** The suite's problems, its sandbox's MCP servers connected first (an unreachable one is a problem). */
  async check(text: string): Promise<{ problems: SuiteProblem[] }> {
    return { problems: (await checkSuite(this.svc, text)).problems };
  }

  /** Saves a suite file; refused while it has problems unless `force`. */
  async save(name: string, text: string, force = false): Promise<{ file: string; problems: SuiteProblem[] }> {
    const { problems } = await this.check(text);
    if (problems.length && !force)
      throw new ToolsmithError('invalid_argument', `suite ${name} has ${problems.length} problem(s)`, {
        problems,
      });
    try {
      return { file: this.files.write(name, text), problems };
    } catch (e) {
      if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_argument', e.message);
      throw e;
    }
  }

  /** A new suite file with its first case; refused when the name is taken or the suite has problems. */
  async create(r: Request<'suites.create'>): Promise<{ file: string }> {
    if (this.files.exists(r.name))
      throw new ToolsmithError(
        'invalid_argument',
        `suite ${r.name} exists already: ${this.files.file(r.name)}`,
      );
    const text =
      `# Test suite: \`toolsmith eval ${r.name}\` or the Suites view (see docs/suites.md).\n` +
      `${stringifyToml({ description: r.description ?? '', sandbox: r.sandbox })}\n\n` +
      `[[cases]]\n${stringifyToml({ id: caseIdOf(r.task, []), task: r.task })}\n`;
    return { file: (await this.save(r.name, text)).file };
  }

  /** Deletes a suite's file (its recorded runs stay in the run store). */
  remove(name: string): { removed: true } {
    this.read(name); // not_found with the suites there are
    this.files.remove(name);
    return { removed: true };
  }

  /**
   * Appends a case to a suite (the text is kept as written, comments included): a run's task, in the
   * suite's sandbox. Refused when the suite has problems or runs in another sandbox.
   */
  async addCase(r: Request<'suites.addCase'>): Promise<{ file: string; id: string }> {
    const text = this.read(r.name);
    const parsed = parseSuite(text);
    if (!parsed.ok)
      throw new ToolsmithError(
        'invalid_argument',
        `suite ${r.name} has problems: fix them before adding a case`,
      );
    if (r.sandbox !== undefined && parsed.suite.sandbox !== r.sandbox)
      throw new ToolsmithError(
        'invalid_argument',
        `suite ${r.name} runs in sandbox ${parsed.suite.sandbox}, this task in ${r.sandbox}: pick a suite of sandbox ${r.sandbox} or create one`,
      );
    const id = caseIdOf(
      r.task,
      parsed.suite.cases.map((c) => c.id),
    );
    const next = `${text.replace(/\n*$/, '\n')}\n[[cases]]\n${stringifyToml({ id, task: r.task })}\n`;
    return { file: (await this.save(r.name, next)).file, id };
  }

  /**
   * The suite, ready to run: parsed, its sandbox's MCP servers connected (their tools are the sandbox's
   * tools: the cases' prompts, validation and tool assertions need them), checked, with its columns. A
   * server that cannot be reached refuses the suite (`infra`, naming it and why) before any LLM call.
   */
  private async load(req: StartSuiteRequest): Promise<{
    suite: Suite;
    columns: { column: SuiteColumn; provider: LlmProvider }[];
  }> {
    const text = this.read(req.suite);
    const { suite, problems, down } = await checkSuite(this.svc, text);
    if (suite && down.length)
      throw new ToolsmithError('infra', `suites/${req.suite}.toml: ${mcpDownMessage(suite.sandbox, down)}`);
    if (!suite || problems.length)
      throw new ToolsmithError(
        'invalid_argument',
        `suites/${req.suite}.toml: ${problems.map((p) => `line ${p.line}: ${p.path ? `${p.path}: ` : ''}${p.message}`).join('; ')}`,
        { problems },
      );
    const entries = req.models?.length ? req.models : suite.models;
    const variants = suite.templates === 'both' ? [false, true] : [suite.templates === 'on'];
    const resolved = this.resolveModels(entries, req);
    const columns = resolved.flatMap(({ config, key }) =>
      variants.map((templates) => ({
        column: {
          id: `${config.id}:${config.model}${templates ? '+templates' : ''}`,
          provider: config.id,
          model: config.model,
          templates,
        },
        provider: makeProvider(
          tuneProvider(config, {
            ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
            ...(req.maxRetries !== undefined ? { maxRetries: req.maxRetries } : {}),
          }),
          key,
        ),
      })),
    );
    // The same model named twice is one column (its results would share keys).
    const unique = columns.filter((c, i) => columns.findIndex((x) => x.column.id === c.column.id) === i);
    return { suite, columns: unique };
  }

  private resolveModels(
    entries: string[],
    req: StartSuiteRequest,
  ): { config: ProviderConfig; key: string | undefined }[] {
    const providers = this.svc.config.providers;
    const keyFor = req.keyFor ?? envKey;
    const first = req.baseUrl
      ? ({
          id: 'cli',
          kind: 'openai',
          base_url: req.baseUrl.replace(/\/$/, ''),
          model: 'default',
          ...PROVIDER_DEFAULTS,
        } satisfies ProviderConfig)
      : providers[0];
    const list = entries.length ? entries : providers.map((p) => p.id);
    if (!list.length || !first)
      throw new ToolsmithError('invalid_argument', 'no models to run: configure a provider or pass --models');
    return list.map((entry) => {
      const byId = req.baseUrl ? undefined : providers.find((p) => p.id === entry);
      if (byId) return { config: byId, key: keyFor(byId) };
      const colon = entry.indexOf(':');
      const prefix = colon > 0 ? providers.find((p) => p.id === entry.slice(0, colon)) : undefined;
      if (prefix && !req.baseUrl)
        return { config: { ...prefix, model: entry.slice(colon + 1) }, key: keyFor(prefix) };
      return { config: { ...first, model: entry }, key: keyFor(first) };
    });
  }

  /**
   * Starts a suite run once its sandbox's MCP servers are connected; `suiteRun` is known then, `done`
   * resolves with the whole view.
   */
  async start(req: StartSuiteRequest): Promise<{ suiteRun: string; done: Promise<SuiteRunView> }> {
    const { suite, columns } = await this.load(req);
    const instances = expandCases(suite);
    const repeatOverride = req.repeat;
    const jobs: Job[] = [];
    for (const instance of instances)
      for (const { column, provider } of columns)
        for (let rep = 0; rep < (repeatOverride ?? instance.repeat); rep++)
          jobs.push({ instance, column, provider, rep });
    const concurrency = Math.max(1, Math.min(req.concurrency ?? suite.concurrency, 64));
    const spec: SuiteRunSpec = {
      suite: req.suite,
      sandbox: suite.sandbox,
      columns: columns.map((c) => c.column),
      cases: instances.map((i) => ({
        id: i.id,
        task: i.task,
        threshold: i.threshold,
        repeat: repeatOverride ?? i.repeat,
      })),
      concurrency,
      planned: jobs.length,
      toolsHash: createHash('sha256')
        .update(this.svc.files.readTools(suite.sandbox))
        .digest('hex')
        .slice(0, 12),
    };
    let suiteRun: string;
    try {
      suiteRun = this.store.create(spec);
    } catch (e) {
      // A full disk (or a store that takes no writes): refused at once, before any case runs, in words
      // naming the file, as a new run is (an infrastructure error, not a bug of the service).
      if (!(e instanceof DiskFullError)) throw e;
      throw new ToolsmithError('infra', `the suite run could not be recorded: ${errorMessage(e)}`);
    }
    const abort = new AbortController();
    const runIds = new Set<string>();
    this.active.set(suiteRun, { abort, runIds });
    // One gate per provider endpoint: a 429 for one case slows every case that uses it.
    const gates = new Map<string, RateGate>();
    const gated = (p: LlmProvider) => {
      let g = gates.get(p.id);
      if (!g) gates.set(p.id, (g = new RateGate()));
      return new GatedProvider(p, g);
    };
    const progress: SuiteProgress = {
      suiteRun,
      suite: req.suite,
      planned: jobs.length,
      done: 0,
      passed: 0,
      failed: 0,
      errors: 0,
      running: 0,
      status: 'running',
    };
    const report = (last?: CaseResult) => {
      const p = { ...progress, ...(last ? { last } : {}) };
      req.onProgress?.(p);
      this.svc.push({ type: 'suite_progress', progress: p });
    };
    let next = 0;
    const worker = async () => {
      while (!abort.signal.aborted && next < jobs.length) {
        const job = jobs[next++] as Job;
        progress.running++;
        report(); // a case started: "N running" counts every worker busy, not one less
        const result = await this.runCase(suite, job, gated(job.provider), suiteRun, runIds, abort.signal);
        progress.running--;
        if (abort.signal.aborted && result.status === 'cancelled') continue;
        this.store.addResult(suiteRun, result);
        progress.done++;
        if (result.passed) progress.passed++;
        else if (result.infra !== undefined) progress.errors++;
        else progress.failed++;
        report(result);
      }
    };
    let finished = false;
    const done = (async () => {
      try {
        await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
        // A cancel ends the wait for a copy over the store (no view then): the end is `cancelled` all the
        // same, a write held until the copy is acted on.
        const view = abort.signal.aborted
          ? undefined
          : await readThroughOverwrite(() => this.get(suiteRun), abort.signal).catch((e: unknown) => {
              if (abort.signal.aborted) return undefined;
              throw e;
            });
        const m = view?.matrix.overall;
        // Failed cells make the run failed; cells that only hit infrastructure errors make it an error.
        const status =
          !view || !m || abort.signal.aborted
            ? 'cancelled'
            : m.met === m.cells && view.results.length === jobs.length
              ? 'passed'
              : m.cells - m.met - m.errors > 0 || view.results.length !== jobs.length
                ? 'failed'
                : 'error';
        const firstInfra = view?.results.find((r) => r.infra !== undefined)?.infra;
        if (status === 'error')
          this.store.finish(
            suiteRun,
            status,
            `${m?.errors ?? 0} case(s) could not be judged (infrastructure): ${firstInfra ?? ''}`,
          );
        else this.store.finish(suiteRun, status);
        finished = true;
        progress.status = status;
        report();
        // (a cancelled suite run's view, when the store can be read at once; else the copy's refusal)
        return await readThroughOverwrite(() => this.get(suiteRun), abort.signal);
      } catch (e) {
        try {
          // (not over a cancelled end already written: only the view after it could not be read)
          if (!finished) this.store.finish(suiteRun, 'error', errorMessage(e));
        } catch {
          // A full disk refuses this too; `e` (the first write that failed) is the cause to report.
        }
        throw e;
      } finally {
        this.active.delete(suiteRun);
      }
    })();
    const entry = this.active.get(suiteRun);
    if (entry) entry.done = done;
    report();
    return { suiteRun, done };
  }

  /**
   * Cancels a running suite run: no new case starts and running cases are cancelled. Its whole id is
   * found among the suite runs in flight without asking the store: before, the id was resolved in the
   * store first, which refuses reads while a copy goes on over it, so a cancel (the workbench's, the
   * service's close) then failed with the copy's StoreOverwrittenError and the suite run went on.
   */
  cancel(idOrPrefix: string): boolean {
    const a = this.active.get(idOrPrefix) ?? this.active.get(this.resolveId(idOrPrefix));
    if (!a) return false;
    a.abort.abort();
    for (const id of a.runIds) this.runs.cancel(id);
    return true;
  }

  private async runCase(
    suite: Suite,
    job: Job,
    provider: LlmProvider,
    suiteRun: string,
    runIds: Set<string>,
    signal: AbortSignal,
  ): Promise<CaseResult> {
    const t0 = performance.now();
    const base = {
      caseId: job.instance.id,
      column: job.column.id,
      rep: job.rep,
    };
    let runId: string | null = null;
    try {
      const started = await this.runs.start({
        task: job.instance.task,
        sandbox: suite.sandbox,
        ...(suite.kit ? { kit: suite.kit } : {}),
        mode: suite.mode,
        language: suite.language,
        providers: [provider],
        maxRetries: job.instance.maxRetries,
        ...(suite.defaults.max_steps !== undefined ? { maxSteps: suite.defaults.max_steps } : {}),
        timeoutMs: job.instance.timeoutS * 1000,
        noTemplates: !job.column.templates,
      });
      // The run is recorded before it starts: tag it and let cancel reach it.
      const id = started.runId;
      runId = id;
      this.store.tagRun(id, suiteRun);
      runIds.add(id);
      const tStarted = performance.now();
      const outcome = await started.done;
      const tDone = performance.now();
      runIds.delete(id);
      const events = await readThroughOverwrite(() => this.runs.store.events(id), signal);
      // Its end never recorded (its events refused past the bound of what a full disk lets this process
      // hold): the record cannot be judged, and says so with why, as an infrastructure error. Before, it
      // read as interrupted "its process ended", which it did not.
      if (!events.some((e) => e.type === 'run_finished')) {
        // (the outcome's error may say the same refusal twice, the event's and the end's: said once)
        const said = outcome.error && [...new Set(outcome.error.split('; '))].join('; ');
        const why = `the run's record could not be kept: ${said || `it ${outcome.status} with its end unrecorded`}`;
        return {
          ...base,
          runId: id,
          status: outcome.status,
          passed: false,
          attempts: 0,
          promptTokens: 0,
          completionTokens: 0,
          cost: null,
          latencyMs: Math.round(tDone - t0),
          verdicts: [],
          error: why,
          infra: why,
          finishedAt: Date.now(),
        };
      }
      const rec = deriveRun(events);
      let template: string | undefined;
      for (const e of events) if (e.type === 'tier' && e.data.template) template = e.data.template;
      const o = outcomeOf(rec, template);
      const verdicts = await this.verdicts(suite, job.instance.assert, o);
      const llmMs = rec.attempts.reduce((a, x) => a + x.llmLatencyMs, 0);
      const infra = infraErrorOf(rec);
      const model = rec.model ?? job.column.model;
      return {
        ...base,
        runId: id,
        status: rec.status,
        passed: rec.status === 'succeeded' && verdicts.every((v) => v.passed),
        attempts: o.attempts,
        promptTokens: rec.tokens.prompt,
        completionTokens: rec.tokens.completion,
        cost: costOf(this.svc.config.prices, model, rec.tokens.prompt, rec.tokens.completion),
        latencyMs: o.durationMs,
        verdicts,
        ...(rec.error ? { error: rec.error } : {}),
        ...(infra !== undefined ? { infra } : {}),
        finishedAt: Date.now(),
        overheadMs:
          performance.now() -
          t0 -
          llmMs -
          rec.attempts.reduce((a, x) => a + (x.execution?.durationMs ?? 0), 0),
        suiteMs: tStarted - t0 + (performance.now() - tDone),
      };
    } catch (e) {
      const unjudged = (status: 'cancelled' | 'error', infra?: string): CaseResult => ({
        ...base,
        runId,
        status,
        passed: false,
        attempts: 0,
        promptTokens: 0,
        completionTokens: 0,
        cost: null,
        latencyMs: Math.round(performance.now() - t0),
        verdicts: [],
        error: errorMessage(e),
        ...(infra !== undefined ? { infra } : {}),
        finishedAt: Date.now(),
      });
      // Its record unread because the suite run was cancelled meanwhile (the wait for a copy over the
      // store ended): not judged, as a case cancelled is not.
      if (signal.aborted && e instanceof StoreOverwrittenError) return unjudged('cancelled');
      return unjudged('error', `the case could not start: ${errorMessage(e)}`);
    }
  }

  private async verdicts(suite: Suite, asserts: Assertion[], o: CaseOutcome): Promise<AssertionVerdict[]> {
    const out: AssertionVerdict[] = [];
    for (const a of asserts) {
      if (a.type !== 'predicate') {
        out.push(evaluateAssertion(a, o));
        continue;
      }
      if (o.status !== 'succeeded') {
        out.push({ type: 'predicate', passed: false, message: `no result: the run ${o.status}` });
        continue;
      }
      const r = await this.svc.executeScript({
        sandbox: suite.sandbox,
        ...(suite.kit ? { kit: suite.kit } : {}),
        language: 'python',
        body: predicateBody(a.script, o.result),
        timeoutMs: 30_000,
      });
      if (r.exitReason === 'rejected')
        out.push({
          type: 'predicate',
          passed: false,
          message: `predicate refused: ${r.error?.message ?? ''}`,
        });
      else if (!r.success)
        out.push({
          type: 'predicate',
          passed: false,
          message: `predicate failed: ${r.error ? `${r.error.type}: ${r.error.message}` : r.exitReason}`,
        });
      else
        out.push({
          type: 'predicate',
          passed: r.data === true,
          message: r.data === true ? 'predicate true' : `predicate returned ${JSON.stringify(r.data)}`,
        });
    }
    return out;
  }

  /**
   * A suite run id, or a unique start of one (at least 4 characters), as run ids are taken; an ambiguous
   * start is refused naming the suite runs it starts. An unknown id is returned as given.
   */
  resolveId(idOrPrefix: string): string {
    if (idOrPrefix.length < 4 || this.store.get(idOrPrefix)) return idOrPrefix;
    const ids = this.store.idsStartingWith(idOrPrefix, AMBIGUOUS_SHOWN + 1);
    if (ids.length > 1)
      throw new ToolsmithError(
        'invalid_argument',
        `${idOrPrefix} is the start of more than one suite run id (${ids.slice(0, AMBIGUOUS_SHOWN).join(', ')}${ids.length > AMBIGUOUS_SHOWN ? ', ...' : ''}); give more of it`,
      );
    return ids[0] ?? idOrPrefix;
  }

  /** One suite run with its results and matrix (its id, or a unique start of it). */
  get(idOrPrefix: string): SuiteRunView {
    const suiteRun = this.resolveId(idOrPrefix);
    const row = this.store.get(suiteRun);
    if (!row) throw new ToolsmithError('not_found', `no suite run ${idOrPrefix}`);
    const results = this.store.results(suiteRun);
    const thresholds = Object.fromEntries(row.spec.cases.map((c) => [c.id, c.threshold]));
    const matrix = buildMatrix(
      row.spec.cases.map((c) => c.id),
      row.spec.columns,
      results,
      thresholds,
    );
    const savings = row.finishedAt !== null ? this.savings(row.spec.sandbox, results) : undefined;
    return { ...row, results, matrix, ...(savings ? { skillSavings: savings } : {}) };
  }

  /**
   * What the sandbox's skills would have saved in these results' runs: each run's last executed
   * script and its recorded tool calls (core/skills/savings.ts). Undefined when the sandbox has no skill.
   */
  private savings(sandbox: string, results: CaseResult[]): SkillSaving[] | undefined {
    let skills: SavingSkill[];
    try {
      skills = this.svc.skills().list(sandbox);
    } catch {
      return undefined;
    }
    if (!skills.length) return undefined;
    const runs: SavingRun[] = [];
    for (const r of results) {
      if (!r.runId) continue;
      let rec;
      try {
        rec = deriveRun(this.runs.store.events(r.runId));
      } catch {
        continue;
      }
      const last = [...rec.attempts].reverse().find((a) => a.script && a.execution);
      if (!last?.script || !last.execution) continue;
      runs.push({
        runId: r.runId,
        caseId: r.caseId,
        column: r.column,
        body: last.script.body,
        language: last.script.language,
        calls: last.execution.toolCalls,
      });
    }
    return skillSavings(skills, runs);
  }

  /** Suite runs (newest first), of one suite when given. */
  history(suite?: string, limit = 50): SuiteRunSummary[] {
    return this.store.list(suite, limit);
  }

  /** The difference from `base` to `head`; `base` defaults to the suite run before `head`. */
  compare(head: string, base?: string): SuiteComparison {
    const h = this.get(head);
    const baseId =
      base ?? this.store.list(h.suite, 500).find((r) => r.createdAt < h.createdAt && r.id !== h.id)?.id;
    if (!baseId) throw new ToolsmithError('not_found', `no earlier run of suite ${h.suite} to compare with`);
    const b = this.get(baseId);
    return {
      ...compareMatrices({ id: b.id, matrix: b.matrix }, { id: h.id, matrix: h.matrix }),
      tools: { before: b.spec.toolsHash, after: h.spec.toolsHash },
    };
  }

  close(): void {
    for (const id of this.active.keys()) this.cancel(id);
  }

  /** Cancels every suite run in flight and waits (at most `waitMs`) for each to record its end. */
  async shutdown(reason: string, waitMs = 15_000): Promise<void> {
    const dones = [...this.active.values()].flatMap((a) => (a.done ? [a.done] : []));
    for (const a of this.active.values()) {
      a.abort.abort(reason);
      for (const r of a.runIds) this.runs.cancel(r, reason);
    }
    if (dones.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(dones),
      new Promise<void>((r) => (timer = setTimeout(r, waitMs))),
    ]);
    clearTimeout(timer);
  }
}

/** A case id made from its task's first words, unique among `taken` (`-2`, `-3`... when needed). */
export function caseIdOf(task: string, taken: string[]): string {
  const base =
    task
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()
      .split(' ')
      .slice(0, 5)
      .join('-')
      .slice(0, 40)
      .replace(/-+$/, '') || 'case';
  let id = base;
  for (let n = 2; taken.includes(id); n++) id = `${base}-${n}`;
  return id;
}

import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { visible } from '../../core/text/visible.ts';
import { runsListFilter, runsListText } from '../runs-list-text.ts';
import { skillCallLine, toolCallOutcome } from '../tool-outcome.ts';
import {
  frameWhere,
  intermediatesNote,
  notAskedNote,
  notRecordedNote,
} from '../../core/sandbox/execution.ts';
import type { Command } from 'commander';
import type { LiveEvent, RunService } from '../../app/runs.ts';
import type { ToolsmithService } from '../../app/service.ts';
import { RUN_BUDGETS, RUN_KINDS, unitOf } from '../../core/records/events.ts';
import type { RunKind, RunMode } from '../../core/records/events.ts';
import type { RunRecord } from '../../core/records/records.ts';
import { RUN_SORT_KEYS } from '../../core/records/sort.ts';
import type { RunSortKey } from '../../core/records/sort.ts';
import type { ScriptLanguage } from '../../core/lang/violation.ts';
import { ToolsmithError } from '../../app/errors.ts';
import { retryLine } from '../../app/run-view.ts';
import { json, llmRequestOptions, languageArg, oneOf, parseIntOption, UsageError } from '../context.ts';
import type { CliContext } from '../context.ts';
import { onStop, signalExitCode, stopReason } from '../signals.ts';
import type { StopSignal } from '../signals.ts';
import { readInput, sandboxOf } from './validate.ts';
import { errorMessage } from '../../core/errors.ts';
import { didYouMean } from '../../core/text/near-names.ts';

/**
 * What a stagnant step means for the run: the same data as the step before forces a final step (or, on
 * the last step, ends the run); a failed step that repeats an earlier one stops the run as a loop (a
 * failed step carries no data), with no final step: the step before, or an older one after the model
 * was told to change course (A-B-A-B). A first repeat of an older step is said, and the run goes on.
 */
export function stagnantNote(step: {
  n: number;
  data?: unknown;
  stagnant: boolean;
  final: boolean;
  repeats?: number;
}): string {
  const same = (m: number) =>
    m === step.n - 1 ? 'the same failure as the step before' : `the same failure as step ${m}`;
  if (!step.stagnant)
    return step.repeats !== undefined ? ` (${same(step.repeats)}: the model is told to change course)` : '';
  if (step.data === undefined) return ` (${same(step.repeats ?? step.n - 1)}: stopped as a loop)`;
  return step.final ? ' (stagnant: no step left)' : ' (stagnant: forcing a final step)';
}

/**
 * Live progress for a terminal: one line per attempt (PLAN) or step (INTERACTIVE) milestone, on stderr,
 * each named as the run's mode counts it.
 */
export function progressPrinter(ctx: CliContext, mode: RunMode): (e: LiveEvent) => void {
  const unit = unitOf(mode);
  let tier: string | undefined;
  return (e) => {
    switch (e.type) {
      case 'tier':
        tier = e.data.tier;
        // A replay's provider is the replay itself (`replay (replay)` said nothing): its answers are the
        // recorded ones.
        ctx.err(
          tier === 'replay'
            ? `${unit} ${e.data.n}: replay (the recorded LLM answer)\n`
            : `${unit} ${e.data.n}: ${e.data.tier}${e.data.provider ? ` (${e.data.provider})` : ''}${e.data.template ? ` ${e.data.template}` : ''}${e.data.slots ? ` (${slotsText(e.data.slots)})` : ''}\n`,
        );
        break;
      case 'llm_response':
        // A replayed answer cost nothing and took no time: not "0+0 tokens, 0 ms" as if an LLM answered.
        if (tier === 'replay') {
          ctx.err(
            `  llm: recorded answer of ${visible(e.data.provider)}/${visible(e.data.model)} (no request sent)\n`,
          );
          break;
        }
        ctx.err(
          `  llm: ${e.data.promptTokens}+${e.data.completionTokens} tokens, ${e.data.latencyMs} ms${e.data.retries.length ? `, ${e.data.retries.length} retries` : ''}\n`,
        );
        break;
      case 'llm_error':
        // The endpoint's own words (redacted): its control characters are shown, not sent to the terminal.
        ctx.err(`  llm error: ${visible(e.data.message, '    ')}\n`);
        break;
      case 'llm_retry':
        ctx.err(
          `  llm retry ${e.data.attempt} (${e.data.provider}): ${visible(retryLine(e.data), '    ')}\n`,
        );
        break;
      case 'validation':
        ctx.err(
          e.data.valid
            ? '  validation: ok\n'
            : `  validation: ${e.data.violations.length} violation(s): ${e.data.violations.map((v) => `${v.line}:${v.column} ${v.rule}`).join(', ')}\n`,
        );
        break;
      case 'tool_call':
        ctx.err(
          `  tool ${visible(e.data.trace.name)}${e.data.trace.skill ? ` in skill ${visible(e.data.trace.skill)}` : ''} ${toolCallOutcome(e.data.trace, 'failed:', '    ')} (${e.data.trace.ms} ms)\n`,
        );
        break;
      case 'approval':
        ctx.err(
          `  approval of ${visible(e.data.tool)}${e.data.line ? ` (line ${e.data.line})` : ''}: ${e.data.approved ? 'approved' : `refused${e.data.reason ? ` (${visible(e.data.reason)})` : ''}`} via ${e.data.via}\n`,
        );
        break;
      case 'execution': {
        const r = e.data.result;
        // The skill calls that failed (or were cut off): which call, with what, and its exception.
        for (const c of r.skillCalls ?? []) if (c.error || c.unfinished) ctx.err(`  ${skillCallLine(c)}\n`);
        ctx.err(
          `  execution: ${r.exitReason} in ${r.durationMs} ms [${r.isolation}]${r.error ? ` — ${visible(r.error.type)}: ${visible(r.error.message, '    ')}` : ''}\n${r.isolationReason ? `  isolation ${r.isolation}: ${r.isolationReason}\n` : ''}${notRecordedNote(r) ? `  ${notRecordedNote(r)}\n` : ''}${notAskedNote(r) ? `  ${notAskedNote(r)}\n` : ''}`,
        );
        break;
      }
      case 'step':
        ctx.err(`  step ${e.data.n}: ${visible(e.data.summary, '    ')}${stagnantNote(e.data)}\n`);
        break;
      case 'template_miss':
        ctx.err(`  templates: ${visible(e.data.reason)}\n`);
        break;
      // run_finished: the summary printed when the run ends says the status (once).
      default:
        break;
    }
  };
}

export function summarizeRecord(rec: RunRecord): string {
  const lines = [
    `run ${rec.id}: ${rec.status}`,
    `task: ${visible(rec.started.task, '      ')}`,
    `sandbox: ${rec.started.sandbox}${rec.started.kit ? ` kit ${rec.started.kit}` : ''} · mode ${rec.started.mode} · tier ${rec.tier ?? '-'} · model ${rec.model ?? '-'}`,
    // Tokens where an LLM was asked; a run no LLM request served (a template, a rule, an edited script,
    // a replay) shows none rather than a misleading 0.
    rec.tokens.total > 0 || rec.attempts.some((a) => a.tier === 'llm')
      ? `tokens: ${rec.tokens.prompt} prompt + ${rec.tokens.completion} completion = ${rec.tokens.total}`
      : `tokens: — (no LLM request${rec.tier === 'replay' ? ': a replay answers from the recorded run' : ''})`,
  ];
  for (const a of rec.attempts) {
    const v = a.validation;
    const x = a.execution;
    lines.push(
      `  #${a.n} ${a.tier ?? ''}${a.template ? ` ${visible(a.template)}` : ''}${v ? (v.valid ? ' valid' : ` invalid(${v.violations.map((y) => y.rule).join(',')})`) : ''}${x ? ` ${x.exitReason}${x.error ? ` ${visible(x.error.type)}: ${visible(x.error.message, '    ')}` : ''} [${x.isolation}]` : ''}${a.step ? ` — ${visible(a.step.summary, '    ')}` : ''}`,
    );
    // Its skill calls that failed or were cut off (docs/skills.md).
    for (const c of x?.skillCalls ?? []) if (c.error || c.unfinished) lines.push(`     ${skillCallLine(c)}`);
    // A script past its bound of recorded tool calls (limits.tool_calls): what the record does not hold.
    const missing = x && notRecordedNote(x);
    if (missing) lines.push(`     ${x.toolCalls.length} tool calls recorded; ${missing}`);
    // Past its bound of approval requests (limits.approvals): calls refused without asking anyone.
    const unasked = x && notAskedNote(x);
    if (unasked) lines.push(`     ${a.approvals?.length ?? 0} approval requests recorded; ${unasked}`);
    // Past its bound of recorded intermediates (limits.intermediates): only counted.
    const unkept = x && intermediatesNote(x);
    if (unkept) lines.push(`     ${x.intermediates.length} intermediates recorded; ${unkept}`);
  }
  if (rec.result !== undefined) lines.push(`result: ${visible(JSON.stringify(rec.result))}`);
  if (rec.error) lines.push(`error: ${visible(rec.error, '  ')}`);
  return lines.join('\n') + '\n';
}

/** Slot values as `runs show` and the live progress print them: `user_id="u2", n=3`. */
export const slotsText = (slots: Record<string, unknown>): string =>
  Object.entries(slots)
    .map(([k, v]) => `${visible(k)}=${visible(JSON.stringify(v))}`)
    .join(', ');

/** Tool calls and log lines `runs show` prints per attempt (the rest are counted; `--json` has them). */
const SHOWN_PER_ATTEMPT = 20;

/**
 * A run for `runs show`: the summary, then each attempt or step whole: its script with line numbers, the
 * validation violations, every tool call with its verdict (a failed one with the tool's message), the
 * logs and the traceback with its frames. The summary alone (all `runs show` printed) named the error
 * but neither the script nor the line nor what a tool answered: inspecting a failed run took `--json`.
 */
export function describeRecord(rec: RunRecord): string {
  const unit = unitOf(rec.started.mode);
  const lines = [summarizeRecord(rec).trimEnd()];
  for (const a of rec.attempts) {
    lines.push(
      '',
      `${unit} ${a.n}${a.tier ? ` (${a.tier}${a.provider ? ` ${visible(a.provider)}` : ''})` : ''}:`,
    );
    // A template's attempt: which template, and the slot values the task matched it with (the script
    // below is the template filled with them).
    if (a.tier === 'template' && a.template)
      lines.push(`  template ${visible(a.template)}${a.slots ? ` matched with ${slotsText(a.slots)}` : ''}`);
    // Candidates of this attempt the validator rejected before the script below (a provider's first
    // answer before its correction: an answer cut at max_tokens, one with no code): it showed none.
    for (const r of a.rejected)
      lines.push(
        `  rejected ${r.script.source} script (${r.script.body.replace(/\n$/, '').split('\n').length} lines): ${r.violations.map((v) => `${visible(v.rule)}: ${visible(v.message.split('\n')[0] ?? '', '    ')}`).join('; ')}`,
      );
    if (a.script) {
      const body = a.script.body.replace(/\n$/, '').split('\n');
      const width = String(body.length).length;
      lines.push(`  script (${a.script.language}):`);
      body.forEach((l, i) => lines.push(`  ${String(i + 1).padStart(width)}  ${visible(l)}`));
    } else lines.push('  no script');
    for (const v of a.validation?.valid === false ? a.validation.violations : [])
      lines.push(`  violation line ${v.line}: ${visible(v.rule)}: ${visible(v.message, '    ')}`);
    const x = a.execution;
    if (!x) continue;
    for (const t of x.toolCalls.slice(0, SHOWN_PER_ATTEMPT))
      lines.push(
        `  tool ${visible(t.name)}(${visible(JSON.stringify(t.args))})${t.skill ? ` in skill ${visible(t.skill)}` : ''} ${toolCallOutcome(t, 'error:', '    ')}${t.refused ? ' REFUSED' : ''}`,
      );
    if (x.toolCalls.length > SHOWN_PER_ATTEMPT)
      lines.push(`  … ${x.toolCalls.length - SHOWN_PER_ATTEMPT} more tool calls (runs show --json has them)`);
    for (const l of x.logs.slice(0, SHOWN_PER_ATTEMPT)) lines.push(`  log: ${visible(l, '  log| ')}`);
    if (x.logs.length > SHOWN_PER_ATTEMPT)
      lines.push(`  … ${x.logs.length - SHOWN_PER_ATTEMPT} more logs (runs show --json has them)`);
    if (x.error) {
      lines.push(`  ${visible(x.error.type)}: ${visible(x.error.message, '    ')}`);
      for (const f of x.error.frames)
        lines.push(
          `    ${visible(frameWhere(f))}, in ${visible(f.name)}${f.text ? `: ${visible(f.text)}` : ''}`,
        );
    } else if (x.data !== undefined) lines.push(`  result: ${visible(JSON.stringify(x.data))}`);
  }
  return lines.join('\n') + '\n';
}

export function registerRun(program: Command, ctx: CliContext): void {
  llmRequestOptions(
    program
      .command('run')
      .description(
        'turn a task into a verified result: templates -> rules -> LLM, validated and run in the sandbox',
      )
      .argument('<task>', 'what to do, in words')
      .option('--sandbox <name>', "the sandbox (default: the workspace's default_sandbox, else its first)")
      .option('--kit <name>', 'only the tools of this kit')
      .option(
        '--mode <mode>',
        'plan | interactive',
        oneOf('--mode', ['plan', 'interactive'] as const),
        'plan',
      )
      .option('--lang <lang>', 'python | js | ts', languageArg('--lang'), 'python')
      .option('--provider <id>', 'a configured provider (or the id for --base-url)')
      .option('--base-url <url>', 'an OpenAI-compatible (or, with --kind anthropic, Anthropic) endpoint')
      .option(
        '--kind <kind>',
        'openai | anthropic (with --base-url)',
        oneOf('--kind', ['openai', 'anthropic'] as const),
      )
      .option('--model <model>', 'the model'),
    '; not --max-retries',
  )
    .option(
      '--max-retries <n>',
      'PLAN retries after the first attempt',
      parseIntOption('--max-retries', RUN_BUDGETS.maxRetries.min, RUN_BUDGETS.maxRetries.max),
    )
    .option(
      '--max-steps <n>',
      'INTERACTIVE steps',
      parseIntOption('--max-steps', RUN_BUDGETS.maxSteps.min, RUN_BUDGETS.maxSteps.max),
    )
    .option('--timeout <s>', 'per-script timeout in seconds (max 600)', parseIntOption('--timeout', 1, 600))
    .option('--no-templates', 'skip the template and rule tiers')
    .option('--json', 'print the final record as JSON')
    .action(
      async (
        task: string,
        o: {
          sandbox?: string;
          kit?: string;
          mode: RunMode;
          lang: ScriptLanguage;
          provider?: string;
          baseUrl?: string;
          kind?: 'openai' | 'anthropic';
          model?: string;
          timeoutMs?: number;
          retries?: number;
          maxRetries?: number;
          maxSteps?: number;
          timeout?: number;
          templates: boolean;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        if (o.kind && !o.baseUrl) throw new UsageError('--kind goes with --base-url');
        const svc = ctx.service(cmd);
        const providers = svc.settings.providersFor({
          ...(o.provider ? { provider: o.provider } : {}),
          ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
          ...(o.model ? { model: o.model } : {}),
          ...(o.kind ? { kind: o.kind } : {}),
          ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
          ...(o.retries !== undefined ? { maxRetries: o.retries } : {}),
        });
        const runs = await svc.runs();
        const started = await runs.start({
          task,
          sandbox: sandboxOf(ctx, cmd, o.sandbox),
          ...(o.kit ? { kit: o.kit } : {}),
          mode: o.mode,
          language: o.lang,
          providers,
          ...(o.maxRetries !== undefined ? { maxRetries: o.maxRetries } : {}),
          ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
          ...(o.timeout !== undefined ? { timeoutMs: o.timeout * 1000 } : {}),
          noTemplates: !o.templates,
          onEvent: progressPrinter(ctx, o.mode),
        });
        // SIGINT, SIGTERM and SIGHUP alike: cancel the run (recorded with the signal), then exit.
        let stoppedBy: StopSignal | undefined;
        const off = onStop((sig) => {
          stoppedBy = sig;
          runs.cancel(started.runId, stopReason(sig));
        });
        const outcome = await started.done.finally(off);
        const rec = runs.get(outcome.runId);
        ctx.out(o.json ? json(rec) : summarizeRecord(rec));
        ctx.exitCode = stoppedBy ? signalExitCode(stoppedBy) : outcome.status === 'succeeded' ? 0 : 1;
      },
    );
}

export function registerRuns(program: Command, ctx: CliContext): void {
  const runs = program.command('runs').description('list, inspect, export, import and replay recorded runs');
  runs
    .command('list')
    .description('list runs, newest first')
    .option(
      '--status <s>',
      'running | succeeded | failed | cancelled | interrupted',
      oneOf('--status', ['running', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const),
    )
    .option('--sandbox <name>', 'only this sandbox')
    .option(
      '--kind <k>',
      'run | template_test | skill_test | all (default run: template and skill tests are hidden)',
      oneOf('--kind', [...RUN_KINDS, 'all'] as const),
    )
    .option('--mode <mode>', 'plan | interactive', oneOf('--mode', ['plan', 'interactive'] as const))
    .option('--model <m>', 'only this model')
    .option(
      '--tier <t>',
      'template | rule | llm | replay | edit',
      oneOf('--tier', ['template', 'rule', 'llm', 'replay', 'edit'] as const),
    )
    .option('--since <date>', 'started at or after (ISO date)')
    .option('--until <date>', 'started at or before (ISO date)')
    .option('--search <text>', 'free text over task, scripts and errors')
    .option('--suite-run <id>', 'only the runs of this suite run (toolsmith eval)')
    .option('--limit <n>', 'at most this many', parseIntOption('--limit', 1, 10000), 50)
    .option(
      '--sort <column>',
      `sort by ${RUN_SORT_KEYS.join(' | ')} (default created)`,
      oneOf('--sort', RUN_SORT_KEYS),
    )
    .option(
      '--dir <dir>',
      'asc | desc (default desc for created, else asc)',
      oneOf('--dir', ['asc', 'desc'] as const),
    )
    .option('--count', 'count every matching run exactly (by default a filtered list counts up to its page)')
    .option('--json', 'print JSON')
    .action(
      async (
        o: {
          sort?: RunSortKey;
          dir?: 'asc' | 'desc';
          status?: 'running';
          sandbox?: string;
          kind?: RunKind | 'all';
          mode?: RunMode;
          model?: string;
          tier?: 'llm';
          since?: string;
          until?: string;
          search?: string;
          suiteRun?: string;
          limit: number;
          json?: boolean;
          count?: boolean;
        },
        cmd: Command,
      ) => {
        const date = (name: string, v: string | undefined) => {
          if (v === undefined) return undefined;
          const t = Date.parse(v);
          if (!Number.isFinite(t))
            throw new UsageError(`${name} must be a date (e.g. 2026-11-22), got ${JSON.stringify(v)}`);
          return t;
        };
        const from = date('--since', o.since);
        const to = date('--until', o.until);
        // An empty filter (`--suite-run "$ID"` with ID unset) listed every run: refused with every empty
        // value before any verb runs (`refuseEmptyValues`, cli/main.ts).
        // Without --suite-run, the run store alone (app/workspace-reader.ts): none of the service's
        // modules load. A suite run is resolved by the suites, which the service opens.
        let svc: ToolsmithService | undefined;
        if (o.suiteRun !== undefined) {
          await ctx.loadService();
          svc = ctx.service(cmd);
        }
        const reader = svc ? undefined : await ctx.reader(cmd);
        // (the workspace's folder and sandboxes, for a --sandbox that names none)
        const workspace = svc
          ? { root: svc.workspace.root(), sandboxNames: () => svc.workspace.sandboxNames() }
          : { root: reader!.files.root, sandboxNames: () => reader!.files.sandboxNames() };
        const store: Pick<RunService, 'list'> = svc ? await svc.runs() : await reader!.runStore();
        // A suite run id as `eval` prints it, or a unique start of one (like run ids).
        const suiteRun = svc && o.suiteRun && (await svc.suites()).resolveId(o.suiteRun);
        const r = store.list(runsListFilter(o, from, to, suiteRun || undefined));
        // A mistyped --sandbox listed "0 of 0 run(s)" and exited 0. A sandbox that is gone from the
        // workspace still lists its recorded runs; one that neither exists nor ever ran is named.
        if (
          o.sandbox !== undefined &&
          r.runs.length === 0 &&
          !workspace.sandboxNames().includes(o.sandbox) &&
          store.list({ sandbox: o.sandbox, kind: [...RUN_KINDS], limit: 1 }).runs.length === 0
        )
          throw new UsageError(
            `no sandbox ${o.sandbox} in ${workspace.root}, and no recorded run of one; ${didYouMean(o.sandbox, workspace.sandboxNames())}available: ${workspace.sandboxNames().join(', ') || 'none'}`,
          );
        // Likewise a mistyped --suite-run: "0 of 0 run(s)", exit 0, as if the suite run had recorded none
        // (`eval --compare` names the same mistake). A suite run that exists and recorded none lists none.
        if (svc && o.suiteRun !== undefined && r.runs.length === 0) (await svc.suites()).get(o.suiteRun);
        if (o.json) return ctx.out(json(r));
        ctx.out(runsListText(r));
      },
    );
  runs
    .command('show')
    .description(
      'show one run: its summary, then each attempt or step with its script, violations, tool calls, logs and traceback',
    )
    .argument('<id>', 'run id')
    .option('--json', 'print the full record as JSON')
    .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
      const rec = (await ctx.service(cmd).runs()).get(id);
      ctx.out(o.json ? json(rec) : describeRecord(rec));
    });
  runs
    .command('export')
    .description('export a run (all its events) to a JSON file, or as an OpenTelemetry trace (--otlp)')
    .argument('<id>', 'run id')
    .option('-o, --output <file>', 'write to this file (default: stdout)')
    .option(
      '--otlp [url]',
      'send the run as a trace to an OTLP/HTTP traces endpoint (default: from [telemetry] and OTEL_* variables)',
    )
    .action(async (id: string, o: { output?: string; otlp?: string | boolean }, cmd: Command) => {
      if (o.otlp !== undefined) {
        if (o.output) throw new UsageError('--otlp sends the trace to a collector; it takes no --output');
        const typed = typeof o.otlp === 'string' ? o.otlp : undefined;
        const r = await ctx
          .service(cmd)
          .runActions.exportTrace(id, typed)
          .catch(async (e: unknown) => {
            // (details.urlFrom: what named the URL, the one typed or a setting: runActions.exportTrace)
            if (!(e instanceof ToolsmithError) || e.code !== 'infra') throw e;
            const from = (e.details as { urlFrom?: unknown } | undefined)?.urlFrom;
            if (typeof from !== 'string') throw e;
            const { withTraceAdvice } = await import('../trace-advice.ts');
            throw new ToolsmithError('infra', withTraceAdvice(e.message, from, id), e.details);
          });
        for (const w of r.warnings) ctx.err(`warning: ${visible(w)}\n`);
        ctx.out(`sent run ${r.runId} as trace ${r.traceId} (${r.spans} spans) to ${r.url}\n`);
        return;
      }
      const doc = (await ctx.service(cmd).runs()).export(id);
      if (o.output) {
        const folder = dirname(resolve(o.output));
        if (!existsSync(folder))
          throw new UsageError(
            `${o.output} cannot be written: its folder ${folder} does not exist; create it or name another file`,
          );
        writeFileSync(o.output, json(doc));
        ctx.err(`exported run ${id} (${doc.events.length} events) to ${o.output}\n`);
      } else ctx.out(json(doc));
    });
  runs
    .command('recover')
    .description('recover a damaged run store: keep every run that can be read, move the damaged file aside')
    .option('--json', 'print what was recovered as JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const { recoverStore } = await import('../../infra/store/recover.ts');
      const file = join(ctx.service(cmd).workspace.dataDir(), 'runs.db');
      const r = recoverStore(file);
      ctx.out(
        o.json
          ? json({ file, ...r })
          : `recovered ${r.runs} run(s) (${r.events} events)${r.suiteRuns ? `, ${r.suiteRuns} suite run(s)` : ''}${r.templates ? `, ${r.templates} template counter(s)` : ''} into ${file}${r.lost ? `; ${r.lost} run(s) could not be read` : ''}; the damaged file is ${r.damaged}\n`,
      );
    });
  runs
    .command('import')
    .description('import a run exported elsewhere')
    .argument('<file>', 'export file, or - for standard input')
    .action(async (file: string, _o: unknown, cmd: Command) => {
      let doc: unknown;
      try {
        doc = JSON.parse(readInput(file));
      } catch (e) {
        if (e instanceof UsageError) throw e;
        // (one line: the parser quotes the text it met, line breaks and all)
        throw new UsageError(`${file} is not JSON: ${visible(errorMessage(e).replace(/\s+/g, ' '))}`);
      }
      const runs = await ctx.service(cmd).runs();
      let id: string;
      try {
        id = runs.import(doc);
      } catch (e) {
        if (e instanceof ToolsmithError) throw new ToolsmithError(e.code, `${file}: ${e.message}`);
        throw e;
      }
      // Under a new id when the file's run is in the store already (run-events.ts): say so, or the
      // person finds two identical runs in `runs list` and does not know which is which.
      const original = (doc as { events?: { runId?: unknown }[] } | null)?.events?.[0]?.runId;
      ctx.out(
        typeof original === 'string' && original !== id
          ? `imported run ${id} (a copy: run ${original} is in the store already)\n`
          : `imported run ${id}\n`,
      );
    });
  runs
    .command('replay')
    .description('replay a run from its recorded LLM outputs (no LLM request), re-running every script')
    .argument('<id>', 'run id')
    .option('--json', 'print the new record as JSON')
    .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
      const service = await ctx.service(cmd).runs();
      const source = service.get(id);
      // What is replayed, named before its progress (the id may have been a prefix); after the refusal of a
      // run with nothing to replay, which names it.
      let named = false;
      const header = () => {
        if (!named)
          ctx.err(
            `replaying run ${source.id}: ${visible(source.started.task.slice(0, 120).replace(/\n/g, ' '))}\n`,
          );
        named = true;
      };
      const progress = progressPrinter(ctx, source.started.mode);
      // (a replay runs in the mode of the run it replays)
      const r = await service.replay(source.id, (e) => {
        header();
        progress(e);
      });
      header();
      const outcome = await r.done;
      const rec = (await ctx.service(cmd).runs()).get(outcome.runId);
      const t = source.tokens;
      ctx.out(
        o.json
          ? json(rec)
          : `replay of run ${source.id}${t.total > 0 ? ` (its LLM answers: ${t.prompt} prompt + ${t.completion} completion = ${t.total} tokens${source.model ? `, model ${visible(source.model)}` : ''})` : ''}\n` +
              summarizeRecord(rec),
      );
      ctx.exitCode = outcome.status === 'succeeded' ? 0 : 1;
    });
  runs
    .command('delete')
    .description('delete a run and its events')
    .argument('<id>', 'run id')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      (await ctx.service(cmd).runs()).delete(id);
      ctx.out(`deleted run ${id}\n`);
    });
}

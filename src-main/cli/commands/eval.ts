/** `toolsmith eval SUITE`: run a test suite, print its matrix (or JSON, or JUnit XML); exit 0 only when every case meets its threshold, 1 when one fails, 3 when cases could not be judged (infrastructure errors, counted as errors, not failures). */
import { accessSync, constants, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { ToolsmithError } from '../../app/errors.ts';
import { checkSuite, mcpDownMessage } from '../../app/suites.ts';
import type { SuiteProgress, SuiteRunView } from '../../app/suites.ts';
import { SuiteFiles } from '../../infra/workspace/suite-files.ts';
import type { SuiteComparison } from '../../core/suites/matrix.ts';
import { json, llmRequestOptions, parseIntOption, UsageError } from '../context.ts';
import { onStop, signalExitCode, stopReason } from '../signals.ts';
import type { StopSignal } from '../signals.ts';
import type { CliContext } from '../context.ts';
import { errorMessage } from '../../core/errors.ts';
import { formatSaving } from '../../core/skills/savings.ts';
import { baseUrlOptionProblem } from '../../core/text/http-url.ts';
import { visible } from '../../core/text/visible.ts';
import { escapeAttr } from '../../core/tools/xml.ts';

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The matrix as text: one row per case, one column per model. */
export function formatMatrix(v: SuiteRunView): string {
  const m = v.matrix;
  const head = ['case', ...m.columns.map((c) => c.id)];
  const rows = m.cases.map((c) => [
    c,
    ...m.columns.map((col) => {
      const cell = m.cells.find((x) => x.caseId === c && x.column === col.id);
      if (!cell) return '-';
      return `${cell.meets ? 'pass' : cell.outcome === 'error' ? 'ERROR' : 'FAIL'} ${cell.passes}/${cell.runs} ${cell.attempts.toFixed(1)}att ${cell.tokens}tok ${Math.round(cell.latencyMs)}ms`;
    }),
  ]);
  const totals = [
    'total',
    ...m.totals.map(
      (t) =>
        `${t.met}/${t.cases} met, ${pct(t.passRate)} runs, ${t.tokens}tok${t.cost !== null ? ` $${t.cost.toFixed(4)}` : ''}, p50 ${Math.round(t.latencyP50)}ms`,
    ),
  ];
  const all = [head, ...rows, totals];
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((x, i) => x.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const errors = m.cells
    .filter((c) => c.outcome === 'error')
    .map(
      (c) =>
        `  ${c.caseId} @ ${c.column}: could not be judged (${c.errors} of ${c.runs} run(s) hit an infrastructure error): ${visible(c.failure ?? '', '    ')}`,
    );
  const failures = m.cells
    .filter((c) => c.outcome === 'failed')
    .map(
      // A failure is a script's error or a verdict on what it returned: its control characters shown, not acted on.
      (c) =>
        `  ${c.caseId} @ ${c.column}: ${visible(c.failure ?? 'below threshold', '    ')} (runs: ${c.runIds.join(', ')})`,
    );
  return (
    [
      `suite ${v.suite} · run ${v.id} · ${v.status} · ${m.overall.met}/${m.overall.cells} cells met${m.overall.errors ? ` · ${m.overall.errors} error(s)` : ''} · tools ${v.spec.toolsHash}`,
      line(head),
      ...rows.map(line),
      line(totals),
      ...(failures.length ? ['failures:', ...failures] : []),
      ...(errors.length ? ['errors (infrastructure, not failures):', ...errors] : []),
      ...(v.skillSavings?.length ? ['skills:', ...v.skillSavings.map((s) => `  ${formatSaving(s)}`)] : []),
    ].join('\n') + '\n'
  );
}

export function formatComparison(c: SuiteComparison): string {
  const lines = [
    `compared with ${c.base}: ${c.newFailures} new failure(s), ${c.fixed} fixed, tokens ${c.tokens.before} -> ${c.tokens.after} (${c.tokens.delta >= 0 ? '+' : ''}${c.tokens.delta}), latency p50 ${Math.round(c.latencyP50.before)} -> ${Math.round(c.latencyP50.after)} ms`,
  ];
  if (c.tools)
    lines.push(
      c.tools.before === c.tools.after
        ? `  tools.py unchanged (${c.tools.after})`
        : `  tools.py changed: ${c.tools.before} -> ${c.tools.after}`,
    );
  for (const x of c.cells)
    if (x.change === 'new_failure' || x.change === 'fixed' || x.change === 'added' || x.change === 'removed')
      lines.push(`  ${x.change.replace('_', ' ')}: ${x.caseId} @ ${x.column}`);
  return lines.join('\n') + '\n';
}

/**
 * Text as XML 1.0 character data. A failure message is a script's error or a verdict on what it
 * returned: a control character in it (ESC, NUL, ...) is no XML character, even as a reference, and made
 * the whole report unreadable to a CI's parser (every case of the suite lost). Such characters are
 * written as visible escapes (`\x1b`), as on the terminal; so are U+FFFE and U+FFFF.
 */
const xml = (s: string) =>
  escapeAttr(visible(s).replace(/[\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`));

/** JUnit XML: one testsuite per column, one testcase per case instance (its threshold over repeats). */
export function junitXml(v: SuiteRunView): string {
  const m = v.matrix;
  const suites = m.columns.map((col) => {
    const cells = m.cells.filter((c) => c.column === col.id);
    const failures = cells.filter((c) => c.outcome === 'failed').length;
    const errors = cells.filter((c) => c.outcome === 'error').length;
    const time = cells.reduce((a, c) => a + (c.latencyMs * c.runs) / 1000, 0);
    const cases = cells.map((c) => {
      const attrs = `name="${xml(c.caseId)}" classname="${xml(`${v.suite}.${col.id}`)}" time="${((c.latencyMs * c.runs) / 1000).toFixed(3)}"`;
      const props = `<system-out>${xml(`pass rate ${c.passes}/${c.runs} (threshold ${c.threshold}); runs ${c.runIds.join(' ')}`)}</system-out>`;
      if (c.outcome === 'error')
        return `    <testcase ${attrs}><error message="${xml(c.failure ?? 'infrastructure error')}" type="infrastructure">${xml(`${c.errors} of ${c.runs} run(s) could not be judged`)}</error>${props}</testcase>`;
      return c.meets
        ? `    <testcase ${attrs}>${props}</testcase>`
        : `    <testcase ${attrs}><failure message="${xml(c.failure ?? 'below threshold')}" type="suite">${xml(`passed ${c.passes} of ${c.runs}, needs ${pct(c.threshold)}`)}</failure>${props}</testcase>`;
    });
    return `  <testsuite name="${xml(`${v.suite} @ ${col.id}`)}" tests="${cells.length}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const failures = m.cells.filter((c) => c.outcome === 'failed').length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(v.suite)}" tests="${m.cells.length}" failures="${failures}" errors="${m.overall.errors}">\n${suites.join('\n')}\n</testsuites>\n`;
}

export function registerEval(program: Command, ctx: CliContext): void {
  llmRequestOptions(
    program
      .command('eval')
      .description('run a test suite (suites/NAME.toml): cases x models, pass rates, tokens, cost, latency')
      .argument('[suite]', 'the suite name (suites/NAME.toml); without one, list the suites')
      .option(
        '--models <list>',
        'comma-separated: provider ids, provider:model, or models of the first provider',
      )
      .option('--repeat <n>', 'runs per case and model', parseIntOption('--repeat', 1, 100))
      .option('--concurrency <n>', 'cases in parallel', parseIntOption('--concurrency', 1, 64))
      .option('--base-url <url>', 'an OpenAI-compatible endpoint for the models given by name'),
  )
    .option('--compare [suiteRun]', 'compare with an earlier suite run (default: the previous one)')
    .option('--json', 'print the suite run (matrix, results) as JSON')
    .option('--junit <file>', 'write JUnit XML for CI systems')
    .action(
      async (
        suite: string | undefined,
        o: {
          models?: string;
          repeat?: number;
          concurrency?: number;
          baseUrl?: string;
          timeoutMs?: number;
          retries?: number;
          compare?: string | true;
          json?: boolean;
          junit?: string;
        },
        cmd: Command,
      ) => {
        const svc = ctx.service(cmd);
        if (suite) {
          // Refuse a missing or broken suite before the sandbox pool starts.
          const files = new SuiteFiles(svc.workspaceDir);
          if (!files.exists(suite))
            throw new ToolsmithError(
              'not_found',
              `no suite ${suite} in ${files.dir}; available: ${files.names().join(', ') || 'none'}`,
            );
          // The sandbox's MCP servers are connected first: their tools are the sandbox's tools.
          const {
            suite: parsed,
            problems,
            down,
          } = await checkSuite(
            {
              scriptTools: (sandbox, kit) => svc.catalog.scriptTools(sandbox, kit),
              validateCode: (code, language, options) => svc.execution.validateCode(code, language, options),
              prepareMcp: (sandbox) => svc.prepareMcp(sandbox),
            },
            files.read(suite),
          );
          if (parsed && down.length)
            throw new ToolsmithError(
              'infra',
              `suites/${suite}.toml: ${mcpDownMessage(parsed.sandbox, down)}`,
            );
          if (problems.length)
            throw new ToolsmithError(
              'invalid_argument',
              `suites/${suite}.toml: ${problems.map((p) => `line ${p.line}: ${p.path ? `${p.path}: ` : ''}${p.message}`).join('; ')}`,
            );
        }
        const suites = await svc.suites();
        if (!suite) {
          const list = suites.list();
          ctx.out(
            o.json
              ? json(list)
              : list
                  .map(
                    (s) =>
                      `${s.name}\t${s.cases} case(s)${s.last ? `\tlast ${s.last.status} ${s.last.id}` : ''}${s.error ? `\tERROR ${s.error}` : ''}\n`,
                  )
                  .join('') || 'no suites (suites/*.toml)\n',
          );
          return;
        }
        // The JUnit file's folder is checked before any LLM call: a suite run costs tokens and minutes.
        if (o.junit) {
          const dir = dirname(resolve(o.junit));
          try {
            accessSync(dir, constants.W_OK);
          } catch {
            throw new UsageError(`--junit ${o.junit}: its folder ${dir} does not exist or cannot be written`);
          }
          if (existsSync(o.junit) && statSync(o.junit).isDirectory())
            throw new UsageError(`--junit ${o.junit} is a folder; give a file name`);
        }
        // So is the suite run to compare with: an unknown one was named only after the whole suite had
        // run, and the exit code said nothing of it (0 when every case passed).
        if (typeof o.compare === 'string') {
          const base = suites.get(o.compare);
          if (base.suite !== suite)
            throw new UsageError(`--compare ${o.compare} is a run of suite ${base.suite}, not of ${suite}`);
        }
        const baseUrlProblem = o.baseUrl && baseUrlOptionProblem(o.baseUrl);
        if (baseUrlProblem) throw new UsageError(baseUrlProblem);
        const models = o.models
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        // `--models "$MODELS"` with the variable unset: not the suite's own models without a word (a
        // whole suite of LLM calls nobody asked for).
        if (models !== undefined && models.length === 0)
          throw new UsageError(
            `--models names no model (got ${JSON.stringify(o.models)}): give provider ids, provider:model or model names, comma-separated, or leave --models out for the suite's own models`,
          );
        const tty = process.stderr.isTTY === true;
        const progress = (p: SuiteProgress) => {
          if (p.last) {
            const r = p.last;
            const what = `[${p.done}/${p.planned}] ${p.passed} passed, ${p.failed} failed, ${p.errors} error(s), ${p.running} running`;
            const verdict = r.passed ? 'pass' : r.infra !== undefined ? 'ERROR' : 'FAIL';
            if (tty) ctx.err(`\r${what} — ${r.caseId} @ ${r.column}: ${verdict}\u001b[K`);
            else
              ctx.err(
                `${what} — ${r.caseId} @ ${r.column}#${r.rep}: ${r.passed ? 'pass' : `${verdict} ${r.infra ?? r.error ?? r.verdicts.find((v) => !v.passed)?.message ?? r.status}`}\n`,
              );
          }
        };
        const started = await suites.start({
          suite,
          ...(models?.length ? { models } : {}),
          ...(o.repeat !== undefined ? { repeat: o.repeat } : {}),
          ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
          ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
          ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
          ...(o.retries !== undefined ? { maxRetries: o.retries } : {}),
          onProgress: progress,
        });
        ctx.err(`suite run ${started.suiteRun}\n`);
        // SIGINT, SIGTERM and SIGHUP alike: cancel the suite run (its running cases too), then exit.
        let stoppedBy: StopSignal | undefined;
        const off = onStop((sig) => {
          stoppedBy = sig;
          void suites.shutdown(stopReason(sig));
        });
        const view = await started.done.finally(off);
        if (tty) ctx.err('\n');
        let comparison: SuiteComparison | undefined;
        if (o.compare !== undefined) {
          try {
            comparison = suites.compare(view.id, o.compare === true ? undefined : o.compare);
          } catch (e) {
            ctx.err(`toolsmith: ${visible(errorMessage(e))}\n`);
          }
        }
        ctx.out(
          o.json
            ? json(comparison ? { ...view, comparison } : view)
            : formatMatrix(view) + (comparison ? formatComparison(comparison) : ''),
        );
        // 0 every case met; 1 a case failed; 3 no case failed but some could not be judged (infrastructure).
        ctx.exitCode = stoppedBy
          ? signalExitCode(stoppedBy)
          : view.status === 'passed'
            ? 0
            : view.status === 'error'
              ? 3
              : 1;
        // After the results are out: a file that cannot be written (its folder removed meanwhile) loses
        // only itself, and says so.
        if (o.junit)
          try {
            writeFileSync(o.junit, junitXml(view));
          } catch (e) {
            ctx.err(`toolsmith: could not write the JUnit file ${o.junit}: ${errorMessage(e)}\n`);
            if (ctx.exitCode === 0) ctx.exitCode = 3;
          }
      },
    );
}

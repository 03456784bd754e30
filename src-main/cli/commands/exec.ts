import type { Command } from 'commander';
import { languageOfFile } from '../../core/lang/validate.ts';
import type { ScriptLanguage } from '../../core/lang/violation.ts';
import type { ExecutionResult, ToolCallTrace } from '../../core/sandbox/execution.ts';
import type { JsonValue } from '../../core/tools/model.ts';
import { callShape } from '../../core/tools/call-shape.ts';
import { checkArguments } from '../../core/lang/signature.ts';
import type { LiteralType } from '../../core/lang/signature.ts';
import { json, runtimeArg, parseIntOption, UsageError } from '../context.ts';
import type { CliContext } from '../context.ts';
import { readInput, sandboxOf } from './validate.ts';
import { ToolsmithError } from '../../app/errors.ts';
import { onStop, signalExitCode, stopReason } from '../signals.ts';
import type { StopSignal } from '../signals.ts';
import { errorMessage } from '../../core/errors.ts';
import { visible } from '../../core/text/visible.ts';
import { skillCallLine, toolCallOutcome } from '../tool-outcome.ts';
import { installationContainersText, poolStatusText } from '../pool-status-text.ts';
import {
  frameWhere,
  intermediatesNote,
  notAskedNote,
  notRecordedNote,
} from '../../core/sandbox/execution.ts';

/** One line per outbound request of a tool (its sandbox's egress proxy). */
export function egressLines(t: ToolCallTrace): string[] {
  return (t.egress ?? []).map(
    (e) =>
      `    egress ${e.allowed ? 'allowed' : 'DENIED'} ${e.method} ${e.host}:${e.port}${e.status ? ` ${e.status}` : ''} · ${e.bytesOut} B out, ${e.bytesIn} B in · ${e.ms} ms${e.error ? ` · ${e.error}` : ''}${e.open ? ' (still open)' : ''}`,
  );
}

function printResult(ctx: CliContext, r: ExecutionResult): void {
  ctx.out(
    `${r.success ? 'ok' : 'FAILED'} · ${r.exitReason} · ${r.durationMs} ms · isolation ${r.isolation} · ${r.runtime}\n${r.isolationReason ? `  isolation ${r.isolation}: ${r.isolationReason}\n` : ''}`,
  );
  // Everything the script or its tools chose (names, logs, data, errors) is shown through visible():
  // control characters appear as escapes and never act on the terminal.
  // Each skill call (docs/skills.md), numbered as its tool calls' records name it, with how it ended.
  for (const c of r.skillCalls ?? []) ctx.out(`  ${skillCallLine(c)}\n`);
  if (r.skillCallsNotRecorded)
    ctx.out(`  … ${r.skillCallsNotRecorded} more skill calls not recorded (limits.tool_calls)\n`);
  for (const t of r.toolCalls)
    ctx.out(
      `  tool ${visible(t.name)}(${visible(JSON.stringify(t.args))})${t.skill ? ` in skill ${visible(t.skill)}` : ''} ${toolCallOutcome(t, 'error:', '    ')} ${t.ms} ms${t.refused ? ' REFUSED' : ''}\n${egressLines(
        t,
      )
        .map((l) => `${visible(l)}\n`)
        .join('')}`,
    );
  const missing = notRecordedNote(r);
  if (missing) ctx.out(`  … ${missing}\n`);
  const unasked = notAskedNote(r);
  if (unasked) ctx.out(`  … ${unasked}\n`);
  for (const l of r.logs) ctx.out(`  log: ${visible(l, '  log| ')}\n`);
  for (const i of r.intermediates) ctx.out(`  intermediate: ${visible(JSON.stringify(i))}\n`);
  const unkept = intermediatesNote(r);
  if (unkept) ctx.out(`  … ${unkept}\n`);
  if (r.data !== undefined) ctx.out(`result: ${visible(JSON.stringify(r.data))}\n`);
  if (r.error) {
    for (const f of r.error.frames)
      ctx.out(`  ${visible(frameWhere(f))}, in ${visible(f.name)}${f.text ? `: ${visible(f.text)}` : ''}\n`);
    ctx.out(`${visible(r.error.type)}: ${visible(r.error.message, '  ')}\n`);
  }
}

/**
 * One tool call for a person: the tool's own verdict and message, its data once, then how it ran. The
 * generated calling script's result (the same response again) and its "ok" are not repeated.
 */
function printToolCall(
  ctx: CliContext,
  name: string,
  r: { response?: { success: boolean; message?: string; data?: JsonValue }; result: ExecutionResult },
): void {
  const x = r.result;
  if (r.response) {
    ctx.out(
      `${name}: ${r.response.success ? 'ok' : 'FAILED'}${r.response.message ? ` — ${visible(r.response.message, '  ')}` : ''}\n`,
    );
    if (r.response.data !== undefined) ctx.out(`${visible(JSON.stringify(r.response.data, null, 2))}\n`);
  } else {
    ctx.out(
      `${name}: FAILED — ${x.error ? `${visible(x.error.type)}: ${visible(x.error.message, '  ')}` : x.exitReason}\n`,
    );
    for (const f of x.error?.frames ?? [])
      ctx.out(`  ${visible(frameWhere(f))}, in ${visible(f.name)}${f.text ? `: ${visible(f.text)}` : ''}\n`);
  }
  for (const l of x.logs) ctx.out(`  log: ${visible(l, '  log| ')}\n`);
  // How it ran, without "ok": the tool's verdict above is the only one.
  ctx.out(
    `  ${x.exitReason === 'ok' ? 'ran' : `exit ${x.exitReason},`} in ${x.durationMs} ms · isolation ${x.isolation} · ${x.runtime}\n`,
  );
}

export function registerExec(program: Command, ctx: CliContext): void {
  program
    .command('exec')
    .description(
      'run a script in a sandbox (validated first unless --no-validate); exit 0 on success, 1 otherwise',
    )
    .argument('<file>', 'script file, or - for standard input')
    .option(
      '--sandbox <name>',
      "the sandbox whose tools the script may call (default: the workspace's default_sandbox, else its first)",
    )
    .option('--kit <name>', 'only the tools of this kit')
    .option(
      '--runtime <runtime>',
      'python | node | bun | deno (default: from the file name, else python; never guessed from the code; bun and deno must be enabled in .toolsmith/config.toml)',
      runtimeArg('--runtime', "a script's language comes from its file name (.py, .js, .ts)"),
    )
    .option('--no-validate', 'skip the host validator (the worker still re-checks its core rules)')
    .option('--timeout <s>', 'seconds (default 300, max 600)', parseIntOption('--timeout', 1, 600))
    .option('--json', 'print the ExecutionResult as JSON')
    .action(
      async (
        file: string,
        o: {
          sandbox?: string;
          kit?: string;
          runtime?: 'python' | 'node' | 'bun' | 'deno';
          validate: boolean;
          timeout?: number;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        const body = readInput(file);
        const fromName = file === '-' ? undefined : languageOfFile(file);
        const language: ScriptLanguage =
          o.runtime === 'node' || o.runtime === 'bun' || o.runtime === 'deno'
            ? fromName === 'ts'
              ? 'ts'
              : 'js'
            : o.runtime === 'python'
              ? 'python'
              : (fromName ?? 'python');
        // A stop signal aborts the job (its container is replaced) before the process exits.
        const abort = new AbortController();
        let stoppedBy: StopSignal | undefined;
        const off = onStop((sig) => {
          stoppedBy = sig;
          abort.abort(stopReason(sig));
        });
        const r = await ctx
          .service(cmd)
          .execution.executeScript({
            signal: abort.signal,
            sandbox: sandboxOf(ctx, cmd, o.sandbox),
            ...(o.kit ? { kit: o.kit } : {}),
            language,
            ...(o.runtime ? { runtime: o.runtime } : {}),
            body,
            validate: o.validate,
            ...(o.timeout ? { timeoutMs: o.timeout * 1000 } : {}),
            reader: 'person',
          })
          .finally(off);
        if (o.json) ctx.out(json(r));
        else {
          printResult(ctx, r);
          if (!r.success && r.error && r.exitReason !== 'rejected')
            for (const h of (await import('../../app/error-hints.ts')).errorHints(
              () => ctx.service(cmd).tools.list(sandboxOf(ctx, cmd, o.sandbox)).tools,
              body,
              language,
              r.error,
            ))
              ctx.out(`hint: ${visible(h)}\n`);
        }
        ctx.exitCode = stoppedBy ? signalExitCode(stoppedBy) : r.success ? 0 : 1;
      },
    );

  const pool = program.command('pool').description('the sandbox pool');
  pool
    .command('prune')
    .description(
      "remove the containers this installation's stopped or killed Toolsmith processes left (never another installation's)",
    )
    .option('--dry-run', 'only list them')
    .option('--json', 'print JSON')
    .option(
      '--after-pid <pid>',
      'first wait until process PID has ended, then remove again until nothing is left (what `toolsmith mcp` starts when its client stops it)',
      parseIntOption('--after-pid', 1, 2 ** 31 - 1),
    )
    .action(async (o: { dryRun?: boolean; json?: boolean; afterPid?: number }) => {
      const { pruneAfterExit, pruneLeftoverContainers } = await import('../../app/prune.ts');
      let gone;
      try {
        gone =
          o.afterPid !== undefined && !o.dryRun
            ? await pruneAfterExit(o.afterPid)
            : await pruneLeftoverContainers(o.dryRun ? { dryRun: true } : {});
      } catch (e) {
        throw new ToolsmithError(
          'infra',
          `could not list the installation's containers: the Docker engine does not answer (${errorMessage(e)})`,
        );
      }
      if (o.json) return ctx.out(json({ removed: o.dryRun ? [] : gone, leftovers: gone }));
      for (const c of gone)
        ctx.out(
          `${o.dryRun ? 'leftover' : 'removed'} ${c.id.slice(0, 12)} ${c.name} sandbox ${c.sandbox || '-'} ${c.state}, made by pid ${c.ownerPid ?? '?'} at ${c.created}\n`,
        );
      ctx.out(
        gone.length
          ? `${gone.length} container(s) ${o.dryRun ? 'left by stopped processes' : 'removed'}\n`
          : 'no leftover containers\n',
      );
    });
  pool
    .command('status')
    .description(
      'Docker engine, isolation level, images and pools (warms the given sandbox first with --warm)',
    )
    .option('--warm <sandbox>', 'start the sandbox pool before reporting')
    .option('--json', 'print JSON')
    .action(async (o: { warm?: string; json?: boolean }, cmd: Command) => {
      // What the next start needs to answer before main loads (cli/pool-status-early.ts): its key taken
      // before the workspace's files are read, so a change made meanwhile misses.
      const early = o.warm === undefined ? await import('../pool-status-early.ts') : undefined;
      const dir = ctx.workspaceDir(cmd);
      const key = early?.poolStatusDigestKey(dir);
      const svc = ctx.service(cmd);
      if (o.warm)
        await svc.execution.executeScript({ sandbox: o.warm, language: 'python', body: 'emit_result(1)\n' });
      const s = await svc.system.status();
      if (early && key)
        early.keepPoolStatusDigest(dir, key, s, svc.workspace.config(), ctx.configWarningsSaid());
      if (o.json) return ctx.out(json(s));
      ctx.out(poolStatusText(s));
      const { listInstallationContainers } = await import('../../app/prune.ts');
      const all = await listInstallationContainers().catch(() => undefined);
      if (all !== undefined) ctx.out(installationContainersText(all));
    });

  const tool = program.command('tool').description('run one tool');
  tool
    .command('call')
    .description('call one tool in its sandbox and print the ToolResponse and the trace')
    .argument('<name>', 'the tool')
    .requiredOption('--sandbox <name>', 'the sandbox')
    .option('--args <json>', 'arguments as a JSON object', '{}')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { sandbox: string; args: string; json?: boolean }, cmd: Command) => {
      let args: unknown;
      try {
        args = JSON.parse(o.args);
      } catch (e) {
        throw new UsageError(`--args must be a JSON object: ${errorMessage(e)}`);
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        throw new UsageError('--args must be a JSON object');
      const svc = ctx.service(cmd);
      // The arguments against the tool's parameters before a container starts: a missing or unknown one
      // ran anyway and failed with the TypeError of the one-line script the call is made with
      // ("line 1, in <script>: r = get_user()"). MCP tools' arguments are checked against their schema.
      // (a tool above the workspace's maximum grade, or none of that name, is refused first, whatever
      // the arguments: catalog.callableTool)
      const t = svc.catalog.callableTool(o.sandbox, name);
      if (!t.mcp) {
        const given = Object.keys(args);
        const names = t.parameters.map((p) => p.name);
        const sig = t.parameters
          .map((p) => `${p.name} (${p.type}${p.required ? ', required' : ''})`)
          .join(', ');
        const missing = t.parameters.filter((p) => p.required && !given.includes(p.name)).map((p) => p.name);
        const unknown = t.varKwargs ? [] : given.filter((k) => !names.includes(k));
        if (missing.length || unknown.length)
          throw new UsageError(
            `tool ${name}: --args ${[
              ...(missing.length ? [`lacks ${missing.join(', ')}`] : []),
              ...(unknown.length ? [`has no parameter ${unknown.join(', ')}`] : []),
            ].join(' and ')}; its parameters: ${sig || 'none'}`,
          );
        // A value of the wrong type ("x" for an int) as a script's literal would be refused
        // (tool-argument-type): it reached the tool, which failed with its own TypeError.
        const shape = callShape(t, 'python');
        const wrong = shape
          ? checkArguments(name, shape, {
              positional: [],
              keywords: Object.entries(args as Record<string, JsonValue>).map(([k, v]) => ({
                name: k,
                type: jsonLiteralType(v),
              })),
            }).filter((p) => p.rule === 'tool-argument-type')
          : [];
        if (wrong.length)
          throw new UsageError(`tool ${name}: --args: ${wrong.map((p) => p.message).join('; ')}`);
      }
      const r = await svc.tools.call(o.sandbox, name, args as Record<string, JsonValue>);
      if (o.json) ctx.out(json(r));
      else printToolCall(ctx, name, r);
      ctx.exitCode = r.response?.success ? 0 : 1;
    });
}

/** A JSON value's type as a script's literal of it would have (`2` an int, `2.5` a float, null None). */
function jsonLiteralType(v: JsonValue): LiteralType {
  if (v === null) return 'none';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return Array.isArray(v) ? 'list' : 'dict';
}

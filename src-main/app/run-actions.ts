/**
 * What front ends do with a recorded run beyond the run service itself: its detail view (with the suite
 * run it belongs to), continuing it on the providers it used, and sending its trace. Built once by the
 * composition root (app/service.ts) with the plain `RunActionDeps` below.
 */
import { providerChain } from '../core/records/records.ts';
import type { LlmProvider } from '../core/ports/llm.ts';
import type { Response } from '../contract/api.ts';
import { errorMessage } from '../core/errors.ts';
import { urlWithoutCredentials } from '../core/records/redact.ts';
import { isHttpUrl } from './config.ts';
import type { ConfigDeps } from './deps.ts';
import { ToolsmithError } from './errors.ts';
import type { ProviderOverrides } from './providers.ts';
import { runDetail } from './run-view.ts';
import type { RunService, StartedRun } from './runs.ts';
import type { SuiteService } from './suites.ts';
import { otlpTarget, sendRunTrace, traceUrlFrom, typedTracesUrl } from './telemetry.ts';

export interface RunActionDeps extends ConfigDeps {
  runs(): Promise<RunService>;
  suites(): Promise<Pick<SuiteService, 'store'>>;
  /** The LLM providers a run uses (optionally overridden), with their keys (app/settings.ts). */
  providersFor(overrides?: ProviderOverrides): LlmProvider[];
}

export function runActions(deps: RunActionDeps) {
  return {
    /** A run for the detail view (prompt heads unless `prompts`, the suite run it belongs to). */
    async detail(runId: string, prompts?: boolean): Promise<Response<'runs.get'>> {
      return runDetail(await deps.runs(), (await deps.suites()).store, runId, prompts);
    },

    /**
     * Continues a run from an attempt with an edited script, on the providers as the run used them: the
     * one (and model) that wrote that attempt first, then every other that answered (see providerChain);
     * a run no provider answered goes on with the configured ones.
     */
    async continue(runId: string, attempt: number, body: string): Promise<StartedRun> {
      const runs = await deps.runs();
      const rec = runs.get(runId);
      const chain = providerChain(rec, attempt);
      const configured = new Set(deps.config.providers.map((p) => p.id));
      const usable = chain.filter((p) => configured.has(p.id));
      if (chain.length && !usable.length)
        throw new ToolsmithError(
          'not_found',
          `run ${rec.id} was answered by ${chain.map((p) => `${p.id} (${p.model})`).join(', ')}, no longer configured; configured: ${[...configured].join(', ') || 'none'}`,
        );
      const providers = usable.length
        ? usable.flatMap((p) => deps.providersFor({ provider: p.id, model: p.model }))
        : deps.providersFor();
      return runs.continueFrom(rec, attempt, body, providers);
    },

    /**
     * Sends a recorded run's trace to an OTLP/HTTP endpoint: `url` when given, else the one config.toml and
     * the OTEL_* variables name (live export need not be on). docs/telemetry.md.
     */
    async exportTrace(
      runId: string,
      typed?: string,
    ): Promise<{ runId: string; traceId: string; spans: number; url: string; warnings: string[] }> {
      // A URL the caller typed that is not one is their input to fix, not the collector failing.
      if (typed !== undefined && !isHttpUrl(typed))
        throw new ToolsmithError(
          'invalid_argument',
          `${JSON.stringify(typed)} is not an http:// or https:// URL (an OTLP/HTTP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces)`,
        );
      // A bare collector address gets /v1/traces, as the endpoint settings do.
      const url = typed === undefined ? undefined : typedTracesUrl(typed);
      const runs = await deps.runs();
      const rec = runs.get(runId);
      if (rec.status === 'running' && runs.isActive(rec.id))
        throw new ToolsmithError('refused', `run ${rec.id} is still running; its trace is sent when it ends`);
      const target = otlpTarget(deps.config);
      // The configured headers (a collector's key) belong to the configured endpoint: a URL typed for one
      // export gets none of them unless it is that endpoint (origin and path), as a provider's key is bound
      // to its URL. They went to whatever URL was typed.
      if (url && !sameEndpoint(url, target.url)) {
        const names = Object.keys(target.headers);
        if (names.length)
          target.warnings.push(
            `the configured OTLP headers (${names.join(', ')}) are for ${urlWithoutCredentials(target.url)}; they are not sent to ${urlWithoutCredentials(url)}`,
          );
        target.headers = {};
        // So is a client certificate (mTLS): it identifies this installation to its collector.
        if (target.tls?.key) {
          target.warnings.push(
            `the configured OTLP client certificate is for ${urlWithoutCredentials(target.url)}; it is not sent to ${urlWithoutCredentials(url)}`,
          );
          const { ca } = target.tls;
          target.tls = ca ? { ca } : undefined;
        }
      }
      if (url) target.url = url;
      let spans: number;
      try {
        spans = await sendRunTrace(runs.store.events(rec.id), deps.config, target);
      } catch (e) {
        // A setting that was ignored (an OTEL_* endpoint without its scheme) is often why it went astray.
        // (details: what named the URL, for a front end's way out: the URL typed, or a setting)
        throw new ToolsmithError(
          'infra',
          [errorMessage(e), ...target.warnings.map((w) => `warning: ${w}`)].join('; '),
          { urlFrom: url ? 'typed' : traceUrlFrom(deps.config) },
        );
      }
      const { traceIdOf } = await import('../infra/telemetry/run-trace.ts');
      return {
        runId: rec.id,
        traceId: traceIdOf(rec.id),
        spans,
        url: urlWithoutCredentials(target.url),
        warnings: target.warnings,
      };
    },
  };
}
export type RunActions = ReturnType<typeof runActions>;

/** Whether two traces URLs are the same endpoint: origin and path (credentials and query aside). */
function sameEndpoint(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.origin === y.origin && x.pathname.replace(/\/+$/, '') === y.pathname.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

/**
 * What `runs export ID --otlp` adds to a collector's refusal: where the address came from and what to
 * do. The message named the URL and the failure only (`the OTLP endpoint http://localhost:4318/v1/traces
 * did not take the trace: connection refused`), so a person who had configured nothing did not learn that
 * it was the default address, nor how to name another. (The workbench's Send trace says its own way
 * out, Settings › Run traces: `withTraceFix` in the renderer.)
 */

/**
 * `urlFrom`: what named the URL, as Settings › Run traces says it (`the default`, `[telemetry]
 * endpoint`, `OTEL_EXPORTER_OTLP_ENDPOINT`...), or `typed` for a URL given after `--otlp`; `runId` as the
 * command was given it (the way out repeats the command).
 */
export function withTraceAdvice(message: string, urlFrom: string, runId: string): string {
  if (!message.includes('did not take the trace')) return message;
  // A proxy that failed is named by the message itself (`the proxy URL (from $VARIABLE)`, proxyWords):
  // the collector was never reached. (Not any "proxy": a collector at http://otel-proxy:4318 is one.)
  if (/\bthe proxy \S+ \(from \$/.test(message)) return message;
  if (/HTTP 40[13]\b/.test(message))
    return `${message}. The collector asks for credentials: set [telemetry] headers (or OTEL_EXPORTER_OTLP_HEADERS), or put them in the endpoint's URL (https://user:token@host)`;
  // networkReason's words (run-trace.ts): nothing, or nothing in time, answered at that address.
  if (
    !/trace: (connection (refused|reset|timed out)|host (not found|name lookup failed|unreachable)|network unreachable|no answer)/.test(
      message,
    )
  )
    return message;
  const start = 'No collector answers there';
  const collector = 'an OpenTelemetry collector or Jaeger, OTLP/HTTP on port 4318';
  if (urlFrom === 'typed')
    return `${message}. ${start}: start one (${collector}), or check the URL after --otlp`;
  if (urlFrom === 'the default')
    return `${message}. ${start}, and it is the default address: no endpoint is configured ([telemetry] endpoint in .toolsmith/config.toml, or OTEL_EXPORTER_OTLP_ENDPOINT). Start a collector there (${collector}), configure its address, or give it after --otlp (toolsmith runs export ${runId} --otlp http://HOST:4318)`;
  return `${message}. ${start} (the address ${urlFrom} names): start that collector, correct ${urlFrom}, or give another address after --otlp`;
}

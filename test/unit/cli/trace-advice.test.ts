/**
 * `runs export ID --otlp`'s refusal says where the collector's address came from and what to do: it
 * named the URL and "connection refused" only, so a person who had configured nothing did not learn
 * that http://localhost:4318 was the default, nor how to name another collector.
 */
import { describe, expect, it } from 'vitest';
import { withTraceAdvice } from '../../../src-main/cli/trace-advice.ts';

const refused = (url: string) =>
  `the OTLP endpoint ${url}/v1/traces did not take the trace: connection refused`;

describe('withTraceAdvice', () => {
  it('the default address: says it is the default, where an address is configured, and the command with one', () => {
    expect(withTraceAdvice(refused('http://localhost:4318'), 'the default', '9a3a1896')).toBe(
      `${refused('http://localhost:4318')}. No collector answers there, and it is the default address: no endpoint is configured ([telemetry] endpoint in .toolsmith/config.toml, or OTEL_EXPORTER_OTLP_ENDPOINT). Start a collector there (an OpenTelemetry collector or Jaeger, OTLP/HTTP on port 4318), configure its address, or give it after --otlp (toolsmith runs export 9a3a1896 --otlp http://HOST:4318)`,
    );
  });

  it('a configured address names its setting; a typed one says to check it', () => {
    expect(withTraceAdvice(refused('http://c:1'), '[telemetry] endpoint', 'r1')).toBe(
      `${refused('http://c:1')}. No collector answers there (the address [telemetry] endpoint names): start that collector, correct [telemetry] endpoint, or give another address after --otlp`,
    );
    expect(withTraceAdvice(refused('http://c:1'), 'typed', 'r1')).toMatch(
      /connection refused\. No collector answers there: start one \(.*\), or check the URL after --otlp$/,
    );
    for (const reason of ['host not found', 'no answer within 10000 ms', 'connection timed out'])
      expect(
        withTraceAdvice(
          `the OTLP endpoint http://c:1/v1/traces did not take the trace: ${reason}`,
          'typed',
          'r1',
        ),
      ).toContain('No collector answers there');
  });

  it('credentials for a 401 or 403; nothing added for a failed proxy, another answer or another error', () => {
    expect(
      withTraceAdvice(
        'the OTLP endpoint http://c/v1/traces did not take the trace: HTTP 401: no',
        'the default',
        'r1',
      ),
    ).toContain('The collector asks for credentials: set [telemetry] headers');
    const proxy =
      'the OTLP endpoint http://c/v1/traces did not take the trace: cannot connect to the proxy http://127.0.0.1:9 (from $http_proxy): connection refused';
    expect(withTraceAdvice(proxy, 'the default', 'r1')).toBe(proxy);
    // A collector whose address says "proxy" is no proxy that failed: advised as any other.
    expect(
      withTraceAdvice(
        'the OTLP endpoint http://otel-proxy:4318/v1/traces did not take the trace: host not found',
        '[telemetry] endpoint',
        'r1',
      ),
    ).toContain('No collector answers there (the address [telemetry] endpoint names)');
    const other = 'the OTLP endpoint http://c/v1/traces did not take the trace: HTTP 500';
    expect(withTraceAdvice(other, 'the default', 'r1')).toBe(other);
    expect(withTraceAdvice('no run r1', 'the default', 'r1')).toBe('no run r1');
  });
});

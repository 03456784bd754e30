/**
 * The secrets a verb learns at start from its environment (redacted from what it prints and stores):
 * the variables the config names for a secret, and the OTLP headers of the environment. Apart from the
 * config's and the telemetry's modules (zod, the LLM clients), so that a verb answered before main loads
 * (`runs list`, `template list`: cli/store-verbs.ts) learns the same secrets without loading them.
 */
import type { Config } from './config.ts';
import { knownSecrets } from '../core/records/redact.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Learns header values as secrets: each whole, and the credential after its scheme (`Bearer <token>`),
 * which is what an error message or a script would echo.
 */
export function learnHeaderSecrets(values: Iterable<string>): void {
  for (const v of values) {
    knownSecrets.add(v);
    const token = /^\S+\s+(\S+)$/.exec(v.trim())?.[1];
    if (token) knownSecrets.add(token);
  }
}

/** Learns the OTLP header values of the environment (at start: the store redacts them too). */
export function learnOtelEnvSecrets(env: Env = process.env): void {
  // Every entry's value, also of one that is not sent (`Authorization: Bearer x`, written as HTTP has it).
  const values = [env.OTEL_EXPORTER_OTLP_HEADERS, env.OTEL_EXPORTER_OTLP_TRACES_HEADERS].flatMap((text) =>
    (text ?? '').split(',').flatMap((part) => {
      const i = part.search(/[=:]/);
      const v = i > 0 ? part.slice(i + 1).trim() : '';
      let decoded = v;
      try {
        decoded = decodeURIComponent(v);
      } catch {
        // kept as written
      }
      return v ? [v, decoded] : [];
    }),
  );
  learnHeaderSecrets(values);
}

/**
 * The environment variables a config names for a secret: provider key variables, sandboxes'
 * credentials, MCP servers' headers and `env:` values, telemetry headers (an `env:` prefix taken off).
 */
export function configSecretNames(config: Config): string[] {
  const names: string[] = [];
  const fromEnv = (ref: string | undefined) => {
    const name = ref?.startsWith('env:') ? ref.slice(4) : ref;
    if (name) names.push(name);
  };
  for (const p of config.providers) fromEnv(p.api_key_env);
  for (const s of Object.values(config.sandboxes))
    for (const ref of Object.values(s.credentials)) fromEnv(ref);
  for (const m of Object.values(config.mcp_servers)) {
    for (const ref of Object.values(m.headers)) fromEnv(ref);
    for (const v of Object.values(m.env)) if (v.startsWith('env:')) fromEnv(v);
  }
  for (const ref of Object.values(config.telemetry.headers)) fromEnv(ref);
  return names;
}

/** Learns the values of the variables `names` (configSecretNames) and the environment's OTLP headers. */
export function learnSecretsNamed(names: readonly string[]): void {
  for (const name of names) knownSecrets.add(process.env[name]);
  learnOtelEnvSecrets();
}

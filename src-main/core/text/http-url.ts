/**
 * URLs a person types for an HTTP endpoint (an LLM provider's `base_url`, an MCP server's `url`, an OTLP
 * endpoint): `localhost:8080/v1` is not one, though a URL parser accepts it (it reads `localhost:` as the
 * scheme), and such a value used to fail much later, on a request, with a message that never named the
 * setting. Every place such a URL enters refuses it with the words below (an OTLP endpoint, in config.ts
 * and app/telemetry.ts, with its own "with a host and port", credentials left out alike).
 */

/**
 * An absolute http(s) URL with a host. `localhost:4318` is not one (a URL parser reads `localhost:` as
 * its scheme), and neither is `127.0.0.1:4318`.
 */
export function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** A typed value as a message may quote it: `user:token@` before its host becomes `[redacted]@`. */
export const withoutUserinfo = (v: string): string =>
  v.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@\s]*@/i, '$1[redacted]@');

/**
 * Why `value` is not an http(s) URL with a host, for a message that names the setting first
 * (`providers.0.base_url: expected ...`); undefined when it is one. A value that only lacks its scheme
 * (`localhost:8080/v1`) is answered with itself written with one; otherwise `example` is offered.
 */
export function httpUrlProblem(value: string, example: string): string | undefined {
  if (isHttpUrl(value)) return undefined;
  const shown = withoutUserinfo(value);
  const fixed = !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && isHttpUrl(`http://${value}`);
  return `expected an http:// or https:// URL with a host, such as ${fixed ? `http://${shown}` : example}, got ${JSON.stringify(shown)}`;
}

/** The example an LLM provider's base URL is offered with (config.toml, a form, `--base-url`). */
export const LLM_URL_EXAMPLE = 'http://127.0.0.1:11434/v1';

/**
 * A zod refinement (`z.string().superRefine(httpUrlIssue(example))`) that adds `httpUrlProblem`'s words
 * as the issue of a value that is not an http(s) URL with a host (zod names the key before them).
 */
export const httpUrlIssue =
  (example: string) =>
  (value: string, ctx: { addIssue(issue: { code: 'custom'; message: string }): void }): void => {
    const problem = httpUrlProblem(value, example);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };

/**
 * Why an LLM endpoint's URL may not carry a user or password (`http://user:pw@host/v1`): the HTTP client
 * refuses such a URL (every request failed as "Connection error."), and the URL was quoted whole in that
 * error, the run's record and its exported trace, password included. The key goes in `api_key_env`.
 */
export function llmUrlCredentialsProblem(value: string): string | undefined {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return undefined;
  }
  if (!u.username && !u.password) return undefined;
  return `${JSON.stringify(withoutUserinfo(value))} holds a user or password: an LLM endpoint takes no credentials in its URL (the HTTP client refuses them, and the URL is recorded with the run); give the key with api_key_env in a [[providers]] table (docs: README, "LLM setup") and the URL without them`;
}

/** Why `--base-url VALUE` is refused (`--base-url: expected ...`); undefined when it is an http(s) URL. */
export function baseUrlOptionProblem(value: string): string | undefined {
  const problem = httpUrlProblem(value, LLM_URL_EXAMPLE) ?? llmUrlCredentialsProblem(value);
  return problem && `--base-url: ${problem}`;
}

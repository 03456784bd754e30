/**
 * An MCP server as the Connections form edits it, pure: the form's text fields from a declared server
 * (`KEY=value` lines for env and headers), and back to the `mcp.save` request.
 */
import type { McpServerView, Request } from '../../../../src-main/contract/api.ts';

export type SaveRequest = Request<'mcp.save'>;

export interface Draft {
  name: string;
  transport: 'stdio' | 'http';
  command: string;
  args: string;
  env: string;
  url: string;
  headers: string;
  timeoutMs: string;
  /** `startup_timeout_ms`: '' when not set (the start then has the per-request limit). */
  startupTimeoutMs: string;
  description: string;
  sandbox: string;
}

export const emptyDraft = (sandbox: string): Draft => ({
  name: '',
  transport: 'stdio',
  command: '',
  args: '',
  env: '',
  url: '',
  headers: '',
  timeoutMs: '30000',
  startupTimeoutMs: '',
  description: '',
  sandbox,
});

export const draftOf = (s: McpServerView): Draft => ({
  name: s.name,
  transport: s.transport,
  command: s.def.command ?? '',
  args: s.def.args.join('\n'),
  env: Object.entries(s.def.env)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n'),
  url: s.def.url ?? '',
  headers: Object.entries(s.def.headers)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n'),
  timeoutMs: String(s.def.timeout_ms),
  startupTimeoutMs: s.def.startup_timeout_ms === undefined ? '' : String(s.def.startup_timeout_ms),
  description: s.description,
  sandbox: s.sandboxes[0] ?? '',
});

/** `KEY=value` lines -> a record; an error names the first bad line. */
export function pairs(text: string, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`${what} line ${i + 1}: write KEY=value`);
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** The `mcp.save` request of a form; throws on a bad `KEY=value` line. */
export const saveRequest = (d: Draft): SaveRequest => ({
  name: d.name.trim(),
  ...(d.description ? { description: d.description } : {}),
  timeout_ms: Number(d.timeoutMs) || 30000,
  ...(Number(d.startupTimeoutMs) > 0 ? { startup_timeout_ms: Number(d.startupTimeoutMs) } : {}),
  ...(d.sandbox.trim() ? { sandbox: d.sandbox.trim() } : {}),
  ...(d.transport === 'stdio'
    ? {
        command: d.command.trim(),
        args: d.args.split('\n').filter((a) => a.trim() !== ''),
        env: pairs(d.env, 'env'),
      }
    : { url: d.url.trim(), headers: pairs(d.headers, 'headers') }),
});

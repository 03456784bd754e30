/**
 * The tool model the LLM reads: parameters, tools and responses. Pure data plus validation;
 * rendering lives in prompt.ts (XML) and schema.ts (JSON Schema / OpenAI function schema).
 */

export type ParamType = 'str' | 'int' | 'float' | 'bool' | 'list' | 'dict' | 'any';
export type ParamSource = 'context' | 'history' | 'all';
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A tool parameter with the nine attributes of the design. */
export interface ToolParameter {
  name: string;
  type: ParamType;
  description: string;
  /** The default value; only meaningful when `required` is false. */
  default?: JsonValue;
  required: boolean;
  /** Allowed values (an enum). */
  options?: JsonValue[];
  /** Example values shown to the LLM and used as form placeholders. */
  examples?: JsonValue[];
  /** Where the LLM should take the value from. */
  source: ParamSource;
  /** Human-readable label for forms. */
  displayName?: string;
  /** A list's item type (`list[float]`), when the annotation says it. */
  items?: ParamType;
  /** `Optional[...]`, `X | None`: the argument may be None (null). */
  nullable?: boolean;
  /**
   * How a call may pass it, when not both ways: `positional` (before `/` in the signature), `keyword`
   * (after `*` or `*args`). Absent: by position or by name.
   */
  kind?: 'positional' | 'keyword';
}

/**
 * Where a tool executes: in the sandbox (tools.py), on the host, or on an MCP server; `skill` is a
 * function saved from scripts (core/skills), run as part of the script that calls it.
 */
export type ToolLocation = 'sandbox' | 'host' | 'mcp' | 'skill';

export interface Tool {
  name: string;
  description: string;
  parameters: ToolParameter[];
  /** What the tool returns in `data`, when documented. */
  returns?: string;
  location: ToolLocation;
  /** 1-based line of the definition in its source, when known. */
  line?: number;
  /** The signature takes `*args` (any further positional arguments). */
  varArgs?: boolean;
  /** The signature takes `**kwargs` (any further keyword arguments). */
  varKwargs?: boolean;
  /** The JSON Schema of the arguments as the tool's source gave it (MCP tools); else derived from `parameters`. */
  inputSchema?: { [key: string]: JsonValue };
  /** The JSON Schema of `data` on success, when the source documents it (MCP output schemas). */
  outputSchema?: { [key: string]: JsonValue };
  /** Typed stubs for the script languages (MCP tools): Python signature/TypedDicts and a TS declaration. */
  stubs?: { python: string; ts: string };
  /** The MCP server the tool comes from and its name there (location `mcp`). */
  mcp?: { server: string; tool: string };
}

/** The uniform result of every tool call. */
export interface ToolResponse {
  success: boolean;
  /** Mandatory when success is false. */
  message?: string;
  data?: JsonValue;
}

export class ToolResponseError extends Error {
  override name = 'ToolResponseError';
}

/** Returns the path of the first non-JSON-safe value inside `value`, or undefined when it is JSON-safe. */
export function findNonJsonValue(value: unknown, path = '$', seen = new Set<object>()): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} (${String(value)})`;
  if (typeof value !== 'object') return `${path} (${typeof value})`;
  if (seen.has(value)) return `${path} (circular reference)`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const bad = findNonJsonValue(value[i], `${path}[${i}]`, seen);
        if (bad) return bad;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      return `${path} (${(value as { constructor?: { name?: string } }).constructor?.name ?? 'object'} instance)`;
    }
    for (const [k, v] of Object.entries(value)) {
      const bad = findNonJsonValue(v, `${path}.${k}`, seen);
      if (bad) return bad;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}

/** Builds a ToolResponse, enforcing the design's invariants. Throws ToolResponseError with a clear reason. */
export function toolResponse(success: boolean, message?: string, data?: unknown): ToolResponse {
  if (!success && (message === undefined || message.trim() === '')) {
    throw new ToolResponseError('a failed ToolResponse needs a message saying what went wrong');
  }
  if (data !== undefined) {
    const bad = findNonJsonValue(data);
    if (bad) throw new ToolResponseError(`ToolResponse data must be JSON-safe; ${bad} is not`);
  }
  const r: ToolResponse = { success };
  if (message !== undefined) r.message = message;
  if (data !== undefined) r.data = data as JsonValue;
  return r;
}

export const ok = (data?: unknown, message?: string): ToolResponse => toolResponse(true, message, data);
export const fail = (message: string, data?: unknown): ToolResponse => toolResponse(false, message, data);

/**
 * What a script's call of a tool may pass (core/lang/signature.ts checks calls against it), derived from
 * the tool manual's entry: a sandbox tool's or a Python skill's signature (positional-only, keyword-only,
 * `*args`, `**kwargs`, required, types); an MCP tool's input schema (keyword arguments only in Python,
 * required properties, unknown names only where `additionalProperties` is false); a JS/TS skill's
 * positional parameters. A JS/TS script passes a tool one object of named arguments.
 */
import type { CallParam, CallShape } from '../lang/signature.ts';
import type { ScriptLanguage } from '../lang/violation.ts';
import { pyParamName } from './mcp.ts';
import type { Tool, ToolParameter } from './model.ts';
import { jsToolSignature, toolSignature } from './prompt.ts';

/** What a tool of the script's language declares its parameter's type as (`any`: not checked). */
const typeOf = (p: ToolParameter): string => p.type;
/** A default of None takes None whatever the annotation says. */
const nullable = (p: ToolParameter): boolean => p.nullable === true || (!p.required && p.default === null);

/** The shape of one tool (under its script-visible name), or undefined when it cannot be known. */
export function callShape(tool: Tool, language: ScriptLanguage): CallShape | undefined {
  const python = language === 'python';
  if (tool.location === 'mcp') {
    // Types come from JSON Schemas (unions, null) the checker does not read: names and presence only.
    const params: CallParam[] = tool.parameters.map((p) => ({
      name: python ? pyParamName(p.name) : p.name,
      kind: 'keyword',
      required: p.required,
    }));
    const closed = tool.inputSchema?.['additionalProperties'] === false;
    return {
      text: !python
        ? jsToolSignature({ ...tool, varKwargs: !closed })
        : toolSignature({
            name: tool.name,
            parameters: tool.parameters.map((p) => ({
              ...p,
              name: python ? pyParamName(p.name) : p.name,
              ...(python ? { kind: 'keyword' as const } : {}),
            })),
            varKwargs: !closed,
          }),
      params,
      ...(closed ? {} : { varKwargs: true }),
      ...(python ? { keywordsOnly: 'takes keyword arguments only' } : { objectArgument: true }),
    };
  }
  if (tool.location !== 'sandbox' && tool.location !== 'skill') return undefined;
  const params: CallParam[] = tool.parameters.map((p) => ({
    name: p.name,
    kind:
      tool.location === 'skill' && !python
        ? 'positional' // a JS/TS skill is a plain function: await order_total("u1")
        : python
          ? p.kind === 'positional'
            ? 'positional'
            : p.kind === 'keyword'
              ? 'keyword'
              : 'either'
          : 'keyword', // a JS/TS call of a sandbox tool passes one object of named arguments
    required: p.required,
    type: typeOf(p),
    ...(nullable(p) ? { nullable: true } : {}),
  }));
  return {
    // The refusal quotes the call as the script's language writes it.
    text: python ? toolSignature(tool) : jsToolSignature(tool),
    params,
    ...(tool.varArgs && python ? { varArgs: true } : {}),
    ...(tool.varKwargs ? { varKwargs: true } : {}),
    ...(!python && tool.location === 'sandbox' ? { objectArgument: true } : {}),
  };
}

/** The shapes of the tools (and skills) a script may call, by script-visible name. */
export function callShapes(tools: readonly Tool[], language: ScriptLanguage): Record<string, CallShape> {
  const out: Record<string, CallShape> = {};
  for (const t of tools) {
    const s = callShape(t, language);
    // Own keys only (a tool named `constructor` must not read Object.prototype's).
    if (s) Object.defineProperty(out, t.name, { value: s, enumerable: true, writable: true });
  }
  return out;
}

/**
 * The XML the LLM reads for tools, parameters and responses. Every piece of text is escaped, so a
 * description containing `</tool>` cannot break the document.
 */
import type { JsonValue, Tool, ToolParameter, ToolResponse } from './model.ts';
import { attrs, element, escapeText } from './xml.ts';

const json = (v: JsonValue | undefined): string | undefined =>
  v === undefined ? undefined : JSON.stringify(v);

/** A parameter's type as Python spells it: `list[float]`, `str | None`. */
export const paramTypeText = (p: ToolParameter): string =>
  `${p.type}${p.type === 'list' && p.items ? `[${p.items}]` : ''}${p.nullable ? ' | None' : ''}`;

/** The script language a manual is written for: Python's signatures, or the JS/TS call. */
export type ManualLanguage = 'python' | 'js' | 'ts';

const JS_TYPES: Record<ToolParameter['type'], string> = {
  str: 'string',
  int: 'number',
  float: 'number',
  bool: 'boolean',
  list: 'unknown[]',
  dict: 'object',
  any: 'unknown',
};

/** A parameter's type as TypeScript spells it: `number[]`, `string | null`. */
export const jsParamTypeText = (p: ToolParameter): string =>
  `${p.type === 'list' && p.items && p.items !== 'any' ? `${JS_TYPES[p.items]}[]` : JS_TYPES[p.type]}${p.nullable ? ' | null' : ''}`;

/** A parameter's type in the manual of `language`. */
const typeText = (p: ToolParameter, language: ManualLanguage): string =>
  language === 'python' ? paramTypeText(p) : jsParamTypeText(p);

/** An object key as a JS script writes it: bare when it is an identifier, else quoted. */
const jsKey = (name: string): string =>
  /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);

/**
 * The call a JS/TS script writes (sandbox-images/node/worker.mjs, docs/tools.md): a tool is an async
 * function taking one object of named arguments, `check_inventory({ product_id: string, warehouse?:
 * string = "New York" })` (the default as a destructuring default would say it);
 * a tool that takes other names (`**kwargs`, an MCP tool without `additionalProperties: false`) ends in
 * `...`. A skill (a plain function saved from a JS/TS script) takes its arguments by position.
 */
export function jsToolSignature(tool: Pick<Tool, 'name' | 'parameters' | 'varKwargs' | 'location'>): string {
  const param = (p: ToolParameter, key: (n: string) => string) =>
    `${key(p.name)}${p.required ? '' : '?'}: ${jsParamTypeText(p)}${p.required || p.default === undefined ? '' : ` = ${JSON.stringify(p.default)}`}`;
  if (tool.location === 'skill')
    return `${tool.name}(${tool.parameters.map((p) => param(p, (n) => n)).join(', ')})`;
  const fields = tool.parameters.map((p) => param(p, jsKey));
  if (tool.varKwargs) fields.push('...');
  return `${tool.name}(${fields.length ? `{ ${fields.join(', ')} }` : ''})`;
}

/** A tool's signature in the manual of `language`. */
export const signatureFor = (tool: Tool, language: ManualLanguage): string =>
  language === 'python' ? toolSignature(tool) : jsToolSignature(tool);

export function parameterPrompt(p: ToolParameter, indent = '', language: ManualLanguage = 'python'): string {
  const inner = indent + '  ';
  return (
    `${indent}<parameter${attrs({ name: p.name, type: typeText(p, language), required: p.required })}>\n` +
    element('description', p.description, inner) +
    element('source', p.source, inner) +
    element('display_name', p.displayName, inner) +
    // An optional parameter with no default (a JS/TS skill's `x?: T`, an MCP tool's property without
    // one) is optional and nothing more in a JS/TS manual: a missing argument is `undefined` there, and
    // `<default>null</default>` told the model of a value it never gets. Python's call passes `None`
    // (its signature says `= None`), so its manual keeps it.
    (p.required || (p.default === undefined && language !== 'python')
      ? ''
      : element('default', json(p.default ?? null), inner)) +
    element('options', p.options && json(p.options), inner) +
    element('examples', p.examples && json(p.examples), inner) +
    `${indent}</parameter>\n`
  );
}

/**
 * Signature line shown to the LLM: `check_inventory(product_id: str, warehouse: str = "New York")`, with
 * Python's markers where the tool has them: `/` after positional-only parameters, `*` (or `*args`) before
 * keyword-only ones, `**kwargs`.
 */
export function toolSignature(tool: Pick<Tool, 'name' | 'parameters' | 'varArgs' | 'varKwargs'>): string {
  const params: string[] = [];
  let keywordOnly = false;
  tool.parameters.forEach((p, i) => {
    if (p.kind === 'keyword' && !keywordOnly) {
      keywordOnly = true;
      params.push(tool.varArgs ? '*args' : '*');
    }
    const base = `${p.name}: ${paramTypeText(p)}`;
    params.push(p.required ? base : `${base} = ${pyLiteral(p.default ?? null)}`);
    if (p.kind === 'positional' && tool.parameters[i + 1]?.kind !== 'positional') params.push('/');
  });
  if (tool.varArgs && !keywordOnly) params.push('*args');
  if (tool.varKwargs) params.push('**kwargs');
  return `${tool.name}(${params.join(', ')})`;
}

/** A JSON value written as a Python literal (used in signatures and in template slots). */
export function pyLiteral(v: JsonValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'None';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyLiteral).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}: ${pyLiteral(x)}`)
    .join(', ')}}`;
}

export function toolPrompt(tool: Tool, indent = '', language: ManualLanguage = 'python'): string {
  const inner = indent + '  ';
  const params = tool.parameters.map((p) => parameterPrompt(p, inner + '  ', language)).join('');
  return (
    `${indent}<tool${attrs({ name: tool.name, location: tool.location })}>\n` +
    element('signature', signatureFor(tool, language), inner) +
    element('description', tool.description, inner) +
    (params ? `${inner}<parameters>\n${params}${inner}</parameters>\n` : `${inner}<parameters/>\n`) +
    element('returns', tool.returns ?? 'ToolResponse with success, message and data', inner) +
    // A JS/TS manual leaves the Python stub out (the Python one keeps both, as it always has).
    (language === 'python' ? element('python_stub', tool.stubs?.python, inner) : '') +
    element('ts_stub', tool.stubs?.ts, inner) +
    `${indent}</tool>\n`
  );
}

/** The whole tools manual: `<tools>` with every tool, signatures written for `language`. */
export function toolsPrompt(tools: readonly Tool[], language: ManualLanguage = 'python'): string {
  return `<tools>\n${tools.map((t) => toolPrompt(t, '  ', language)).join('')}</tools>\n`;
}

/** A ToolResponse as the LLM sees it in an agent's history. */
export function toolResponsePrompt(r: ToolResponse, indent = ''): string {
  const inner = indent + '  ';
  return (
    `${indent}<tool_response${attrs({ success: r.success })}>\n` +
    element('message', r.message, inner) +
    (r.data === undefined ? '' : `${inner}<data>${escapeText(JSON.stringify(r.data))}</data>\n`) +
    `${indent}</tool_response>\n`
  );
}

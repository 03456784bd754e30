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

export function parameterPrompt(p: ToolParameter, indent = ''): string {
  const inner = indent + '  ';
  return (
    `${indent}<parameter${attrs({ name: p.name, type: paramTypeText(p), required: p.required })}>\n` +
    element('description', p.description, inner) +
    element('source', p.source, inner) +
    element('display_name', p.displayName, inner) +
    (p.required ? '' : element('default', json(p.default ?? null), inner)) +
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

export function toolPrompt(tool: Tool, indent = ''): string {
  const inner = indent + '  ';
  const params = tool.parameters.map((p) => parameterPrompt(p, inner + '  ')).join('');
  return (
    `${indent}<tool${attrs({ name: tool.name, location: tool.location })}>\n` +
    element('signature', toolSignature(tool), inner) +
    element('description', tool.description, inner) +
    (params ? `${inner}<parameters>\n${params}${inner}</parameters>\n` : `${inner}<parameters/>\n`) +
    element('returns', tool.returns ?? 'ToolResponse with success, message and data', inner) +
    element('python_stub', tool.stubs?.python, inner) +
    element('ts_stub', tool.stubs?.ts, inner) +
    `${indent}</tool>\n`
  );
}

/** The whole tools manual: `<tools>` with every tool. */
export function toolsPrompt(tools: readonly Tool[]): string {
  return `<tools>\n${tools.map((t) => toolPrompt(t, '  ')).join('')}</tools>\n`;
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

/**
 * MCP tools as sandbox tools: parameters, grades and typed stubs from a server's tool listing, and MCP
 * call results as ToolResponses. Pure (no SDK import): the shapes below are the MCP spec's.
 */
import type { SandboxTool } from './extract.ts';
import type { Grade } from './grade.ts';
import type { JsonValue, ParamType, ToolParameter, ToolResponse } from './model.ts';

type Schema = { [key: string]: JsonValue };

/** A tool as `tools/list` returns it. */
export interface McpToolListing {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Schema;
  outputSchema?: Schema;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** What a sandbox takes from one server (`[sandboxes.S.mcp.SERVER]`). */
export interface McpSelection {
  tools?: string[];
  aliases?: Record<string, string>;
  grade?: Grade;
  grades?: Record<string, Grade>;
}

/** A `tools/call` result. */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
export { isScriptHelperName, isScriptKeyword, scriptNameClash } from './script-names.ts';
import { PY_KEYWORDS, isScriptHelperName, isScriptKeyword, scriptNameClash } from './script-names.ts';

/**
 * A tool name as a script can call it: characters outside identifiers become `_`, and a Python or
 * JavaScript keyword (`class`, `from`, `lambda`…) or a name scripts already have (`emit_result`,
 * `search_tools`, `constructor`, `len`…) gets a trailing `_` (`class_`, `emit_result_`), the convention
 * both languages' style guides use; a name in double underscores loses them first (`__proto__` ->
 * `proto_`).
 */
export function scriptName(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_]/g, '_');
  const id = /^[0-9]/.test(s) ? `_${s}` : s;
  if (isScriptKeyword(id)) return `${id}_`;
  if (isScriptHelperName(id)) return /^__.*__$/.test(id) ? `${id.replace(/^_+|_+$/g, '')}_` : `${id}_`;
  return id;
}

/**
 * The grade from the tool's annotations (the MCP defaults apply when a hint is absent: not read-only,
 * destructive, open world): readOnlyHint -> d=0, destructiveHint false -> d=1, else d=2;
 * openWorldHint false -> w=1 (it works on the server's own data), else w=2.
 */
export function gradeFromAnnotations(a: McpToolListing['annotations']): Grade {
  const d = a?.readOnlyHint === true ? 0 : a?.destructiveHint === false ? 1 : 2;
  const w = a?.openWorldHint === false ? 1 : 2;
  return { w, d };
}

const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves a local `$ref` (`#/$defs/X`, `#/definitions/X`) against the root schema, one level at a time. */
function deref(s: Schema, root: Schema, depth = 0): Schema {
  const ref = s['$ref'];
  if (typeof ref !== 'string' || depth > 8) return s;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const target = m ? (root[m[1]!] as Schema | undefined)?.[m[2]!] : undefined;
  return isObj(target) ? deref(target, root, depth + 1) : s;
}

function typeNames(s: Schema): string[] {
  const t = s['type'];
  return typeof t === 'string'
    ? [t]
    : Array.isArray(t)
      ? t.filter((x): x is string => typeof x === 'string')
      : [];
}

function paramType(s: Schema): ParamType {
  const types = typeNames(s).filter((t) => t !== 'null');
  if (types.length !== 1)
    return Array.isArray(s['enum']) && s['enum'].every((x) => typeof x === 'string') ? 'str' : 'any';
  const map: Record<string, ParamType> = {
    string: 'str',
    integer: 'int',
    number: 'float',
    boolean: 'bool',
    array: 'list',
    object: 'dict',
  };
  return map[types[0]!] ?? 'any';
}

/** The flat parameters (name, type, required, enum, default, description) of an input schema. */
export function parametersFromSchema(input: Schema): ToolParameter[] {
  const props = isObj(input['properties']) ? input['properties'] : {};
  const required = Array.isArray(input['required']) ? input['required'] : [];
  return Object.entries(props).map(([name, raw]) => {
    const s = isObj(raw) ? deref(raw, input) : {};
    const p: ToolParameter = {
      name,
      type: paramType(s),
      description: typeof s['description'] === 'string' ? s['description'] : '',
      required: required.includes(name),
      source: 'all',
    };
    if (!p.required && s['default'] !== undefined) p.default = s['default'];
    if (Array.isArray(s['enum'])) p.options = s['enum'];
    if (Array.isArray(s['examples'])) p.examples = s['examples'];
    if (typeof s['title'] === 'string') p.displayName = s['title'];
    return p;
  });
}

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** Python type expressions for JSON Schemas; object schemas become TypedDicts collected in `defs`. */
class PyTypes {
  readonly defs: string[] = [];
  /** TypedDict bodies already written, by body: the same shape is written once. */
  private readonly bodies = new Map<string, string>();
  private readonly root: Schema;
  constructor(root: Schema) {
    this.root = root;
  }

  type(raw: unknown, hint: string): string {
    if (!isObj(raw)) return 'Any';
    const s = deref(raw, this.root);
    if (Array.isArray(s['enum']) && s['enum'].length > 0)
      return `Literal[${s['enum'].map((v) => JSON.stringify(v)).join(', ')}]`;
    for (const key of ['anyOf', 'oneOf']) {
      const alts = s[key];
      if (Array.isArray(alts))
        return [...new Set(alts.map((a, i) => this.type(a, `${hint}${i}`)))].join(' | ');
    }
    const types = typeNames(s);
    const nullable = types.includes('null');
    const parts = types.filter((t) => t !== 'null').map((t) => this.one(t, s, hint));
    if (parts.length === 0) parts.push(types.length ? 'None' : 'Any');
    if (nullable && parts[0] !== 'None') parts.push('None');
    return parts.join(' | ');
  }

  private one(t: string, s: Schema, hint: string): string {
    switch (t) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list[${this.type(s['items'], `${hint}Item`)}]`;
      case 'object': {
        if (!isObj(s['properties']) || Object.keys(s['properties']).length === 0) return 'dict[str, Any]';
        const req = Array.isArray(s['required']) ? s['required'] : [];
        const fields = Object.entries(s['properties']).map(([k, v]) => {
          const ty = this.type(v, `${hint}_${k}`);
          return [k, req.includes(k) ? ty : `NotRequired[${ty}]`] as const;
        });
        const key = JSON.stringify(fields);
        const known = this.bodies.get(key);
        if (known) return known;
        const name = pascal(hint);
        this.bodies.set(key, name);
        // Keys that are not identifiers (or are keywords, like `from`) need the functional syntax.
        const functional = fields.some(([k]) => !IDENT.test(k) || PY_KEYWORDS.has(k));
        this.defs.push(
          functional
            ? `${name} = TypedDict(${JSON.stringify(name)}, {${fields.map(([k, t]) => `${JSON.stringify(k)}: ${t}`).join(', ')}})`
            : `class ${name}(TypedDict):\n${fields.map(([k, t]) => `    ${k}: ${t}`).join('\n')}`,
        );
        return name;
      }
      default:
        return 'Any';
    }
  }
}

function pyDefault(v: JsonValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number' || typeof v === 'string') return JSON.stringify(v);
  return JSON.stringify(v)
    .replace(/\btrue\b/g, 'True')
    .replace(/\bfalse\b/g, 'False')
    .replace(/\bnull\b/g, 'None');
}

/**
 * A parameter name as a Python keyword argument: characters outside identifiers become `_` and a Python
 * keyword gets a trailing `_` (`from` -> `from_`, `x-header` -> `x_header`), as tool names are renamed.
 * TypeScript and JavaScript pass an object, whose keys need no renaming (`{ from: 1, "x-header": 2 }`).
 */
export function pyParamName(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_]/g, '_');
  const id = /^[0-9]/.test(s) || s === '' ? `_${s}` : s;
  return PY_KEYWORDS.has(id) ? `${id}_` : id;
}

/** The Python names of the parameters that need one (`from_` -> `from`), from the input schema. */
export function pyParamRenames(input: Schema): Record<string, string> {
  const props = isObj(input['properties']) ? input['properties'] : {};
  const out: Record<string, string> = {};
  for (const k of Object.keys(props)) {
    const py = pyParamName(k);
    if (py !== k && !Object.hasOwn(props, py)) out[py] = k;
  }
  return out;
}

/**
 * A call's arguments as the server names them: a Python keyword argument renamed for the stub
 * (`from_`) goes back to the schema's name (`from`); every other argument is passed as given.
 */
export function serverArgs(input: Schema, args: Record<string, JsonValue>): Record<string, JsonValue> {
  const renames = pyParamRenames(input);
  if (Object.keys(renames).length === 0) return args;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(args)) {
    const name = renames[k] !== undefined && !Object.hasOwn(args, renames[k]) ? renames[k] : k;
    Object.defineProperty(out, name, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `def name(*, a: int, b: list[Entity] = None) -> ToolResponse` with the TypedDicts it needs. */
export function pythonStub(name: string, input: Schema, description = '', output?: Schema): string {
  const py = new PyTypes(input);
  const props = isObj(input['properties']) ? input['properties'] : {};
  const required = Array.isArray(input['required']) ? input['required'] : [];
  const entries = Object.entries(props).sort(
    ([a], [b]) => Number(!required.includes(a)) - Number(!required.includes(b)),
  );
  const params = entries.map(([k, v]) => {
    const ty = py.type(v, `${name}_${k}`);
    const p = pyParamName(k);
    if (required.includes(k)) return `${p}: ${ty}`;
    const d = isObj(v) ? v['default'] : undefined;
    if (d !== undefined) return `${p}: ${ty} = ${pyDefault(d)}`;
    return /(^| )None( |$)/.test(ty) ? `${p}: ${ty} = None` : `${p}: ${ty} | None = None`;
  });
  const renamed = entries.map(([k]) => k).filter((k) => pyParamName(k) !== k);
  const note = renamed.length
    ? `  # ${renamed.map((k) => `${pyParamName(k)} is the server's ${JSON.stringify(k)}`).join('; ')}`
    : '';
  const ret = output ? `  # data: ${py.type(output, `${name}_result`)}` : '';
  const doc = description ? `\n    """${description.split('\n')[0]!.replace(/"""/g, "'''")}"""` : '';
  const sig = `def ${name}(${params.length ? `*, ${params.join(', ')}` : ''}) -> ToolResponse: ...${ret}${note}`;
  return [...py.defs, doc ? sig.replace(': ...', ':') + doc + '\n    ...' : sig].join('\n\n');
}

/** A TypeScript type for a JSON Schema (inline object types). */
export function tsType(raw: unknown, root: Schema, depth = 0): string {
  if (!isObj(raw) || depth > 6) return 'unknown';
  const s = deref(raw, root);
  if (Array.isArray(s['enum']) && s['enum'].length > 0)
    return s['enum'].map((v) => JSON.stringify(v)).join(' | ');
  for (const key of ['anyOf', 'oneOf']) {
    const alts = s[key];
    if (Array.isArray(alts)) return [...new Set(alts.map((a) => tsType(a, root, depth + 1)))].join(' | ');
  }
  const types = typeNames(s);
  if (types.length === 0) return 'unknown';
  return types
    .map((t) => {
      switch (t) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array': {
          const item = tsType(s['items'], root, depth + 1);
          return /[ |]/.test(item) ? `Array<${item}>` : `${item}[]`;
        }
        case 'object': {
          if (!isObj(s['properties']) || Object.keys(s['properties']).length === 0)
            return 'Record<string, unknown>';
          const req = Array.isArray(s['required']) ? s['required'] : [];
          const fields = Object.entries(s['properties']).map(
            ([k, v]) =>
              `${IDENT.test(k) ? k : JSON.stringify(k)}${req.includes(k) ? '' : '?'}: ${tsType(v, root, depth + 1)}`,
          );
          return `{ ${fields.join('; ')} }`;
        }
        default:
          return 'unknown';
      }
    })
    .join(' | ');
}

/** `declare function name(args: {...}): Promise<ToolResponse<...>>`. */
export function tsStub(name: string, input: Schema, output?: Schema): string {
  const data = output ? tsType(output, output) : 'unknown';
  return `declare function ${name}(args: ${tsType({ ...input, type: 'object' }, input)}): Promise<ToolResponse<${data}>>;`;
}

/**
 * The sandbox tools one server contributes to a sandbox: the selected tools under their script names
 * (aliases, else the name with non-identifier characters as `_`), graded from annotations unless the
 * selection overrides. Problems (an alias or tool the server lacks) are returned as messages.
 */
export function mcpSandboxTools(
  server: string,
  listing: readonly McpToolListing[],
  sel: McpSelection = {},
): { tools: SandboxTool[]; problems: string[] } {
  const problems: string[] = [];
  const byName = new Map(listing.map((t) => [t.name, t]));
  const wanted: { script: string; tool: McpToolListing }[] = [];
  const aliased = new Set<string>();
  for (const [alias, toolName] of Object.entries(sel.aliases ?? {})) {
    // An alias is defined in the script's namespace as the kit's are (core/kits/kit.ts): one named
    // `emit_result`, `len` or `json` replaced that name in every script of the sandbox. It is not used;
    // the tool keeps its own script name when the selection takes it.
    const clash = scriptNameClash(alias);
    if (clash) {
      problems.push(
        `alias ${alias} (for ${server}'s tool ${toolName}) is ${clash.what}: ` +
          (clash.kind === 'keyword'
            ? 'scripts could not call it'
            : 'it would replace it in every script of the sandbox') +
          `; the alias is not used, name it after what ${toolName} does`,
      );
      continue;
    }
    const t = byName.get(toolName);
    if (!t) problems.push(`alias ${alias}: server ${server} has no tool ${toolName}`);
    else {
      wanted.push({ script: alias, tool: t });
      aliased.add(toolName);
    }
  }
  const names = sel.tools ?? listing.map((t) => t.name);
  for (const n of names) {
    const t = byName.get(n);
    if (!t) {
      problems.push(`server ${server} has no tool ${n}; it has: ${listing.map((x) => x.name).join(', ')}`);
      continue;
    }
    if (!aliased.has(n) || sel.tools?.includes(n)) wanted.push({ script: scriptName(n), tool: t });
  }
  const tools = wanted.map(({ script, tool }) => {
    const output = tool.outputSchema;
    const given = tool.description ?? tool.title ?? tool.annotations?.title ?? '';
    // A keyword renamed for scripts says which tool it calls, so the manual shows both names.
    const description =
      script !== tool.name && (isScriptKeyword(tool.name) || isScriptHelperName(tool.name))
        ? `${given}${given ? ' ' : ''}(the server's tool \`${tool.name}\`; \`${tool.name}\` is ${isScriptKeyword(tool.name) ? 'a keyword' : 'already a name'} in scripts)`
        : given;
    const st: SandboxTool = {
      name: script,
      description,
      parameters: parametersFromSchema(tool.inputSchema),
      location: 'mcp',
      // Own keys only: a tool named `constructor` or `toString` must not read Object.prototype's.
      grade:
        (sel.grades && Object.hasOwn(sel.grades, tool.name) ? sel.grades[tool.name] : undefined) ??
        sel.grade ??
        gradeFromAnnotations(tool.annotations),
      inputSchema: tool.inputSchema,
      stubs: {
        python: pythonStub(script, tool.inputSchema, description, output),
        ts: tsStub(script, tool.inputSchema, output),
      },
      mcp: { server, tool: tool.name },
    };
    if (output) {
      st.outputSchema = output;
      st.returns = `data: ${tsType(output, output)}`;
    }
    return st;
  });
  return { tools, problems };
}

/** JSON-safe copy of an unknown value (undefined and functions dropped, like JSON.stringify). */
const jsonSafe = (v: unknown): JsonValue => JSON.parse(JSON.stringify(v ?? null)) as JsonValue;

function contentValue(item: unknown): JsonValue {
  if (!isObj(item)) return jsonSafe(item);
  if (item['type'] === 'text' && typeof item['text'] === 'string') {
    const text = item['text'];
    const t = text.trim();
    if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
      try {
        return JSON.parse(t) as JsonValue;
      } catch {
        return text;
      }
    }
    return text;
  }
  return jsonSafe(item);
}

/**
 * A `tools/call` result as a ToolResponse: `structuredContent` when present, else the content (one item:
 * its text, parsed when it is JSON; several: a list); `isError` -> success false with the text as message.
 */
export function mcpResultToResponse(r: McpCallResult): ToolResponse {
  const content = Array.isArray(r.content) ? r.content : [];
  const text = content
    .filter((c): c is Schema => isObj(c) && c['type'] === 'text' && typeof c['text'] === 'string')
    .map((c) => c['text'] as string)
    .join('\n');
  if (r.isError) {
    const out: ToolResponse = { success: false, message: text.trim() || 'the MCP tool reported an error' };
    if (r.structuredContent !== undefined) out.data = jsonSafe(r.structuredContent);
    return out;
  }
  if (r.structuredContent !== undefined) return { success: true, data: jsonSafe(r.structuredContent) };
  if (content.length === 0) return { success: true };
  if (content.length === 1) return { success: true, data: contentValue(content[0]) };
  return { success: true, data: content.map(contentValue) };
}

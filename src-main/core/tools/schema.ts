/** JSON Schema and the flat OpenAI function schema for tools. */
import type { JsonValue, ParamType, Tool } from './model.ts';

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  title?: string;
  default?: JsonValue;
  enum?: JsonValue[];
  examples?: JsonValue[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

const JSON_TYPES: Record<ParamType, string | undefined> = {
  str: 'string',
  int: 'integer',
  float: 'number',
  bool: 'boolean',
  list: 'array',
  dict: 'object',
  any: undefined,
};

/** JSON Schema of a tool's arguments object. */
export function parametersSchema(tool: Tool): JsonSchema {
  if (tool.inputSchema) {
    const { $schema: _drop, ...rest } = tool.inputSchema;
    return rest;
  }
  const properties: Record<string, JsonSchema> = {};
  for (const p of tool.parameters) {
    const s: JsonSchema = {};
    const t = JSON_TYPES[p.type];
    // Optional[...] is a nullable type (OpenAI strict mode needs it spelled: ["number", "null"]).
    if (t) s.type = p.nullable ? [t, 'null'] : t;
    const item = p.items ? JSON_TYPES[p.items] : undefined;
    if (p.type === 'list' && item) s.items = { type: item };
    if (p.description) s.description = p.description;
    if (p.displayName) s.title = p.displayName;
    if (!p.required && p.default !== undefined) s.default = p.default;
    if (p.options) s.enum = p.options;
    if (p.examples) s.examples = p.examples;
    properties[p.name] = s;
  }
  return {
    type: 'object',
    properties,
    required: tool.parameters.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

/** Full JSON Schema document for one tool. */
export function toolJsonSchema(tool: Tool): JsonSchema & { $schema: string } {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: tool.name,
    description: tool.description,
    ...parametersSchema(tool),
  };
}

/** The flat OpenAI function schema: top-level name, description, parameters — no nested wrapper. */
export interface OpenAiFunctionSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export function openAiFunctionSchema(tool: Tool): OpenAiFunctionSchema {
  return { name: tool.name, description: tool.description, parameters: parametersSchema(tool) };
}

import { describe, expect, it } from 'vitest';
import type { Tool, ToolParameter } from '../../../../src-main/core/tools/model.ts';
import { parametersSchema } from '../../../../src-main/core/tools/schema.ts';
import type { JsonSchema } from '../../../../src-main/core/tools/schema.ts';
import {
  checkTry,
  errorSummary,
  initialTry,
  MAX_KEPT_OUTCOME,
  outcomeToKeep,
  restoreOutcome,
  restoreTry,
  tryReducer,
} from './try-tool.ts';
import type { CallResult } from './try-tool.ts';

const param = (name: string, over: Partial<ToolParameter> = {}): ToolParameter =>
  ({ name, type: 'str', description: '', required: true, source: 'user', ...over }) as ToolParameter;
const schemaOf = (parameters: ToolParameter[]) =>
  parametersSchema({ name: 't', description: '', parameters } as unknown as Tool);

/** An MCP tool's inputSchema: an array of objects that hold an array of strings. */
const entities: JsonSchema = {
  type: 'object',
  required: ['entities'],
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'observations'],
        properties: {
          name: { type: 'string' },
          observations: { type: 'array', items: { type: 'string' } },
          weight: { type: 'number' },
        },
      },
    },
  },
};

describe('the Try tool state', () => {
  it('starts each field empty, from the tool parameters as JSON Schema', () => {
    expect(initialTry(schemaOf([param('id'), param('unit', { options: ['C', 'F'] })]))).toEqual({
      values: { id: '', unit: '' },
      errors: {},
    });
    expect(initialTry(entities)).toEqual({ values: { entities: [] }, errors: {} });
  });

  it('editing a field clears its errors and the errors inside it only', () => {
    let s = initialTry(entities);
    s = tryReducer(s, { type: 'field', name: 'entities', value: [] });
    s = tryReducer(s, {
      type: 'checked',
      errors: { 'entities[0].name': 'required', entitiesX: 'other' },
    });
    s = tryReducer(s, { type: 'field', name: 'entities', value: [{ name: 'Ada', observations: [] }] });
    expect(s.errors).toEqual({ entitiesX: 'other' });
  });

  it('checks nested arrays and objects, naming the path of each bad value', () => {
    const bad = checkTry(entities, {
      entities: [
        { name: '', observations: ['writes compilers'], weight: 'heavy' },
        { name: 'Bob', observations: [''] },
      ],
    });
    expect(bad.errors).toEqual({
      'entities[0].name': 'required',
      'entities[0].weight': expect.stringContaining('expects a number'),
      'entities[1].observations[0]': 'required',
    });
    const ok = checkTry(entities, {
      entities: [{ name: 'Ada', observations: ['writes compilers'], weight: '' }],
    });
    expect(ok).toEqual({
      args: { entities: [{ name: 'Ada', observations: ['writes compilers'] }] },
      errors: {},
    });
  });

  it('tools.py parameters: options, Optional None, list item types and left-out optional fields', () => {
    const schema = schemaOf([
      param('unit', { options: ['C', 'F'] }),
      param('limit', { type: 'int', required: false, nullable: true }),
      param('sizes', { type: 'list', items: 'float', required: false }),
      param('note', { required: false }),
    ]);
    expect(checkTry(schema, { unit: '"F"', limit: 'None', sizes: ['2.5', '3'], note: '' })).toEqual({
      args: { unit: 'F', limit: null, sizes: [2.5, 3] },
      errors: {},
    });
    expect(checkTry(schema, { unit: '', limit: 'ten', sizes: ['x'], note: '' }).errors).toEqual({
      unit: 'required',
      limit: expect.stringContaining('integer'),
      'sizes[0]': expect.stringContaining('number'),
    });
  });

  it('a call shows its outcome with the arguments sent; a failed call shows none', () => {
    const call = { response: { success: true, data: 1 } } as unknown as CallResult;
    let s = tryReducer(initialTry(entities), { type: 'called', call, args: { id: 'u1' }, at: 1700000000000 });
    expect(s.outcome).toEqual({ call, args: { id: 'u1' }, at: 1700000000000 });
    s = tryReducer(s, { type: 'callFailed' });
    expect(s.outcome).toBeUndefined();
  });

  it('a form kept across a reload comes back with what was typed; a tool changed since or junk does not', () => {
    const schema = schemaOf([param('user_id'), param('limit', { type: 'int', required: false })]);
    const typed = tryReducer(initialTry(schema), { type: 'field', name: 'user_id', value: 'nobody' });
    expect(restoreTry(schema, JSON.stringify(typed.values)).values['user_id']).toBe('nobody');
    // A parameter the tool no longer has, a value that is no draft, and a kept text that is no JSON.
    const changed = restoreTry(schema, JSON.stringify({ gone: 'x', user_id: 7, limit: '5' }));
    expect(changed.values).toEqual({ ...initialTry(schema).values, limit: '5' });
    expect(restoreTry(schema, '{not json')).toEqual(initialTry(schema));
    expect(restoreTry(schema, undefined)).toEqual(initialTry(schema));
  });

  it("the last call's outcome kept across a reload comes back as an earlier call's, with its time; junk does not", () => {
    const schema = schemaOf([param('user_id')]);
    const call = {
      response: { success: true, data: { name: 'Ada' } },
      result: { exitReason: 'ok', toolCalls: [], logs: [], durationMs: 5 },
    } as unknown as CallResult;
    const fresh = tryReducer(initialTry(schema), {
      type: 'called',
      call,
      args: { user_id: 'u1' },
      at: 1700000000000,
    });
    expect(fresh.outcome?.earlier).toBeUndefined();
    const kept = outcomeToKeep(fresh.outcome!);
    expect(restoreTry(schema, undefined, kept).outcome).toEqual({
      call,
      args: { user_id: 'u1' },
      at: 1700000000000,
      earlier: true,
    });
    // (kept again, it is not marked earlier in the storage)
    expect(JSON.parse(outcomeToKeep(restoreTry(schema, undefined, kept).outcome!)!)).not.toHaveProperty(
      'earlier',
    );
    // With the form kept too, both come back.
    const both = restoreTry(schema, JSON.stringify({ user_id: 'u1' }), kept);
    expect(both.values['user_id']).toBe('u1');
    expect(both.outcome?.at).toBe(1700000000000);
    // Junk, another shape, and no time: no outcome.
    for (const junk of [
      '{not json',
      '[]',
      JSON.stringify({ call, args: {} }),
      JSON.stringify({ call: {}, args: {}, at: 1 }),
    ])
      expect(restoreOutcome(junk)).toBeUndefined();
    expect(restoreTry(schema, undefined, '{not json')).toEqual(initialTry(schema));
    // Too large to keep: none is.
    const huge = {
      ...fresh.outcome!,
      call: { ...call, result: { ...call.result, logs: ['x'.repeat(MAX_KEPT_OUTCOME)] } },
    };
    expect(outcomeToKeep(huge as typeof fresh.outcome & object)).toBeUndefined();
  });

  it('counts the fields to fix', () => {
    expect(errorSummary({})).toBeUndefined();
    expect(errorSummary({ a: 'x' })).toBe('Fix 1 field before calling.');
    expect(errorSummary({ a: 'x', b: 'y' })).toBe('Fix 2 fields before calling.');
  });
});

/**
 * Issue 10: schemas keep `list[float]` item types and `Optional[...]` nullability, and the Try tool form
 * refuses `["a"]` for a `list[float]` parameter.
 */
import { describe, expect, it } from 'vitest';
import { extractTools } from '../../../src-main/core/tools/extract.ts';
import { toolSignature } from '../../../src-main/core/tools/prompt.ts';
import { openAiFunctionSchema, parametersSchema } from '../../../src-main/core/tools/schema.ts';
import { checkTry } from '../../../src-renderer/src/views/tools/try-tool.ts';

const SRC = `
@tool(grade=(0, 0))
def stats(values: list[float], weights: Optional[List[int]] = None, label: str | None = None, tags: list = []) -> ToolResponse:
    """Weighted mean.

    Args:
        values: The numbers.
        weights: One weight per number.
        label: A name for the result.
        tags: Anything.
    """
    return ToolResponse(success=True, data=0)
`;
const [tool] = extractTools(SRC).tools;
if (!tool) throw new Error('no tool extracted');

describe('tool schemas', () => {
  it('list[float] keeps its item type; a bare list has none', () => {
    const p = openAiFunctionSchema(tool).parameters.properties ?? {};
    expect(p['values']).toMatchObject({ type: 'array', items: { type: 'number' } });
    expect(p['tags']?.items).toBeUndefined();
  });

  it('Optional[...] and X | None are nullable types', () => {
    const p = openAiFunctionSchema(tool).parameters.properties ?? {};
    expect(p['weights']).toMatchObject({ type: ['array', 'null'], items: { type: 'integer' } });
    expect(p['label']).toMatchObject({ type: ['string', 'null'] });
    expect(p['values']?.type).toBe('array');
  });

  it('the signature the LLM reads says so too', () => {
    expect(toolSignature(tool)).toBe(
      'stats(values: list[float], weights: list[int] | None = None, label: str | None = None, tags: list = [])',
    );
  });
});

describe('Try tool form (from the JSON Schema)', () => {
  const schema = parametersSchema(tool);

  it('refuses "a" as an item of list[float], accepts numbers', () => {
    expect(checkTry(schema, { values: ['1', 'a'] }).errors).toEqual({
      'values[1]': 'expects a number (e.g. 2.5), got "a"',
    });
    expect(checkTry(schema, { values: ['1', '2.5'] })).toEqual({ args: { values: [1, 2.5] }, errors: {} });
  });

  it('list[int] refuses 1.5; an Optional parameter left empty is left to its default None; X | None takes None', () => {
    expect(checkTry(schema, { values: [], weights: ['1', '1.5'] }).errors['weights[1]']).toMatch(/integer/);
    expect(checkTry(schema, { values: [], weights: [], label: 'None' })).toEqual({
      args: { values: [], label: null },
      errors: {},
    });
  });
});

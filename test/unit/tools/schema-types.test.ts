/**
 * Issue 10: schemas keep `list[float]` item types and `Optional[...]` nullability, and the Try tool form
 * refuses `["a"]` for a `list[float]` parameter.
 */
import { describe, expect, it } from 'vitest';
import { extractTools } from '../../../src-main/core/tools/extract.ts';
import { toolSignature } from '../../../src-main/core/tools/prompt.ts';
import { openAiFunctionSchema } from '../../../src-main/core/tools/schema.ts';
import { checkForm, coerceParam } from '../../../src-renderer/src/views/tools/coerce.ts';

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

describe('Try tool form', () => {
  const values = tool.parameters.find((p) => p.name === 'values');
  const weights = tool.parameters.find((p) => p.name === 'weights');
  if (!values || !weights) throw new Error('parameters missing');

  it('refuses ["a"] for list[float], accepts numbers', () => {
    expect(coerceParam(values, '["a"]')).toEqual({
      ok: false,
      error: 'expects a list of numbers (list[float]); item 1 is "a"',
    });
    expect(coerceParam(values, '[1, 2.5]')).toEqual({ ok: true, value: [1, 2.5] });
    const form = checkForm(tool.parameters, { values: { kind: 'text', text: '[1, "x"]' } });
    expect(form.errors['values']).toMatch(/item 2 is "x"/);
  });

  it('list[int] refuses 1.5; an Optional parameter takes None', () => {
    expect(coerceParam(weights, '[1, 1.5]').ok).toBe(false);
    expect(coerceParam(weights, 'None')).toEqual({ ok: true, value: null });
    expect(coerceParam(values, 'None').ok).toBe(false);
  });
});

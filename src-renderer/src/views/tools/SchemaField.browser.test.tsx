import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import type { JsonSchema } from '../../../../src-main/core/tools/schema.ts';
import { draftToJson, initialDraft } from './schema-form.ts';
import type { Draft } from './schema-form.ts';
import { SchemaField } from './SchemaField.tsx';

const schema: JsonSchema = {
  type: 'object',
  required: ['customer'],
  properties: {
    customer: { type: 'string' },
    priority: { enum: ['low', 'high'] },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sku', 'qty'],
        properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
      },
    },
  },
};

/** The form on the real conversion: the arguments (or errors) it would send, shown as JSON. */
function Harness() {
  const [draft, setDraft] = useState<Draft>(initialDraft(schema));
  const r = draftToJson(schema, draft);
  return (
    <form>
      <SchemaField
        name="arguments"
        path=""
        schema={schema}
        draft={draft}
        required
        errors={r.errors}
        onChange={setDraft}
      />
      <output data-testid="args">{JSON.stringify(r.value ?? r.errors)}</output>
    </form>
  );
}

describe('a tool form rendered from JSON Schema', () => {
  it('fills nested arrays of objects and sends typed arguments', async () => {
    const s = await render(<Harness />);
    await expect.element(s.getByTestId('args')).toHaveTextContent('{"customer":"required"}');
    await s.getByLabelText('customer', { exact: true }).fill('u4');
    await s.getByLabelText('priority', { exact: true }).selectOptions('high');
    await s.getByRole('button', { name: 'add to items' }).click();
    await s.getByLabelText('items[0].sku', { exact: true }).fill('A-1');
    await expect.element(s.getByTestId('args')).toHaveTextContent('{"items[0].qty":"required"}');
    await s.getByLabelText('items[0].qty', { exact: true }).fill('2');
    await expect
      .element(s.getByTestId('args'))
      .toHaveTextContent('{"customer":"u4","priority":"high","items":[{"sku":"A-1","qty":2}]}');
  });

  it('shows a bad value at its field, and Remove takes the item out', async () => {
    const s = await render(<Harness />);
    await s.getByLabelText('customer', { exact: true }).fill('u4');
    await s.getByRole('button', { name: 'add to items' }).click();
    await s.getByLabelText('items[0].sku', { exact: true }).fill('A-1');
    await s.getByLabelText('items[0].qty', { exact: true }).fill('two');
    await expect
      .element(s.getByLabelText('items[0].qty', { exact: true }))
      .toHaveAttribute('aria-invalid', 'true');
    await expect.element(s.getByText(/^expects an integer/)).toBeVisible();
    await s.getByRole('button', { name: 'remove items[0]' }).click();
    await expect.element(s.getByTestId('args')).toHaveTextContent('{"customer":"u4"}');
  });
});

import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { PatternEditor } from './PatternEditor.tsx';
import type { PatternParts } from './pattern.ts';

/** The editor on its own state, reporting every change. */
function Harness({ initial, onChange }: { initial: PatternParts; onChange?: (p: PatternParts) => void }) {
  const [value, setValue] = useState(initial);
  return (
    <PatternEditor
      value={value}
      onChange={(p) => {
        setValue(p);
        onChange?.(p);
      }}
    />
  );
}

describe('PatternEditor', () => {
  it('an untyped slot is warned about and "Make it str" types it', async () => {
    const onChange = vi.fn();
    const screen = await render(
      <Harness
        initial={{ pattern: 'user {id} in {city}', slots: { id: 'int' }, body: '{{id}} {{city}}' }}
        onChange={onChange}
      />,
    );
    await expect.element(screen.getByText('has no type.', { exact: false })).toBeInTheDocument();
    await screen.getByRole('button', { name: 'Make it str' }).click();
    expect(onChange).toHaveBeenLastCalledWith({
      pattern: 'user {id} in {city}',
      slots: { id: 'int', city: 'str' },
      body: '{{id}} {{city}}',
    });
    await expect
      .element(screen.getByText('Every slot of the pattern has a type, and the body uses only slots.'))
      .toBeInTheDocument();
  });

  it('a slot left open (no closing brace) is named in the warnings, with how to write one', async () => {
    const screen = await render(
      <Harness initial={{ pattern: 'What is the name of {user_id: str', slots: {}, body: 'x' }} />,
    );
    const warnings = screen.getByRole('list', { name: 'pattern warnings' });
    await expect.element(warnings.getByText('{user_id: str', { exact: true })).toBeInTheDocument();
    const text = warnings.element().textContent;
    expect(text).toContain('{user_id: str has no closing }: it is plain text, not a slot.');
    expect(text).toContain('Write a slot as {name} and choose its type below.');
  });

  it('a slot renamed in the pattern offers the rename everywhere (type and body)', async () => {
    const onChange = vi.fn();
    const screen = await render(
      <Harness
        initial={{ pattern: 'user {uid}', slots: { id: 'str' }, body: 'get({{id}})' }}
        onChange={onChange}
      />,
    );
    await screen.getByRole('button', { name: 'Rename id to uid (type and body)' }).click();
    expect(onChange).toHaveBeenLastCalledWith({
      pattern: 'user {uid}',
      slots: { uid: 'str' },
      body: 'get({{uid}})',
    });
  });

  it('the rename cell renames a slot in all three, and refuses a name that is not a slot name', async () => {
    const onChange = vi.fn();
    const screen = await render(
      <Harness
        initial={{ pattern: 'user {id}', slots: { id: 'str' }, body: 'get({{id}})' }}
        onChange={onChange}
      />,
    );
    await screen.getByLabelText('rename id').fill('9x');
    await expect.element(screen.getByRole('button', { name: 'Rename', exact: true })).toBeDisabled();
    await screen.getByLabelText('rename id').fill('user_id');
    await screen.getByRole('button', { name: 'Rename', exact: true }).click();
    expect(onChange).toHaveBeenLastCalledWith({
      pattern: 'user {user_id}',
      slots: { user_id: 'str' },
      body: 'get({{user_id}})',
    });
    await expect.element(screen.getByTestId('pattern-preview')).toHaveTextContent('user {user_id: str}');
  });

  it('choosing "no type" drops the type; a body slot outside the pattern is named', async () => {
    const onChange = vi.fn();
    const screen = await render(
      <Harness
        initial={{ pattern: 'user {id}', slots: { id: 'str' }, body: '{{id}} {{zone}}' }}
        onChange={onChange}
      />,
    );
    await expect
      .element(screen.getByText('which is not a slot of the pattern.', { exact: false }))
      .toBeInTheDocument();
    await screen.getByLabelText('type of id').selectOptions('int');
    expect(onChange).toHaveBeenLastCalledWith({
      pattern: 'user {id}',
      slots: { id: 'int' },
      body: '{{id}} {{zone}}',
    });
    await screen.getByLabelText('type of id').selectOptions('— no type —');
    expect(onChange).toHaveBeenLastCalledWith({ pattern: 'user {id}', slots: {}, body: '{{id}} {{zone}}' });
  });
});

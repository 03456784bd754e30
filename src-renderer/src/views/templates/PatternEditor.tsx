/**
 * The intent pattern of a template and its slot types: shows which `{slot}` placeholders the pattern
 * has, warns when a slot of the pattern has no type (or a typed slot is not in the pattern, or the body
 * uses a `{{slot}}` the pattern lacks), and offers the fixes: add a type, drop a type, rename a slot in
 * the pattern, the types and the body at once.
 */
import { Fragment, useState } from 'react';
import type { SlotType } from '../../../../src-main/core/templates/template.ts';
import { analysePattern, bodySlots, renameSlot, SLOT_NAME, SLOT_TYPES } from './pattern.ts';
import type { PatternParts } from './pattern.ts';
import { FormRow } from '../../components/FormRow.tsx';

function PatternPreview({ pattern, slots }: { pattern: string; slots: Record<string, SlotType> }) {
  const parts: React.ReactNode[] = [];
  let last = 0;
  for (const m of pattern.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    const name = m[1] as string;
    parts.push(pattern.slice(last, m.index));
    parts.push(
      <span
        key={`${m.index}`}
        className={`slot ${slots[name] ? '' : 'untyped'}`}
        title={slots[name] ? `${name}: ${slots[name]}` : `${name} has no type`}
      >
        {`{${name}${slots[name] ? `: ${slots[name]}` : ''}}`}
      </span>,
    );
    last = (m.index ?? 0) + m[0].length;
  }
  parts.push(pattern.slice(last));
  return (
    <div className="pattern-preview small" data-testid="pattern-preview">
      {parts.map((p, i) => (
        <Fragment key={i}>{p}</Fragment>
      ))}
    </div>
  );
}

function RenameCell({ name, onRename }: { name: string; onRename: (to: string) => void }) {
  const [to, setTo] = useState('');
  const valid = SLOT_NAME.test(to) && to !== name;
  return (
    <span className="row-actions">
      <input
        aria-label={`rename ${name}`}
        value={to}
        placeholder="new name"
        size={12}
        onChange={(e) => setTo(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && valid) {
            e.preventDefault();
            onRename(to);
            setTo('');
          }
        }}
      />
      <button
        type="button"
        disabled={!valid}
        title={to && !valid ? 'letters, digits and _; not starting with a digit' : undefined}
        onClick={() => {
          onRename(to);
          setTo('');
        }}
      >
        Rename
      </button>
    </span>
  );
}

export function PatternEditor({
  value,
  onChange,
}: {
  value: PatternParts;
  onChange: (next: PatternParts) => void;
}) {
  const a = analysePattern(value);
  const rows = [...a.inPattern, ...a.notInPattern];
  const setType = (slot: string, type: SlotType | '') => {
    const slots = { ...value.slots };
    if (type) slots[slot] = type;
    else delete slots[slot];
    onChange({ ...value, slots });
  };
  const warnings: React.ReactNode[] = [];
  if (!value.pattern.trim()) warnings.push('The pattern is empty.');
  for (const s of a.untyped)
    warnings.push(
      <>
        Slot <code>{`{${s}}`}</code> of the pattern has no type.
        <button type="button" onClick={() => setType(s, 'str')}>
          Make it str
        </button>
      </>,
    );
  for (const s of a.notInPattern)
    warnings.push(
      <>
        Slot <code>{s}</code> has a type but is not in the pattern.
        <button type="button" onClick={() => setType(s, '')}>
          Remove its type
        </button>
      </>,
    );
  if (a.rename) {
    const { from, to } = a.rename;
    warnings.push(
      <>
        Did you rename <code>{`{${from}}`}</code> to <code>{`{${to}}`}</code>?
        <button type="button" className="primary" onClick={() => onChange(renameSlot(value, from, to))}>
          Rename {from} to {to} (type and body)
        </button>
      </>,
    );
  }
  for (const s of a.duplicates)
    warnings.push(
      <>
        Slot <code>{`{${s}}`}</code> appears twice in the pattern.
      </>,
    );
  for (const s of a.bodyUnknown)
    warnings.push(
      <>
        The body uses <code>{`{{${s}}}`}</code>, which is not a slot of the pattern.
      </>,
    );
  for (const s of a.notSlots)
    warnings.push(
      <>
        <code>{s}</code> is plain text, not a slot: slot names are letters, digits and _.
      </>,
    );
  for (const s of a.unclosed)
    warnings.push(
      <>
        <code>{s}</code> has no closing <code>{'}'}</code>: it is plain text, not a slot. Write a slot as{' '}
        <code>{'{name}'}</code> and choose its type below.
      </>,
    );
  const notes: React.ReactNode[] = [];
  for (const s of a.unusedInBody.filter((x) => !a.untyped.includes(x)))
    notes.push(
      <>
        Slot <code>{`{${s}}`}</code> is not used in the body (<code>{`{{${s}}}`}</code>): its value is
        matched, then ignored.
      </>,
    );
  if (value.pattern.trim() && a.inPattern.length === 0)
    notes.push('No slots: the template serves only this exact text.');

  return (
    <div className="pattern-editor" data-testid="pattern-editor">
      <FormRow
        label="Pattern"
        help={
          <>
            Matched case-insensitively, spaces normalized, a final <code>. ! ?</code> optional. Write slots as{' '}
            <code>{'{name}'}</code> in the pattern and <code>{'{{name}}'}</code> in the body, where the value
            goes as an escaped literal.
          </>
        }
      >
        <input
          aria-label="pattern"
          className="pattern-input"
          value={value.pattern}
          placeholder="What is the name of user {user_id}?"
          onChange={(e) => onChange({ ...value, pattern: e.target.value })}
          spellCheck={false}
        />
      </FormRow>
      <PatternPreview pattern={value.pattern} slots={value.slots} />
      {rows.length > 0 && (
        <table className="slot-table" aria-label="slots">
          <thead>
            <tr>
              <th>slot</th>
              <th>type</th>
              <th>in pattern</th>
              <th>in body</th>
              <th>rename everywhere</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={s} data-slot={s}>
                <td>
                  <code>{s}</code>
                </td>
                <td>
                  <select
                    aria-label={`type of ${s}`}
                    value={value.slots[s] ?? ''}
                    onChange={(e) => setType(s, e.target.value as SlotType | '')}
                  >
                    <option value="">— no type —</option>
                    {SLOT_TYPES.map((t) => (
                      <option key={t} value={t}>
                        {t}
                      </option>
                    ))}
                  </select>
                </td>
                <td>{a.inPattern.includes(s) ? '✓' : <span className="warn">missing</span>}</td>
                <td>{bodySlots(value.body).includes(s) ? '✓' : <span className="muted">unused</span>}</td>
                <td>
                  <RenameCell name={s} onRename={(to) => onChange(renameSlot(value, s, to))} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ul className="warnings" aria-label="pattern warnings">
        {warnings.map((w, i) => (
          <li key={`w${i}`} className="warn">
            {w}
          </li>
        ))}
        {warnings.length === 0 && value.pattern.trim() && (
          <li className="ok-line small">
            Every slot of the pattern has a type, and the body uses only slots.
          </li>
        )}
        {notes.map((n, i) => (
          <li key={`n${i}`} className="muted">
            {n}
          </li>
        ))}
      </ul>
    </div>
  );
}

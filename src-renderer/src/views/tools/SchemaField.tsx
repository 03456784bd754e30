/**
 * One field of a tool form rendered from its JSON Schema (schema-form.ts), recursively: a text, number,
 * select or true/false input for a scalar, a fieldset for an object, a list with Add and Remove for an
 * array, a JSON text area for anything else. A scalar's input has the id `try-<path>` and its error
 * `try-<path>-error`; its placeholder names examples, the default or the shape. Props only: the draft
 * in, the changed draft out.
 */
import type { JsonSchema } from '../../../../src-main/core/tools/schema.ts';
import { emptyOption, initialDraft, kindOf, placeholderOf, typeLabel } from './schema-form.ts';
import type { Draft } from './schema-form.ts';
import { FormRow } from '../../components/FormRow.tsx';

export function SchemaField({
  name,
  path,
  schema,
  draft,
  required,
  errors,
  onChange,
}: {
  name: string;
  /** The field's path (`items[0].qty`): its input's label and its error's key. */
  path: string;
  schema: JsonSchema;
  draft: Draft;
  required: boolean;
  errors: Record<string, string>;
  onChange: (d: Draft) => void;
}) {
  const kind = kindOf(schema);
  const label = (
    <>
      {schema.title ?? name}
      {required && (
        <span className="required-mark" title="required" aria-label="required">
          {' '}
          *
        </span>
      )}
    </>
  );
  const error = errors[path];
  if (kind === 'object') {
    const obj = typeof draft === 'object' && !Array.isArray(draft) ? draft : {};
    const req = new Set(schema.required ?? []);
    return (
      <fieldset className="schema-object" aria-label={path}>
        <legend>{label}</legend>
        {Object.entries(schema.properties ?? {}).map(([k, p]) => (
          <SchemaField
            key={k}
            name={k}
            path={path ? `${path}.${k}` : k}
            schema={p}
            draft={obj[k] ?? initialDraft(p)}
            required={req.has(k)}
            errors={errors}
            onChange={(d) => onChange({ ...obj, [k]: d })}
          />
        ))}
      </fieldset>
    );
  }
  if (kind === 'array') {
    const items = Array.isArray(draft) ? draft : [];
    const itemSchema = schema.items ?? {};
    return (
      <fieldset className="schema-array" aria-label={path}>
        <legend>{label}</legend>
        {items.map((item, i) => (
          <div key={i} className="schema-item">
            <SchemaField
              name={`${name}[${i}]`}
              path={`${path}[${i}]`}
              schema={itemSchema}
              draft={item}
              required
              errors={errors}
              onChange={(d) => onChange(items.map((x, j) => (j === i ? d : x)))}
            />
            <button
              type="button"
              aria-label={`remove ${path}[${i}]`}
              onClick={() => onChange(items.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          aria-label={`add to ${path}`}
          onClick={() => onChange([...items, initialDraft(itemSchema)])}
        >
          Add
        </button>
      </fieldset>
    );
  }
  const text = typeof draft === 'string' ? draft : '';
  const common = {
    name: path,
    'aria-label': path,
    'aria-required': required,
    'data-param': path,
  };
  const options =
    kind === 'enum'
      ? (schema.enum ?? []).map((o) => [JSON.stringify(o), typeof o === 'string' ? o : JSON.stringify(o)])
      : [
          ['true', 'true'],
          ['false', 'false'],
        ];
  return (
    <FormRow
      className="try-field"
      id={`try-${path}`}
      label={
        <>
          {label}{' '}
          <span className="muted small">
            <code>{name}</code>: {typeLabel(schema)}
          </span>
        </>
      }
      help={schema.description}
      error={error}
    >
      {kind === 'enum' || kind === 'boolean' ? (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">{emptyOption(schema)}</option>
          {options.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      ) : kind === 'json' ? (
        <textarea
          {...common}
          rows={2}
          spellCheck={false}
          placeholder={placeholderOf(schema)}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input
          {...common}
          inputMode={kind === 'integer' ? 'numeric' : kind === 'number' ? 'decimal' : undefined}
          spellCheck={false}
          placeholder={placeholderOf(schema)}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </FormRow>
  );
}

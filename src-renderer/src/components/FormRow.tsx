/**
 * One row of an editor's form, written once for every editor: a label, its control, then an optional
 * help line and an optional error. The label holds only its text and points at the control
 * (`htmlFor`), so neither the control's value nor the help or error ever joins the control's name; the
 * control gets the row's id and points at the help and error (`aria-describedby`), and is marked
 * `aria-invalid` while there is an error.
 *
 * The control is the first element among `children` (anything after it, a `<datalist>` say, is kept
 * as is). It keeps an `id` of its own if it has one; otherwise it takes `id`, or a generated one.
 *
 * Layouts: `stacked` (label above the control, the default), `inline` (label beside it) and `check`
 * (a checkbox or radio before its text).
 */
import { Children, cloneElement, isValidElement, useId } from 'react';
import type { ReactElement, ReactNode } from 'react';

export type FormRowLayout = 'stacked' | 'inline' | 'check';

export interface FormRowProps {
  label: ReactNode;
  /** The control first, then anything that goes with it. */
  children: ReactNode;
  help?: ReactNode;
  /** What is wrong with the value, shown under the control (nothing when empty). */
  error?: ReactNode;
  layout?: FormRowLayout;
  /** Classes of the row (for the container's layout: `wide`, `grow`...). */
  className?: string;
  /** `data-testid` of the error line. */
  errorTestId?: string;
  /** The control's id; the help and error lines take `<id>-help` and `<id>-error`. */
  id?: string;
}

/** What the row sets on its control. */
interface ControlProps {
  id?: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean | 'true' | 'false';
}

const LABEL_CLASS: Record<FormRowLayout, string> = { stacked: 'field', inline: 'inline', check: 'check' };

export function FormRow({
  label,
  children,
  help,
  error,
  layout = 'stacked',
  className,
  errorTestId,
  id,
}: FormRowProps) {
  const generated = useId();
  const items = Children.toArray(children);
  const at = items.findIndex((c) => isValidElement(c));
  const control = at < 0 ? undefined : (items[at] as ReactElement<ControlProps>);
  const controlId = control?.props.id ?? id ?? generated;
  const helpId = `${controlId}-help`;
  const errorId = `${controlId}-error`;
  const hasError = error !== undefined && error !== null && error !== false && error !== '';
  const describedBy = [control?.props['aria-describedby'], help ? helpId : '', hasError ? errorId : '']
    .filter(Boolean)
    .join(' ');
  if (control)
    items[at] = cloneElement(control, {
      id: controlId,
      ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      ...(hasError ? { 'aria-invalid': true } : {}),
    });
  const labelEl = (
    <label className={LABEL_CLASS[layout]} htmlFor={controlId}>
      {label}
    </label>
  );
  const rowClass = ['form-row', `form-row-${layout}`, hasError ? 'invalid' : '', className ?? '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className={rowClass}>
      {layout === 'check' ? (
        <>
          {items}
          {labelEl}
        </>
      ) : (
        <>
          {labelEl}
          {items}
        </>
      )}
      {help ? (
        <span id={helpId} className="field-help muted small">
          {help}
        </span>
      ) : null}
      {hasError ? (
        <span id={errorId} className="field-error error small" role="alert" data-testid={errorTestId}>
          {error}
        </span>
      ) : null}
    </div>
  );
}

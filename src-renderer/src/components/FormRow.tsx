/**
 * One row of an editor's form, written once for every editor: a label wrapping its control (so the
 * control is named by the label, or by its own `aria-label`), then an optional help line and an
 * optional error. Help and error sit outside the label, so they never join the control's name; the
 * control points at them with `aria-describedby` when `children` is a function of `described`.
 *
 * Layouts: `stacked` (label above the control, the default), `inline` (label beside it) and `check`
 * (a checkbox or radio before its text).
 */
import { useId } from 'react';
import type { ReactNode } from 'react';

export type FormRowLayout = 'stacked' | 'inline' | 'check';

/** What the control sets to point at the row's help and error (and its id, when the row was given one). */
export interface Described {
  id?: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

export interface FormRowProps {
  label: ReactNode;
  /** The control; a function receives the `aria-*` attributes that tie it to the help and the error. */
  children: ReactNode | ((described: Described) => ReactNode);
  help?: ReactNode;
  /** What is wrong with the value, shown under the control (nothing when empty). */
  error?: ReactNode;
  layout?: FormRowLayout;
  /** Classes of the row (for the container's layout: `wide`, `grow`...). */
  className?: string;
  /** `data-testid` of the error line. */
  errorTestId?: string;
  /** The control's id (passed on in `described`); the help and error lines take `<id>-help`, `<id>-error`. */
  id?: string;
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
  id: controlId,
}: FormRowProps) {
  const generated = useId();
  const id = controlId ?? generated;
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const hasError = error !== undefined && error !== null && error !== false && error !== '';
  const describedBy = [help ? helpId : '', hasError ? errorId : ''].filter(Boolean).join(' ');
  const described: Described = {
    ...(controlId ? { id: controlId } : {}),
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
    ...(hasError ? { 'aria-invalid': true as const } : {}),
  };
  const control = typeof children === 'function' ? children(described) : children;
  const rowClass = ['form-row', `form-row-${layout}`, hasError ? 'invalid' : '', className ?? '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className={rowClass}>
      <label className={LABEL_CLASS[layout]}>
        {layout === 'check' ? (
          <>
            {control} {label}
          </>
        ) : (
          <>
            {label}
            {layout === 'inline' ? ' ' : null}
            {control}
          </>
        )}
      </label>
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

/** A (w, d) grade: world coupling and effects ceiling, each 0..2; red when above the workspace max. */
export function GradeBadge({
  grade,
  over = false,
  small = false,
  label,
}: {
  grade: { w: number; d: number };
  over?: boolean;
  small?: boolean;
  label?: string;
}) {
  return (
    <span
      className={`grade ${over ? 'over' : ''} ${small ? 'small-grade' : ''}`}
      data-grade={`${grade.w},${grade.d}`}
      title={`${label ?? 'grade'}: world coupling w=${grade.w}, effects ceiling d=${grade.d} (0..2 each)${
        over ? ' — above the workspace maximum' : ''
      }`}
    >
      {label && <span className="grade-label">{label}</span>}
      <span>w{grade.w}</span>
      <span>d{grade.d}</span>
    </span>
  );
}

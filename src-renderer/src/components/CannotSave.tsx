/** What stops a form's save, one line each (nothing when the list is empty). */
export function CannotSave({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="warnings small" aria-label="cannot save yet">
      {problems.map((p) => (
        <li key={p} className="warn">
          {p}
        </li>
      ))}
    </ul>
  );
}

/** A row of tabs (role=tablist); the caller renders the selected panel. */
export function Tabs<T extends string>({
  tabs,
  selected,
  onSelect,
  label,
}: {
  tabs: readonly (readonly [T, string])[];
  selected: T;
  onSelect: (id: T) => void;
  label?: string;
}) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map(([id, text]) => (
        <button
          key={id}
          role="tab"
          aria-selected={selected === id}
          className={selected === id ? 'active' : ''}
          onClick={() => onSelect(id)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}

/** A collapsible JSON tree: objects and arrays fold; children render only when opened. */
import { useState } from 'react';

const MAX_CHILDREN = 500;

function Leaf({ value }: { value: unknown }) {
  if (value === null) return <span className="json-null">null</span>;
  if (typeof value === 'string') return <span className="json-string">{JSON.stringify(value)}</span>;
  if (typeof value === 'number') return <span className="json-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="json-bool">{String(value)}</span>;
  return <span>{String(value)}</span>;
}

function Node({ name, value, depth }: { name?: string; value: unknown; depth: number }) {
  const isObj = value !== null && typeof value === 'object';
  const [open, setOpen] = useState(depth < 2);
  const label = name !== undefined ? <span className="json-key">{name}: </span> : null;
  if (!isObj)
    return (
      <div className="json-row">
        {label}
        <Leaf value={value} />
      </div>
    );
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as Record<string, unknown>);
  const brackets = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return (
    <div className="json-node">
      <button className="json-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} {label}
        {brackets[0]}
        {!open && (
          <span className="muted">
            {' '}
            {entries.length} {Array.isArray(value) ? 'items' : 'keys'}{' '}
          </span>
        )}
        {!open && brackets[1]}
      </button>
      {open && (
        <div className="json-children">
          {entries.slice(0, MAX_CHILDREN).map(([k, v]) => (
            <Node key={k} name={k} value={v} depth={depth + 1} />
          ))}
          {entries.length > MAX_CHILDREN && (
            <div className="muted">… {entries.length - MAX_CHILDREN} more</div>
          )}
          <div>{brackets[1]}</div>
        </div>
      )}
    </div>
  );
}

export function JsonTree({ value, label }: { value: unknown; label: string }) {
  if (value === undefined) return <p className="muted">No value.</p>;
  return (
    <div className="json-tree" aria-label={label}>
      <Node value={value} depth={0} />
    </div>
  );
}

import { useStore } from '../store/store.ts';

export function ToolsView() {
  const tools = useStore((s) => s.tools);
  if (!tools)
    return (
      <section>
        <p className="muted">Select a sandbox.</p>
      </section>
    );
  return (
    <section aria-label="tools">
      <h2>Tools of {tools.sandbox}</h2>
      {tools.problems.map((p, i) => (
        <div key={i} className="error">
          tools.py:{p.line}:{p.column} {p.rule}: {p.message}
        </div>
      ))}
      <table>
        <thead>
          <tr>
            <th>Tool</th>
            <th>Parameters</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {tools.tools.map((t) => (
            <tr key={t.name}>
              <td>
                <code>{t.name}</code>
              </td>
              <td>{t.parameters.map((p) => `${p.name}${p.required ? '' : '?'}: ${p.type}`).join(', ')}</td>
              <td>{t.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>Prompt XML</summary>
        <pre>{tools.prompt}</pre>
      </details>
    </section>
  );
}

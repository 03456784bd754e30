export function ToolsView() {
  return (
    <section aria-label="tools">
      <h1>Tools</h1>
      <p className="muted">Coming in this change.</p>
    </section>
  );
}

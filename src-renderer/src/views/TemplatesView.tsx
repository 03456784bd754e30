export function TemplatesView() {
  return (
    <section aria-label="templates">
      <h1>Templates</h1>
      <p className="muted">Coming in this change.</p>
    </section>
  );
}

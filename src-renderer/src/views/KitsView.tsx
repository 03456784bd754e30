export function KitsView() {
  return (
    <section aria-label="kits">
      <h1>Kits</h1>
      <p className="muted">Coming in this change.</p>
    </section>
  );
}

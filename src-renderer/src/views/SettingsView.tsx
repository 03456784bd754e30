export function SettingsView() {
  return (
    <section aria-label="settings">
      <h1>Settings</h1>
      <p className="muted">Coming in this change.</p>
    </section>
  );
}

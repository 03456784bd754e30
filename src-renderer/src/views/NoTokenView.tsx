/** What a browser shows when the page was opened without the server's token. */
export function NoTokenView() {
  return (
    <div className="no-token" role="alert" data-testid="no-token">
      <h1>Open the URL printed in the terminal</h1>
      <p>
        This page was opened without its access token, so the Toolsmith service will not answer it. Open the
        URL that <code>toolsmith serve</code> (or <code>npm start</code>) printed in its terminal: it looks
        like <code>{location.origin}/?token=…</code>.
      </p>
    </div>
  );
}

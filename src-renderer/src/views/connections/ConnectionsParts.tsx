/**
 * The Connections view's parts, presentational (props in, callbacks out): a server's state badge, the
 * servers table, and the state of a server's connection test.
 */
import type { McpServerView } from '../../../../src-main/contract/api.ts';
import { connectedLine } from './connections.ts';
import type { Tested } from './connections.ts';

export function StateBadge({ s }: { s: McpServerView }) {
  const cls =
    s.state === 'connected' ? 'status-succeeded' : s.state === 'error' ? 'status-failed' : 'status-running';
  return (
    <span className={`badge ${cls}`} data-testid="mcp-state" data-state={s.state} title={s.error}>
      {s.state}
    </span>
  );
}

export function ServersTable({
  servers,
  selected,
  onSelect,
  onEdit,
}: {
  servers: McpServerView[];
  selected: string | undefined;
  onSelect: (name: string) => void;
  onEdit: (s: McpServerView) => void;
}) {
  if (servers.length === 0)
    return (
      <p className="muted empty" data-testid="mcp-empty">
        No MCP servers yet. Add one with <em>Add server</em>.
      </p>
    );
  return (
    <table className="manage-table" aria-label="MCP servers">
      <thead>
        <tr>
          <th>Server</th>
          <th>Status</th>
          <th>Transport</th>
          <th>Command or URL</th>
          <th>Sandboxes</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {servers.map((s) => (
          <tr key={s.name} data-server={s.name} className={s.name === selected ? 'expanded' : ''}>
            <td>
              <button className="link" onClick={() => onSelect(s.name)}>
                {s.name}
              </button>
            </td>
            <td>
              <StateBadge s={s} />
              {s.tools !== undefined && <span className="muted small"> {s.tools} tools</span>}
            </td>
            <td>{s.transport}</td>
            <td className="ellipsis small" title={s.target}>
              <code>{s.target}</code>
            </td>
            <td>{s.sandboxes.join(', ') || <span className="muted">none</span>}</td>
            <td className="row-actions">
              <button onClick={() => onEdit(s)}>Edit</button>
              <button onClick={() => onSelect(s.name)}>Test</button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Connecting…, the failure, or the connected line (only for the test of the selected server). */
export function TestState({
  selected,
  testing,
  testError,
  tested,
}: {
  selected: string;
  testing: boolean;
  testError: string | undefined;
  tested: Tested | undefined;
}) {
  return (
    <>
      {testing && <p className="muted">Connecting…</p>}
      {testError && (
        <p className="error" role="alert" data-testid="mcp-error">
          {testError}
        </p>
      )}
      {tested && tested.server.name === selected && (
        <p className="small muted" data-testid="mcp-connected">
          {connectedLine(tested)}
        </p>
      )}
    </>
  );
}

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
  onRemove,
}: {
  servers: McpServerView[];
  selected: string | undefined;
  onSelect: (name: string) => void;
  onEdit: (s: McpServerView) => void;
  /** Removes the server from config.toml (with every sandbox's use of it), after the person confirms. */
  onRemove?: (s: McpServerView) => void;
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
              {onRemove && (
                <button onClick={() => onRemove(s)} aria-label={`Remove ${s.name}`}>
                  Remove
                </button>
              )}
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

/** The browser front end's guard on host commands, in the words of its refusal. */
export const HOST_COMMANDS_FLAG = '--allow-host-commands';

/**
 * Where the person is when a stdio server is refused (the browser front end started without
 * `--allow-host-commands`): what to run and why, instead of a bare "error". `browser` is the workbench
 * served to a browser (the desktop app asks before it starts a command, so it shows nothing).
 */
export function HostCommands({ servers, browser }: { servers: McpServerView[]; browser: boolean }) {
  if (!browser) return null;
  const refused = servers.filter((s) => s.state === 'error' && s.error?.includes(HOST_COMMANDS_FLAG));
  const command = (
    <>
      <code>npm start -- {HOST_COMMANDS_FLAG}</code> (or <code>toolsmith serve {HOST_COMMANDS_FLAG}</code>)
    </>
  );
  if (refused.length === 0)
    return (
      <p className="muted small" data-testid="host-commands-note">
        A stdio server is a command started on this computer. A web page cannot ask you before it starts one,
        so the browser front end starts them only when the workbench was started with {command}; the desktop
        app asks you first. HTTP servers need nothing.
      </p>
    );
  return (
    <div role="alert" className="callout bad" data-testid="host-commands-refused">
      <strong>
        Not started: {refused.map((s) => s.name).join(', ')} {refused.length === 1 ? 'runs' : 'run'} a command
        on this computer.
      </strong>{' '}
      A web page cannot ask you before it starts a command, so the browser front end refuses unless the
      workbench was started with {command}. Stop it (Ctrl+C in its terminal) and start it that way, or use the
      desktop app, which asks you first.
    </div>
  );
}

/**
 * Connections: the MCP servers the workspace imports tools from. Add or edit a server (stdio command or
 * Streamable HTTP URL; env and headers as `env:VAR` references) and the sandbox that uses it, see its
 * status, its tools with their schemas, grades and typed stubs, try any tool with the same form as native
 * tools (the call goes from the sandbox container through the host to the real server), and run a
 * script over the server's tools as a recorded run. State and actions: useConnections.ts (on the pure
 * connections.ts); parts: ConnectionsParts.tsx, ServerParts.tsx, ServerForm.tsx.
 */
import { sandboxToolOf } from './connections.ts';
import { HostCommands, ServersTable, StateBadge, TestState } from './ConnectionsParts.tsx';
import { ServerForm } from './ServerForm.tsx';
import { ScriptRunner, ToolCard } from './ServerParts.tsx';
import { useConnections } from './useConnections.ts';
import '../manage.css';

export function ConnectionsView() {
  const v = useConnections();
  const { state, dispatch } = v;
  const { selected, form, tested } = state;
  return (
    <section aria-label="connections" className="manage-view connections-view">
      <div className="view-head">
        <h1>Connections</h1>
        <button onClick={() => void v.reload()}>Reload</button>
        <button className="primary" onClick={v.add}>
          Add server
        </button>
      </div>
      <p className="muted small">
        MCP servers whose tools your sandboxes offer to scripts (<code>[mcp_servers.NAME]</code> in{' '}
        <code>.toolsmith/config.toml</code>). A script calls them like any tool; each call goes from the
        sandbox container to the host and on to the server, and is traced as <code>mcp:NAME</code>.
      </p>
      {/* Electron's preload is window.toolsmith; without it the page is the browser front end. */}
      <HostCommands servers={v.servers ?? []} browser={!window.toolsmith} />
      {form && (
        <ServerForm
          key={form.key}
          initial={form.draft}
          editing={form.editing}
          sandboxes={v.sandboxes}
          onCancel={() => dispatch({ type: 'closeForm' })}
          onSaved={v.saved}
          onEdited={(draft) => dispatch({ type: 'formEdited', draft })}
        />
      )}
      {v.loadError && (
        <div role="alert" className="error callout bad">
          Could not load the MCP servers: {v.loadError}
        </div>
      )}
      {v.servers && (
        <ServersTable
          servers={v.servers}
          selected={selected}
          onSelect={(name) => void v.select(name)}
          onEdit={v.edit}
          onRemove={(s) => void v.remove(s)}
        />
      )}
      {selected && (
        <div className="manage-panel" data-testid="mcp-detail" data-server={selected}>
          <h2>
            {selected} {v.server && <StateBadge s={v.server} />}
          </h2>
          <TestState
            selected={selected}
            testing={state.testing}
            testError={state.testError}
            tested={tested}
          />
          {tested && tested.server.name === selected && (
            <>
              <ScriptRunner server={tested.server} />
              <div className="kit-cards" data-testid="mcp-tools">
                {tested.tools.map((t) => (
                  <ToolCard
                    key={t.name}
                    tool={t}
                    sandbox={sandboxToolOf(state.sandboxTools, selected, t)}
                    trying={state.trying === t.name ? tested.server.sandboxes[0] : undefined}
                    onTry={() => dispatch({ type: 'try', tool: t.name })}
                  />
                ))}
              </div>
            </>
          )}
        </div>
      )}
    </section>
  );
}

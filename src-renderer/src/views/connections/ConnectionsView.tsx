/**
 * Connections: the MCP servers the workspace imports tools from. Add or edit a server (stdio command or
 * Streamable HTTP URL; env and headers as `env:VAR` references) and the sandbox that uses it, see its
 * status, its tools with their schemas, grades and typed stubs, try any tool with the same form as native
 * tools (the call goes from the sandbox container through the host to the real server), and run a
 * script over the server's tools as a recorded run.
 */
import { useCallback, useEffect, useState } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { api, errorMessage } from '../../api/client.ts';
import { draftOf, emptyDraft } from './server.ts';
import type { Draft } from './server.ts';
import { useStore } from '../../store/index.ts';
import { ServerForm } from './ServerForm.tsx';
import { ScriptRunner, StateBadge, ToolCard } from './ServerParts.tsx';
import '../manage.css';

export function ConnectionsView() {
  const sandboxes = useStore((s) => s.sandboxes);
  const loadApp = useStore((s) => s.loadApp);
  const notify = useStore((s) => s.notify);
  const servers = useStore((s) => s.mcpServers);
  const loadError = useStore((s) => s.mcpServersError);
  const reload = useStore((s) => s.loadMcpServers);
  const [selected, setSelected] = useState<string>();
  const [form, setForm] = useState<{ key: string; draft: Draft; editing: boolean }>();
  const [tested, setTested] = useState<Response<'mcp.test'>>();
  const [testError, setTestError] = useState<string>();
  const [testing, setTesting] = useState(false);
  const [sandboxTools, setSandboxTools] = useState<SandboxTool[]>([]);
  const [trying, setTrying] = useState<string>();

  useEffect(() => void reload(), [reload]);

  const server = servers?.find((s) => s.name === selected);

  // Not a useSubmit: selecting another server while one is being tested tests it at once.
  const test = useCallback(
    async (name: string) => {
      setTesting(true);
      setTestError(undefined);
      setTested(undefined);
      setTrying(undefined);
      try {
        const t = await api['mcp.test']({ name });
        setTested(t);
        const sb = t.server.sandboxes[0];
        setSandboxTools(sb ? (await api['tools.list']({ sandbox: sb })).tools : []);
      } catch (e) {
        setTestError(errorMessage(e));
      } finally {
        setTesting(false);
        void reload();
      }
    },
    [reload],
  );

  const select = (name: string) => {
    setSelected(name);
    void test(name);
  };

  return (
    <section aria-label="connections" className="manage-view connections-view">
      <div className="view-head">
        <h1>Connections</h1>
        <button onClick={() => void reload()}>Reload</button>
        <button
          className="primary"
          onClick={() => setForm({ key: `new-${Date.now()}`, draft: emptyDraft(''), editing: false })}
        >
          Add server
        </button>
      </div>
      <p className="muted small">
        MCP servers whose tools your sandboxes offer to scripts (<code>[mcp_servers.NAME]</code> in{' '}
        <code>.toolsmith/config.toml</code>). A script calls them like any tool; each call goes from the
        sandbox container to the host and on to the server, and is traced as <code>mcp:NAME</code>.
      </p>
      {form && (
        <ServerForm
          key={form.key}
          initial={form.draft}
          editing={form.editing}
          sandboxes={sandboxes.map((s) => s.name)}
          onCancel={() => setForm(undefined)}
          onSaved={(s) => {
            notify('info', `MCP server ${s.name} saved to .toolsmith/config.toml.`);
            setForm(undefined);
            void loadApp();
            void reload().then(() => select(s.name));
          }}
        />
      )}
      {loadError && (
        <div role="alert" className="error callout bad">
          Could not load the MCP servers: {loadError}
        </div>
      )}
      {servers && servers.length === 0 && (
        <p className="muted empty" data-testid="mcp-empty">
          No MCP servers yet. Add one with <em>Add server</em>.
        </p>
      )}
      {servers && servers.length > 0 && (
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
                  <button className="link" onClick={() => select(s.name)}>
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
                  <button
                    onClick={() =>
                      setForm({ key: `edit-${s.name}-${Date.now()}`, draft: draftOf(s), editing: true })
                    }
                  >
                    Edit
                  </button>
                  <button onClick={() => select(s.name)}>Test</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && (
        <div className="manage-panel" data-testid="mcp-detail" data-server={selected}>
          <h2>
            {selected} {server && <StateBadge s={server} />}
          </h2>
          {testing && <p className="muted">Connecting…</p>}
          {testError && (
            <p className="error" role="alert" data-testid="mcp-error">
              {testError}
            </p>
          )}
          {tested && tested.server.name === selected && (
            <>
              <p className="small muted" data-testid="mcp-connected">
                Connected in {tested.ms} ms
                {tested.server.server
                  ? ` to ${tested.server.server.name} ${tested.server.server.version}`
                  : ''}
                : {tested.tools.length} tools.
                {tested.server.sandboxes.length === 0 &&
                  ' Use it in a sandbox (Edit) to try its tools and run scripts.'}
              </p>
              <ScriptRunner server={tested.server} />
              <div className="kit-cards" data-testid="mcp-tools">
                {tested.tools.map((t) => {
                  const inSandbox = sandboxTools.find(
                    (x) => x.mcp?.server === selected && x.mcp.tool === (t.mcp?.tool ?? t.name),
                  );
                  return (
                    <ToolCard
                      key={t.name}
                      tool={t}
                      sandbox={inSandbox}
                      trying={trying === t.name ? tested.server.sandboxes[0] : undefined}
                      onTry={() => setTrying(t.name)}
                    />
                  );
                })}
              </div>
            </>
          )}
        </div>
      )}
    </section>
  );
}

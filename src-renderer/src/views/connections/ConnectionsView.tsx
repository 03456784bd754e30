/**
 * Connections: the MCP servers the workspace imports tools from. Add or edit a server (stdio command or
 * Streamable HTTP URL; env and headers as `env:VAR` references) and the sandbox that uses it, see its
 * status, its tools with their schemas, grades and typed stubs, try any tool with the same form as native
 * tools (the call goes from the sandbox container through the host to the real server), and run a
 * script over the server's tools as a recorded run.
 */
import { useCallback, useEffect, useState } from 'react';
import type { McpServerView, Response } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { api, errorMessage } from '../../api/client.ts';
import { GradeBadge } from '../../components/GradeBadge.tsx';
import { TryTool } from '../tools/TryTool.tsx';
import { useSubmit } from '../../lib/useSubmit.ts';
import { draftOf, emptyDraft, saveRequest } from './server.ts';
import type { Draft, SaveRequest } from './server.ts';
import { useStore } from '../../store/index.ts';
import '../manage.css';

function ServerForm({
  initial,
  editing,
  sandboxes,
  onSaved,
  onCancel,
}: {
  initial: Draft;
  editing: boolean;
  sandboxes: string[];
  onSaved: (s: McpServerView) => void;
  onCancel: () => void;
}) {
  const [d, setD] = useState(initial);
  const {
    busy,
    error,
    setError,
    run: submit,
  } = useSubmit(async (req: SaveRequest) => onSaved(await api['mcp.save'](req)));
  const set = (k: keyof Draft) => (e: { target: { value: string } }) => {
    const value = e.target.value;
    setD((prev) => ({ ...prev, [k]: value }));
  };
  const save = async () => {
    setError(undefined);
    let req: SaveRequest;
    try {
      req = saveRequest(d);
    } catch (e) {
      setError(errorMessage(e));
      return;
    }
    await submit(req);
  };
  return (
    <form
      className="manage-panel mcp-form"
      aria-label="MCP server"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>{editing ? `Edit ${initial.name}` : 'Add an MCP server'}</h2>
      <div className="grid">
        <label className="field">
          Name
          <input name="name" value={d.name} onChange={set('name')} disabled={editing} required />
        </label>
        <label className="field">
          Transport
          <select name="transport" value={d.transport} onChange={set('transport')}>
            <option value="stdio">stdio (a command)</option>
            <option value="http">Streamable HTTP (a URL)</option>
          </select>
        </label>
        {d.transport === 'stdio' ? (
          <>
            <label className="field">
              Command
              <input name="command" value={d.command} onChange={set('command')} placeholder="npx" />
            </label>
            <label className="field">
              Arguments (one per line)
              <textarea name="args" rows={3} value={d.args} onChange={set('args')} />
            </label>
            <label className="field">
              Environment (KEY=value or KEY=env:VAR, one per line)
              <textarea name="env" rows={2} value={d.env} onChange={set('env')} />
            </label>
          </>
        ) : (
          <>
            <label className="field">
              URL
              <input name="url" value={d.url} onChange={set('url')} placeholder="https://host/mcp" />
            </label>
            <label className="field">
              Headers (Name=env:VAR, one per line)
              <textarea name="headers" rows={2} value={d.headers} onChange={set('headers')} />
            </label>
          </>
        )}
        <label className="field">
          Time limit per request (ms)
          <input name="timeout" inputMode="numeric" value={d.timeoutMs} onChange={set('timeoutMs')} />
        </label>
        <label className="field">
          Used by sandbox (new or existing; empty: none)
          <input name="sandbox" list="mcp-sandboxes" value={d.sandbox} onChange={set('sandbox')} />
          <datalist id="mcp-sandboxes">
            {sandboxes.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </label>
        <label className="field">
          Description
          <input name="description" value={d.description} onChange={set('description')} />
        </label>
      </div>
      {error && (
        <p className="error small" role="alert" data-testid="mcp-form-error">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save server'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function StateBadge({ s }: { s: McpServerView }) {
  const cls =
    s.state === 'connected' ? 'status-succeeded' : s.state === 'error' ? 'status-failed' : 'status-running';
  return (
    <span className={`badge ${cls}`} data-testid="mcp-state" data-state={s.state} title={s.error}>
      {s.state}
    </span>
  );
}

function ToolCard({
  tool,
  sandbox,
  trying,
  onTry,
}: {
  tool: SandboxTool;
  sandbox: SandboxTool | undefined;
  trying: string | undefined;
  onTry: () => void;
}) {
  return (
    <article
      className={`kit-card mcp-tool${trying ? ' trying' : ''}`}
      data-mcp-tool={tool.mcp?.tool ?? tool.name}
      aria-label={`tool ${tool.name}`}
    >
      <div className="kit-head">
        <h2>
          <code>{tool.mcp?.tool ?? tool.name}</code>
        </h2>
        <GradeBadge grade={tool.grade} small />
        <span className="spacer" />
        <button
          onClick={onTry}
          disabled={!sandbox}
          title={sandbox ? undefined : 'Use the server in a sandbox first'}
        >
          Try
        </button>
      </div>
      {tool.description && <p className="small">{tool.description}</p>}
      <details>
        <summary className="small">Parameters, schemas and stubs</summary>
        <ul className="small">
          {tool.parameters.map((p) => (
            <li key={p.name} data-param={p.name}>
              <code>{p.name}</code>: {p.type}
              {p.required ? ' (required)' : ''}{' '}
              {p.description && <span className="muted">— {p.description}</span>}
            </li>
          ))}
        </ul>
        <strong className="small">Input schema</strong>
        <pre className="small">{JSON.stringify(tool.inputSchema, null, 2)}</pre>
        {tool.outputSchema && (
          <>
            <strong className="small">Output schema (what data holds)</strong>
            <pre className="small">{JSON.stringify(tool.outputSchema, null, 2)}</pre>
          </>
        )}
        {tool.stubs && (
          <>
            <strong className="small">Python</strong>
            <pre className="small">{tool.stubs.python}</pre>
            <strong className="small">TypeScript</strong>
            <pre className="small">{tool.stubs.ts}</pre>
          </>
        )}
      </details>
      {trying && sandbox && (
        <div data-testid="mcp-try">
          <p className="muted small">
            In sandbox <code>{trying}</code> as <code>{sandbox.name}</code>: the call goes from the container
            through the host to the server.
          </p>
          <TryTool sandbox={trying} tool={sandbox} unsaved={false} />
        </div>
      )}
    </article>
  );
}

function ScriptRunner({ server }: { server: McpServerView }) {
  const navigate = useStore((s) => s.navigate);
  const [sandbox, setSandbox] = useState(server.sandboxes[0] ?? '');
  const [language, setLanguage] = useState<'python' | 'ts'>('python');
  const [body, setBody] = useState('');
  const { busy, error, run } = useSubmit(async () => {
    const { runId } = await api['runs.runScript']({
      sandbox,
      language,
      body,
      task: `script over MCP server ${server.name}`,
    });
    navigate({ view: 'run', id: runId });
  });
  if (server.sandboxes.length === 0) return null;
  return (
    <form
      className="manage-panel"
      aria-label="run a script"
      onSubmit={(e) => {
        e.preventDefault();
        void run();
      }}
    >
      <h2>Run a script over its tools</h2>
      <div className="actions">
        <label className="check">
          Sandbox
          <select name="script-sandbox" value={sandbox} onChange={(e) => setSandbox(e.target.value)}>
            {server.sandboxes.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="check">
          Language
          <select
            name="script-language"
            value={language}
            onChange={(e) => setLanguage(e.target.value as 'python' | 'ts')}
          >
            <option value="python">Python</option>
            <option value="ts">TypeScript</option>
          </select>
        </label>
      </div>
      <textarea
        name="script"
        aria-label="script"
        rows={6}
        className="mono"
        value={body}
        onChange={(e) => setBody(e.target.value)}
        placeholder={
          language === 'python'
            ? 'r = some_tool(arg=1)\nemit_result(r.data)'
            : 'const r = await some_tool({ arg: 1 });\nemitResult(r.data);'
        }
      />
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" data-run-action disabled={busy || !body.trim()}>
          {busy ? 'Starting…' : 'Run script'}
        </button>
        <span className="muted small">Recorded as a run: you land on its detail.</span>
      </div>
    </form>
  );
}

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

/**
 * Parts of a connected MCP server's detail: a card per tool (parameters, schemas,
 * stubs, Try in the sandbox that uses the server) and the form that runs a script over its tools.
 */
import { useState } from 'react';
import type { McpServerView } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { api } from '../../api/client.ts';
import { GradeBadge } from '../../components/GradeBadge.tsx';
import { TryTool } from '../tools/TryTool.tsx';
import { useSubmit } from '../../lib/useSubmit.ts';
import { useStore } from '../../store/index.ts';
import { FormRow } from '../../components/FormRow.tsx';

export function ToolCard({
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

export function ScriptRunner({ server }: { server: McpServerView }) {
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
        <FormRow layout="inline" label="Sandbox">
          <select name="script-sandbox" value={sandbox} onChange={(e) => setSandbox(e.target.value)}>
            {server.sandboxes.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </FormRow>
        <FormRow layout="inline" label="Language">
          <select
            name="script-language"
            value={language}
            onChange={(e) => setLanguage(e.target.value as 'python' | 'ts')}
          >
            <option value="python">Python</option>
            <option value="ts">TypeScript</option>
          </select>
        </FormRow>
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

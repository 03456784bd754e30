/**
 * What the extractor reads from tools.py, as the LLM and the function-calling APIs will see it: each
 * tool's parameters (the nine attributes), the XML prompt and the OpenAI function schemas.
 */
import { Tabs } from '../../components/Tabs.tsx';
import { useState } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { showValue } from './coerce.ts';

type Metadata = Response<'tools.extract'>;

function ToolParameters({ tool, onJump }: { tool: SandboxTool; onJump: (line: number) => void }) {
  return (
    <div className="tool-meta" data-tool={tool.name}>
      <div className="meta-line">
        <code className="tool-name">{tool.name}</code>
        <span className="badge" title="grade: world coupling w, effects ceiling d">
          w{tool.grade.w} d{tool.grade.d}
        </span>
        {tool.mcp && (
          <span
            className="badge"
            data-testid="mcp-source"
            title={`MCP tool ${tool.mcp.tool} of server ${tool.mcp.server}`}
          >
            mcp:{tool.mcp.server}
          </span>
        )}
        {tool.line !== undefined && (
          <button className="link small" onClick={() => onJump(tool.line ?? 1)}>
            line {tool.line}
          </button>
        )}
      </div>
      {tool.description ? (
        <p className="tool-desc">{tool.description}</p>
      ) : (
        <p className="muted small">No description: add a docstring so the LLM knows what this tool does.</p>
      )}
      {tool.parameters.length === 0 ? (
        <p className="muted small">No parameters.</p>
      ) : (
        <ul className="params-list" aria-label={`parameters of ${tool.name}`}>
          {tool.parameters.map((p) => (
            <li key={p.name} className="param" data-param={p.name}>
              <div className="param-head">
                <code className="param-name">{p.name}</code>
                <code className="param-type">{p.type}</code>
                <span
                  className={p.required ? 'param-required' : 'muted'}
                  data-required={p.required ? 'true' : 'false'}
                >
                  {p.required ? 'required' : 'optional'}
                </span>
                {!p.required && (
                  <span data-default>
                    <span className="muted">default</span> <code>{showValue(p.default ?? null)}</code>
                  </span>
                )}
              </div>
              {p.description && <div className="param-desc small">{p.description}</div>}
              <dl className="param-attrs small">
                {p.options && (
                  <>
                    <dt>options</dt>
                    <dd>
                      <code>{p.options.map((o) => showValue(o)).join(', ')}</code>
                    </dd>
                  </>
                )}
                {p.examples && (
                  <>
                    <dt>examples</dt>
                    <dd>
                      <code>{p.examples.map((o) => showValue(o)).join(', ')}</code>
                    </dd>
                  </>
                )}
                <dt>source</dt>
                <dd>{p.source}</dd>
                {p.displayName !== undefined && (
                  <>
                    <dt>display_name</dt>
                    <dd>{p.displayName}</dd>
                  </>
                )}
              </dl>
            </li>
          ))}
        </ul>
      )}
      {tool.returns && (
        <p className="small">
          <span className="muted">returns</span> {tool.returns}
        </p>
      )}
    </div>
  );
}

export function ToolMetadata({
  meta,
  stale,
  onJump,
}: {
  meta: Metadata;
  /** The editor changed since this metadata was extracted. */
  stale: boolean;
  onJump: (line: number) => void;
}) {
  const [tab, setTab] = useState<'params' | 'xml' | 'openai'>('params');
  return (
    <div className="tools-meta" data-testid="live-metadata" data-stale={stale ? 'true' : 'false'}>
      <Tabs
        label="metadata"
        tabs={
          [
            ['params', `Parameters (${meta.tools.length} tool${meta.tools.length === 1 ? '' : 's'})`],
            ['xml', 'XML prompt'],
            ['openai', 'OpenAI schema'],
          ] as const
        }
        selected={tab}
        onSelect={setTab}
      />
      <div role="tabpanel" className="tabpanel tools-meta-body" aria-label={`${tab} preview`}>
        {tab === 'params' &&
          (meta.tools.length === 0 ? (
            <p className="muted">
              No <code>@tool</code> function found. Decorate a top-level function with <code>@tool</code> to
              expose it.
            </p>
          ) : (
            <div data-testid="live-tools">
              {meta.tools.map((t) => (
                <ToolParameters key={t.name} tool={t} onJump={onJump} />
              ))}
            </div>
          ))}
        {tab === 'xml' && (
          <pre className="tools-preview" data-testid="xml-preview">
            {meta.prompt}
          </pre>
        )}
        {tab === 'openai' && (
          <pre className="tools-preview" data-testid="openai-preview">
            {JSON.stringify(meta.openai, null, 2)}
          </pre>
        )}
      </div>
    </div>
  );
}

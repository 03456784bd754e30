/**
 * The workspace's sandboxes and, for the selected one, its tools.py in Monaco with the metadata
 * extracted live as you type (parameters, XML prompt, OpenAI schemas, problems as markers and as a
 * list), saving (which hot-reloads the sandbox) and "Try tool": a generated form whose call runs the
 * tool in its real sandbox container.
 */
import { useCallback, useState } from 'react';
import { useStore } from '../../store/index.ts';
import { SandboxList } from './SandboxList.tsx';
import { SandboxTools } from './SandboxTools.tsx';
import './tools.css';

export function ToolsView() {
  const route = useStore((s) => s.route);
  const sandboxes = useStore((s) => s.sandboxes);
  const navigate = useStore((s) => s.navigate);
  // Re-render the sandbox list (its unsaved-draft marks) when a sandbox becomes dirty or clean.
  const [, setDraftTick] = useState(0);
  const onDirtyChange = useCallback(() => setDraftTick((n) => n + 1), []);
  const selected = route.view === 'tools' ? (route.id ?? sandboxes[0]?.name) : undefined;

  return (
    <section aria-label="tools" className="tools-view">
      <SandboxList selected={selected} onSelect={(id) => navigate({ view: 'tools', id })} />
      {selected ? (
        <SandboxTools key={selected} sandbox={selected} line={route.line} onDirtyChange={onDirtyChange} />
      ) : (
        <div className="tools-main">
          <h1>Tools</h1>
          <p className="muted">
            {sandboxes.length === 0 ? 'No sandbox to show yet.' : 'Pick a sandbox to see and edit its tools.'}
          </p>
        </div>
      )}
    </section>
  );
}

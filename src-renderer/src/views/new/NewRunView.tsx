/** Start a run: task, sandbox, kit, mode, provider/model and limits; opens the live run. */
import { useEffect, useState } from 'react';
import { useStore } from '../../store/index.ts';
import type { KitList } from '../../store/settings.ts';

const NO_KITS: KitList = [];

export function NewRunView() {
  const sandboxes = useStore((s) => s.sandboxes);
  const startRun = useStore((s) => s.startRun);
  const kits = useStore((s) => s.kits) ?? NO_KITS;
  const settings = useStore((s) => s.settings);
  const loadError = useStore((s) => s.kitsError ?? s.settingsError);
  const loadKits = useStore((s) => s.loadKits);
  const [task, setTask] = useState('');
  const [sandbox, setSandbox] = useState('');
  const [kit, setKit] = useState('');
  const [mode, setMode] = useState<'plan' | 'interactive'>('plan');
  const [language, setLanguage] = useState<'python' | 'js' | 'ts'>('python');
  const [provider, setProvider] = useState('');
  const [model, setModel] = useState('');
  const [maxRetries, setMaxRetries] = useState(3);
  const [maxSteps, setMaxSteps] = useState(8);
  const [timeoutS, setTimeoutS] = useState(60);
  const [noTemplates, setNoTemplates] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => void loadKits(), [loadKits]);
  useEffect(() => {
    if (!sandbox && sandboxes[0]) setSandbox(sandboxes[0].name);
  }, [sandbox, sandboxes]);

  const sandboxKits = kits.filter((k) => k.sandbox === sandbox);
  const problem = !task.trim() ? 'Describe the task.' : !sandbox ? 'Pick a sandbox.' : undefined;
  const submit = async () => {
    if (problem || busy) return;
    setBusy(true);
    await startRun({
      task: task.trim(),
      sandbox,
      ...(kit ? { kit } : {}),
      mode,
      language,
      ...(provider ? { provider } : {}),
      ...(model.trim() ? { model: model.trim() } : {}),
      maxRetries,
      maxSteps,
      timeoutS,
      ...(noTemplates ? { noTemplates } : {}),
    });
    setBusy(false);
  };

  return (
    <section aria-label="new run" className="form-view">
      <h1>New run</h1>
      {loadError && (
        <div role="alert" className="error">
          Could not load kits and providers: {loadError}
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label className="wide">
          Task
          <textarea
            aria-label="task"
            rows={3}
            value={task}
            placeholder="What is the name of user u1?"
            onChange={(e) => setTask(e.target.value)}
            onKeyDown={(e) => {
              if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
                e.preventDefault();
                void submit();
              }
            }}
            autoFocus
          />
        </label>
        <div className="grid">
          <label>
            Sandbox
            <select
              aria-label="sandbox"
              value={sandbox}
              onChange={(e) => (setSandbox(e.target.value), setKit(''))}
            >
              {sandboxes.length === 0 && <option value="">no sandboxes</option>}
              {sandboxes.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name} ({s.tools} tools)
                </option>
              ))}
            </select>
          </label>
          <label>
            Kit
            <select aria-label="kit" value={kit} onChange={(e) => setKit(e.target.value)}>
              <option value="">all tools of the sandbox</option>
              {sandboxKits.map((k) => (
                <option key={k.name} value={k.name} disabled={!!k.error} title={k.error}>
                  {k.name}
                  {k.kit ? ` (w${k.kit.grade.w}, d${k.kit.grade.d})` : ''}
                  {k.error ? ' — refused' : ''}
                </option>
              ))}
            </select>
          </label>
          <label>
            Mode
            <select
              aria-label="mode"
              value={mode}
              onChange={(e) => setMode(e.target.value as 'plan' | 'interactive')}
            >
              <option value="plan">plan (one script, retries)</option>
              <option value="interactive">interactive (step by step)</option>
            </select>
          </label>
          <label>
            Language
            <select
              aria-label="language"
              value={language}
              onChange={(e) => setLanguage(e.target.value as 'python' | 'js' | 'ts')}
            >
              <option value="python">Python</option>
              <option value="js">JavaScript</option>
              <option value="ts">TypeScript</option>
            </select>
          </label>
          <label>
            Provider
            <select aria-label="provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
              <option value="">all, in config order</option>
              {settings?.providers.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.id} ({p.kind}, {p.model})
                </option>
              ))}
            </select>
          </label>
          <label>
            Model
            <input
              aria-label="model"
              value={model}
              placeholder="provider default"
              onChange={(e) => setModel(e.target.value)}
            />
          </label>
          <label>
            Max retries
            <input
              aria-label="max retries"
              type="number"
              min={0}
              max={20}
              value={maxRetries}
              onChange={(e) => setMaxRetries(Number(e.target.value))}
            />
          </label>
          <label>
            Max steps
            <input
              aria-label="max steps"
              type="number"
              min={1}
              max={50}
              value={maxSteps}
              onChange={(e) => setMaxSteps(Number(e.target.value))}
            />
          </label>
          <label>
            Timeout (s)
            <input
              aria-label="timeout"
              type="number"
              min={1}
              max={600}
              value={timeoutS}
              onChange={(e) => setTimeoutS(Number(e.target.value))}
            />
          </label>
          <label className="check">
            <input type="checkbox" checked={noTemplates} onChange={(e) => setNoTemplates(e.target.checked)} />{' '}
            skip templates and rules (always ask the LLM)
          </label>
        </div>
        <div className="actions">
          <button
            type="submit"
            className="primary"
            data-run-action
            disabled={!!problem || busy}
            title={problem}
          >
            {busy ? 'Starting…' : 'Start run'}
          </button>
          <span className="muted small">Ctrl+Enter</span>
        </div>
      </form>
    </section>
  );
}

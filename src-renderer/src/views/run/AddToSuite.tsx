/**
 * "Add to suite" in a run's header: the run's task becomes a case of a suite (suites.addCase appends it to
 * suites/NAME.toml). `AddToSuiteForm` is presentational; `AddToSuite` wires it to the suites slice and
 * the API.
 */
import { useState } from 'react';
import type { Response } from '../../../../src-main/contract/api.ts';
import { api } from '../../api/client.ts';
import { useSubmit } from '../../lib/useSubmit.ts';
import { useStore } from '../../store/index.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';

export function AddToSuiteForm({
  suites,
  busy,
  error,
  added,
  onAdd,
  onOpen,
}: {
  suites: string[];
  busy: boolean;
  error: string | undefined;
  /** The case last added: its suite and id. */
  added: { suite: string; id: string } | undefined;
  onAdd: (suite: string) => void;
  onOpen: (suite: string) => void;
}) {
  const [suite, setSuite] = useState(suites[0] ?? '');
  const chosen = suites.includes(suite) ? suite : (suites[0] ?? '');
  if (suites.length === 0) return null;
  return (
    <span className="add-to-suite" role="group" aria-label="add to suite">
      <select
        aria-label="suite to add this task to"
        value={chosen}
        onChange={(e) => setSuite(e.target.value)}
      >
        {suites.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <button
        disabled={busy || !chosen}
        onClick={() => onAdd(chosen)}
        title="Add this run's task as a case of the suite (suites/NAME.toml)"
      >
        Add to suite
      </button>
      {added && (
        <span className="small ok" role="status">
          added as{' '}
          <button className="link" onClick={() => onOpen(added.suite)}>
            {added.suite}/{added.id}
          </button>
        </span>
      )}
      {error && (
        <span role="alert" className="small error">
          {error}
        </span>
      )}
    </span>
  );
}

export function AddToSuite({ task, sandbox }: { task: string; sandbox: string }) {
  const list = useStore((s) => s.suiteList);
  const loadSuites = useStore((s) => s.loadSuites);
  const navigate = useStore((s) => s.navigate);
  const [added, setAdded] = useState<{ suite: string; id: string }>();
  useLoadOnMount(loadSuites);
  const { busy, error, run } = useSubmit(async (suite: string) => {
    const r: Response<'suites.addCase'> = await api['suites.addCase']({ name: suite, task, sandbox });
    setAdded({ suite, id: r.id });
    void loadSuites();
  });
  return (
    <AddToSuiteForm
      suites={list.map((s) => s.name)}
      busy={busy}
      error={error}
      added={added}
      onAdd={(s) => void run(s)}
      onOpen={(s) => navigate({ view: 'suites', id: s })}
    />
  );
}

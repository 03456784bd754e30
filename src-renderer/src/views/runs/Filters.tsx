/**
 * The run list's filters: text search, status (and "only failed"), template tests (a kind hidden by
 * default), sandbox, mode, tier, model and suite run; changing one reloads the list (runs slice).
 */
import { useEffect, useState } from 'react';
import { RUN_KINDS, RUN_STATUSES, TIERS } from '../../../../src-main/core/records/events.ts';
import type { RunStatus, Tier } from '../../../../src-main/core/records/events.ts';
import { useStore } from '../../store/index.ts';

export function Filters() {
  const filters = useStore((s) => s.filters);
  const setFilters = useStore((s) => s.setFilters);
  const clearFilters = useStore((s) => s.clearFilters);
  const sandboxes = useStore((s) => s.sandboxes);
  const [text, setText] = useState(filters.text ?? '');
  useEffect(() => setText(filters.text ?? ''), [filters.text]);
  useEffect(() => {
    if ((filters.text ?? '') === text) return;
    const t = setTimeout(() => setFilters({ text }), 200);
    return () => clearTimeout(t);
  }, [text, filters.text, setFilters]);
  const statuses = filters.status ?? [];
  const toggle = (s: RunStatus) =>
    setFilters({ status: statuses.includes(s) ? statuses.filter((x) => x !== s) : [...statuses, s] });
  const onlyFailed = statuses.length === 2 && statuses.includes('failed') && statuses.includes('interrupted');
  // Template tests are a kind of run the list hides unless this is on (then it lists every kind).
  const withTests = filters.kind?.includes('template_test') ?? false;
  return (
    <div className="filters" role="search">
      <input
        type="search"
        data-search
        aria-label="search runs"
        placeholder="Search task, script, error…  (/)"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <button
        className={onlyFailed ? 'chip active' : 'chip'}
        onClick={() => setFilters({ status: onlyFailed ? [] : ['failed', 'interrupted'] })}
        title="Failed and interrupted runs"
      >
        Failed only
      </button>
      <span className="chips" aria-label="status filter">
        {RUN_STATUSES.map((s) => (
          <label key={s} className={`chip ${statuses.includes(s) ? 'active' : ''}`}>
            <input type="checkbox" checked={statuses.includes(s)} onChange={() => toggle(s)} /> {s}
          </label>
        ))}
      </span>
      <label
        data-filter="template-tests"
        className={`chip ${withTests ? 'active' : ''}`}
        title="Runs of a template against its examples (Templates view: Test); hidden unless this is on"
      >
        <input
          type="checkbox"
          aria-label="show template tests"
          checked={withTests}
          onChange={() => setFilters({ kind: withTests ? undefined : [...RUN_KINDS] })}
        />{' '}
        template tests
      </label>
      <select
        aria-label="sandbox filter"
        value={filters.sandbox ?? ''}
        onChange={(e) => setFilters({ sandbox: e.target.value || undefined })}
      >
        <option value="">all sandboxes</option>
        {sandboxes.map((s) => (
          <option key={s.name}>{s.name}</option>
        ))}
      </select>
      <select
        aria-label="mode filter"
        value={filters.mode ?? ''}
        onChange={(e) =>
          setFilters({ mode: (e.target.value || undefined) as 'plan' | 'interactive' | undefined })
        }
      >
        <option value="">all modes</option>
        <option value="plan">plan</option>
        <option value="interactive">interactive</option>
      </select>
      <select
        aria-label="tier filter"
        value={filters.tier ?? ''}
        onChange={(e) => setFilters({ tier: (e.target.value || undefined) as Tier | undefined })}
      >
        <option value="">all tiers</option>
        {TIERS.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <input
        aria-label="model filter"
        placeholder="model"
        defaultValue={filters.model ?? ''}
        onBlur={(e) => setFilters({ model: e.target.value || undefined })}
        onKeyDown={(e) =>
          e.key === 'Enter' && setFilters({ model: (e.target as HTMLInputElement).value || undefined })
        }
      />
      <input
        key={filters.suiteRun ?? ''}
        aria-label="suite run filter"
        placeholder="suite run"
        defaultValue={filters.suiteRun ?? ''}
        onBlur={(e) => setFilters({ suiteRun: e.target.value.trim() || undefined })}
        onKeyDown={(e) =>
          e.key === 'Enter' &&
          setFilters({ suiteRun: (e.target as HTMLInputElement).value.trim() || undefined })
        }
      />
      <button onClick={clearFilters}>Clear</button>
    </div>
  );
}

/**
 * Settings › Sandbox: whether Docker answers and which isolation scripts run with — the default level,
 * each sandbox with a level of its own, and, on the process fallback, the reason it runs and what to
 * do. Presentational: the `system.status` answer in.
 */
import type { Response } from '../../../../src-main/contract/api.ts';
import { IsolationBadge } from '../../components/Badges.tsx';
import { parseIsolation, weakerThanDocker } from '../../lib/isolation.ts';

type Status = Pick<Response<'system.status'>, 'docker' | 'isolation' | 'isolationReason'>;

export function IsolationState({ status }: { status: Status }) {
  const iso = parseIsolation(status.isolation);
  const { level } = iso;
  return (
    <>
      <div
        className="meta-line"
        data-testid="docker-state"
        data-docker={status.docker.available ? 'available' : 'missing'}
      >
        {status.docker.available ? (
          <span className="badge status-succeeded">
            Docker available{status.docker.version ? ` · ${status.docker.version}` : ''}
          </span>
        ) : (
          <span className="badge status-failed">Docker not available</span>
        )}
        <IsolationBadge level={level} />
        {iso.sandboxes.map((s) => (
          <span key={s.sandbox} className="sandbox-isolation" data-sandbox={s.sandbox}>
            <span className="small">{s.sandbox}:</span> <IsolationBadge level={s.level} />
          </span>
        ))}
        {iso.unknown.length > 0 && <span className="small muted">{iso.unknown.join('; ')}</span>}
      </div>
      {status.docker.available && level === 'docker' && (
        <p className="muted small">
          Scripts run in hardened Docker containers (no network, read-only, limited).
        </p>
      )}
      {status.docker.available && level === 'gvisor' && (
        <p className="muted small">
          Scripts run in hardened Docker containers under gVisor (a user-space kernel between the script and
          the host).
        </p>
      )}
      {iso.sandboxes.length > 0 && (
        <p className="muted small" data-testid="sandbox-levels">
          {iso.sandboxes.map((s) => `${s.sandbox} runs with isolation ${s.level}`).join('; ')} (set in its
          [sandboxes.NAME] section); the other sandboxes with {level}.
        </p>
      )}
      {!status.docker.available && (
        <div className="callout bad" role="note" data-testid="docker-missing">
          <p>
            <strong>
              Scripts do not run in Docker{status.docker.error ? `: ${status.docker.error}` : '.'}
            </strong>
          </p>
          {status.isolationReason && <p data-testid="isolation-reason">{status.isolationReason}</p>}
          {status.docker.hint && <p>What to do: {status.docker.hint}</p>}
          <p>
            Until then scripts run in the <strong>{level === 'none' ? 'no' : level}</strong> fallback, whose
            isolation is weaker than Docker&apos;s: no container, no network namespace or cgroup limits — only
            use it with scripts and tools you trust.
          </p>
        </div>
      )}
      {status.docker.available && weakerThanDocker(level) && (
        <div className="callout" role="note" data-testid="isolation-weaker">
          Docker answers, but scripts run with isolation <strong>{level}</strong>, which is weaker than a
          Docker container.
          {status.isolationReason && <span data-testid="isolation-reason"> {status.isolationReason}</span>}
        </div>
      )}
    </>
  );
}

import type { IsolationLevel } from '../../../src-main/core/sandbox/execution.ts';

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge status-${status}`} data-status={status}>
      {status}
    </span>
  );
}

const ISOLATION_NOTE: Record<IsolationLevel, string> = {
  docker: 'hardened Docker container',
  gvisor:
    'hardened Docker container under gVisor (runsc): a user-space kernel between the script and the host',
  bubblewrap: 'bubblewrap (no cgroup limits): weaker than Docker',
  process: 'plain process with rlimits: weak isolation',
  none: 'not executed',
};

export function IsolationBadge({ level }: { level: IsolationLevel }) {
  return (
    <span className={`badge isolation-${level}`} title={ISOLATION_NOTE[level]} data-isolation={level}>
      isolation: {level}
    </span>
  );
}

export const formatMs = (ms: number): string =>
  ms < 1000
    ? `${Math.round(ms)} ms`
    : ms < 60_000
      ? `${(ms / 1000).toFixed(1)} s`
      : `${(ms / 60_000).toFixed(1)} min`;

export { formatDateTime } from '../lib/dates.ts';

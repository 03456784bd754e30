/**
 * Settings › Sandbox › Pools: each running pool's workers (size, idle, busy, queued, standbys) and how
 * many were replaced, with when and why the last one was (the worker's own words when it stopped by
 * itself, e.g. a cleanup after a job that did not hold).
 */
import type { SystemStatus } from '../../../../src-main/contract/api.ts';

export function PoolsTable({ pools }: { pools: SystemStatus['pools'] }) {
  return (
    <>
      <h3 className="small">Pools</h3>
      {pools.length === 0 ? (
        <p className="muted small">No pool is running: a sandbox&apos;s pool starts with its first script.</p>
      ) : (
        <table className="manage-table" aria-label="pools">
          <thead>
            <tr>
              <th>sandbox</th>
              <th className="num">size</th>
              <th className="num">idle</th>
              <th className="num">busy</th>
              <th className="num">queued</th>
              <th
                className="num"
                title="started and loaded beside the pool, promoted at once when a worker breaks"
              >
                standby
              </th>
              <th className="num">replaced</th>
            </tr>
          </thead>
          <tbody>
            {pools.map((p) => (
              <tr key={p.sandbox}>
                <td>{p.sandbox}</td>
                <td className="num">{p.size}</td>
                <td className="num">{p.idle}</td>
                <td className="num">{p.busy}</td>
                <td className={`num ${p.queued ? 'warn' : ''}`}>{p.queued}</td>
                <td className="num">
                  {p.standbyTarget === 0
                    ? 'off'
                    : `${p.standby}/${p.standbyTarget}${p.standbyStarting ? ' (starting)' : ''}`}
                </td>
                <td className="num">{p.replaced}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pools.some((p) => p.lastReplaced) && (
        <ul className="small plain-list" aria-label="last replaced workers">
          {pools.map((p) =>
            p.lastReplaced ? (
              <li key={p.sandbox}>
                {p.sandbox}: a worker was last replaced at{' '}
                <time dateTime={p.lastReplaced.at}>{new Date(p.lastReplaced.at).toLocaleTimeString()}</time>:{' '}
                <span className="muted">{p.lastReplaced.reason}</span>
              </li>
            ) : null,
          )}
        </ul>
      )}
    </>
  );
}

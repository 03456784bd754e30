/**
 * Settings › Sandbox: Docker and the isolation level, the runtime images (built here, their build logs
 * streamed by image_progress pushes into the images slice), the sandboxes' dependency images and the
 * pools.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { IsolationState } from './IsolationState.tsx';
import { PoolsTable } from './PoolsTable.tsx';
import { SandboxDeps } from './SandboxDeps.tsx';
import type { Runtime } from '../../store/images.ts';
import { useStore } from '../../store/index.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';

export function SandboxSection() {
  const status = useStore((s) => s.status);
  const statusError = useStore((s) => s.statusError);
  const loadStatus = useStore((s) => s.loadStatus);
  const builds = useStore((s) => s.imageBuilds);
  const build = useStore((s) => s.buildImage);
  const clearBuilds = useStore((s) => s.clearBuilds);
  const [refreshing, setRefreshing] = useState(false);
  const logRefs = useRef<Record<string, HTMLPreElement | null>>({});

  const refresh = useCallback(async () => {
    setRefreshing(true);
    await loadStatus();
    setRefreshing(false);
  }, [loadStatus]);
  useLoadOnMount(refresh);

  // The view starts without builds, and forgets them when it closes (their logs arrive as pushes).
  useEffect(() => {
    clearBuilds();
    return clearBuilds;
  }, [clearBuilds]);
  useEffect(() => {
    for (const el of Object.values(logRefs.current)) if (el) el.scrollTop = el.scrollHeight;
  }, [builds]);

  const runtimes: { runtime: string; tag?: string; present?: boolean }[] = status?.images.length
    ? status.images
    : status?.docker.available === false
      ? []
      : [{ runtime: 'python' }, { runtime: 'node' }];
  return (
    <div className="manage-panel" role="region" aria-label="sandbox">
      <div className="view-head">
        <h2>Sandbox</h2>
        <span className="spacer" />
        <button onClick={() => void refresh()} disabled={refreshing}>
          {refreshing ? 'Checking…' : 'Refresh'}
        </button>
      </div>
      {statusError && (
        <div role="alert" className="error callout bad">
          Could not get the sandbox status: {statusError}
        </div>
      )}
      {!status && !statusError && <p className="muted">Checking Docker…</p>}
      {status && (
        <>
          <IsolationState status={status} />

          <h3 className="small">Images</h3>
          {runtimes.length === 0 ? (
            <p className="muted small">Images need Docker.</p>
          ) : (
            <table className="manage-table" aria-label="images">
              <thead>
                <tr>
                  <th>runtime</th>
                  <th>tag</th>
                  <th>present</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {runtimes.map((img) => {
                  const b = builds[img.runtime];
                  return (
                    <tr key={img.runtime} data-image={img.runtime}>
                      <td>{img.runtime}</td>
                      <td className="small">
                        <code>{img.tag ?? '—'}</code>
                      </td>
                      <td>
                        {img.present === undefined ? (
                          <span className="muted">unknown</span>
                        ) : img.present ? (
                          <span className="present-yes">present</span>
                        ) : (
                          <span className="present-no">missing: build it</span>
                        )}
                      </td>
                      <td>
                        <button
                          disabled={!status.docker.available || b?.running}
                          title={status.docker.available ? `Build the ${img.runtime} image` : 'Needs Docker'}
                          onClick={() => void build(img.runtime as Runtime)}
                        >
                          {b?.running ? 'Building…' : img.present ? 'Rebuild' : 'Build'}
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {Object.entries(builds).map(([rt, b]) =>
            b ? (
              <div key={rt} data-build={rt}>
                <div className="meta-line small">
                  <strong>Build of the {rt} image</strong>
                  {b.running && <span className="badge status-running">running</span>}
                  {!b.running && !b.error && (
                    <span className="badge status-succeeded">done{b.tag ? ` · ${b.tag}` : ''}</span>
                  )}
                  {!b.running && b.error && <span className="badge status-failed">failed</span>}
                </div>
                {b.error && (
                  <div role="alert" className="error small">
                    {b.error}
                  </div>
                )}
                <pre
                  className="build-log"
                  role="log"
                  aria-label={`build log ${rt}`}
                  ref={(el) => {
                    logRefs.current[rt] = el;
                  }}
                >
                  {b.lines.join('\n')}
                </pre>
              </div>
            ) : null,
          )}
          <SandboxDeps dockerAvailable={status.docker.available} />

          <PoolsTable pools={status.pools} />
        </>
      )}
    </div>
  );
}

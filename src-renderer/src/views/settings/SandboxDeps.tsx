/**
 * Settings › Sandbox: each sandbox's derived image (requirements.txt, package.json), built on demand with
 * the build log streamed from the image-build progress push (docs/sandboxes.md).
 */
import { useStore } from '../../store/index.ts';

export function SandboxDeps({ dockerAvailable }: { dockerAvailable: boolean }) {
  const sandboxes = useStore((s) => s.sandboxes);
  const builds = useStore((s) => s.depsBuilds);
  const build = useStore((s) => s.buildDeps);

  if (!sandboxes.length) return null;
  return (
    <>
      <h3 className="small">Sandbox dependencies</h3>
      <p className="muted small">
        A sandbox&apos;s requirements.txt (wheels from its wheels/ folder when no package index answers) and
        package.json are installed into an image derived from the runtime image, rebuilt only when they
        change.
      </p>
      <table className="manage-table" aria-label="sandbox dependencies">
        <tbody>
          {sandboxes.map((s) => {
            const b = builds[s.name];
            return (
              <tr key={s.name} data-deps={s.name}>
                <td>{s.name}</td>
                <td className="small">
                  {b?.tags.length ? (
                    <code data-deps-tags="">{b.tags.join(', ')}</code>
                  ) : (
                    <span className="muted">—</span>
                  )}
                  {b?.error && (
                    <div role="alert" className="error small">
                      {b.error}
                    </div>
                  )}
                  {b && b.lines.length > 0 && (
                    <details open={b.running || !!b.error}>
                      <summary>build log</summary>
                      <pre className="build-log" role="log" aria-label={`dependency build log ${s.name}`}>
                        {b.lines.join('\n')}
                      </pre>
                    </details>
                  )}
                </td>
                <td>
                  <button
                    disabled={!dockerAvailable || b?.running}
                    title={dockerAvailable ? `Build the images of ${s.name}` : 'Needs Docker'}
                    onClick={() => void build(s.name)}
                  >
                    {b?.running ? 'Building…' : 'Build dependencies'}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

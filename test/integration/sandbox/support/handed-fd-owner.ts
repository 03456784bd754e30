/**
 * A Toolsmith process started with a descriptor it did not open (fd 100, no close-on-exec: what a shell or
 * a make jobserver hands its children), as host-fds.test.ts starts it: it runs one Python job on the
 * process level (bubblewrap) whose tools.py, as it loads in the worker, and whose job both write to fd 100,
 * prints the job's result as one JSON line and exits.
 */
import { SandboxBackend } from '../../../../src-main/infra/sandbox/backend.ts';
import { bubblewrapFactory } from '../../../support/sandbox.ts';

const toolsSource = `import os

def _write(where):
    try:
        os.write(100, f"escaped from {where}\\n".encode())
        return os.readlink("/proc/self/fd/100")
    except OSError as e:
        return f"{type(e).__name__}: {e}"


LOADED = _write("tools.py as it loaded")


@tool(grade=(2, 2))
def handed() -> ToolResponse:
    """What fd 100 is in the job, written to, and what it was in the worker as tools.py loaded."""
    return ToolResponse(success=True, data={"load": LOADED, "job": _write("a job")})
`;
const factory = bubblewrapFactory();
const backend = new SandboxBackend({
  factory,
  pool: { minSize: 0, maxSize: 1, maxJobsPerWorker: 10, idleMs: 60_000, queueTimeoutMs: 30_000, standby: 0 },
  maxOutputBytes: 50 * 1024,
  specFor: (name, runtime) => ({ name, runtime, toolsSource, hostTools: [], credentials: {} }),
});
try {
  const r = await backend.execute({
    sandbox: 'handed',
    language: 'python',
    code: 'emit_result(handed().data)\n',
    bodyStartLine: 1,
    tools: { handed: 'handed' },
    timeoutMs: 30_000,
  });
  process.stdout.write(JSON.stringify({ data: r.data ?? null, error: r.error ?? null }) + '\n');
} finally {
  await backend.dispose();
  await factory.dispose();
}

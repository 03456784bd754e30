/**
 * "Is this image already built?" in one HTTP request to the local Docker engine's socket, without
 * loading dockerode (and its gRPC and SSH modules): what makes a cached `toolsmith image build` quick.
 * Answers undefined when it cannot tell (a remote DOCKER_HOST, no engine), so the caller takes the
 * full path.
 */
// Not `import { request } from 'node:http'`: an ES import of a builtin makes Node build its module
// namespace, which reads every export, and node:http's lazy WebSocket/EventSource exports load undici
// (~70 ms of CPU, a third of a cached `image build`). The CommonJS object has the same function.
const { request } = process.getBuiltinModule('node:http');

/** The engine's unix socket: $DOCKER_HOST when it is `unix://...`, else the default; undefined for tcp/ssh. */
export function dockerSocket(env = process.env): string | undefined {
  const host = env['DOCKER_HOST'];
  if (!host) return '/var/run/docker.sock';
  return host.startsWith('unix://') ? host.slice('unix://'.length) : undefined;
}

export function imagePresent(tag: string, timeoutMs = 2000): Promise<boolean | undefined> {
  const socketPath = dockerSocket();
  if (!socketPath) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const req = request(
      { socketPath, path: `/images/${encodeURIComponent(tag)}/json`, method: 'GET', timeout: timeoutMs },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200 ? true : res.statusCode === 404 ? false : undefined);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

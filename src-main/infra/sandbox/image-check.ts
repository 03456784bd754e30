/**
 * "Is this image already built?" in one HTTP request to the local Docker engine's socket, without
 * loading dockerode (and its gRPC and SSH modules): what makes a cached `toolsmith image build` quick.
 * Answers undefined when it cannot tell (a remote DOCKER_HOST, no engine, an answer that is not HTTP), so
 * the caller takes the full path.
 */
// The request is written on a plain unix socket (node:net) and only the status line is read: Node's
// HTTP client (its agent, request and response objects and parser, set up on first use) cost ~10 ms of
// CPU for this one request, twice the socket's own (~5 ms), on a ~25 ms Node start. HTTP/1.0: the
// engine answers without chunks and closes. Not an ES import of the builtin either: that builds its
// module namespace, which reads every export (node:http's lazy exports load undici, ~70 ms).
const { createConnection } = process.getBuiltinModule('node:net');
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
    let head = '';
    const done = (answer: boolean | undefined) => {
      resolve(answer);
      socket.destroy();
    };
    const socket = createConnection(socketPath, () =>
      socket.write(`GET /images/${encodeURIComponent(tag)}/json HTTP/1.0\r\nHost: docker\r\n\r\n`),
    );
    socket.setEncoding('latin1');
    socket.setTimeout(timeoutMs, () => done(undefined));
    socket.on('data', (d: string) => {
      head += d;
      const end = head.indexOf('\r\n');
      if (end < 0 && head.length < 1024) return;
      const status = /^HTTP\/1\.[01] (\d{3}) /.exec(head.slice(0, end < 0 ? head.length : end))?.[1];
      done(status === '200' ? true : status === '404' ? false : undefined);
    });
    socket.on('error', () => done(undefined));
    socket.on('end', () => done(undefined)); // (closed before a status line: cannot tell)
  });
}

/**
 * A forwarding proxy that adds `Authorization: Bearer TOKEN` to every request, for clients that cannot send
 * headers (the conformance CLI takes only a URL). Streams both ways, so SSE responses pass through as sent.
 * Like a reverse proxy, it maps a Host or Origin that names the proxy itself to the target's; any other
 * Host or Origin (a DNS-rebinding probe) reaches the server unchanged.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  url: string;
  close(): Promise<void>;
}

export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const to = new URL(target);
  let self = '';
  const server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (req.headers.host === self) headers.host = to.host;
    if (req.headers.origin === `http://${self}`) headers.origin = `http://${to.host}`;
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${e.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  self = `127.0.0.1:${port}`;
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

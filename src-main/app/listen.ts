/**
 * Listening on a port the person picked: the reasons in words (a port in use, one that needs privileges),
 * as a usage error, for every server the command line starts (`serve`, `mcp --http`).
 */
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { ToolsmithError } from './errors.ts';

export function listenError(
  e: NodeJS.ErrnoException,
  host: string,
  port: number | undefined,
): ToolsmithError {
  if (e.code === 'EADDRINUSE')
    return new ToolsmithError(
      'invalid_argument',
      `port ${port} on ${host} is in use; pick another with --port, or leave --port out for a free one`,
    );
  if (e.code === 'EACCES')
    return new ToolsmithError('invalid_argument', `no permission to listen on port ${port}`);
  return new ToolsmithError('infra', `cannot listen on ${host}:${port ?? 0}: ${e.message}`);
}

/** Listens, or rejects with listenError's reason. */
export function listenOn(
  server: Pick<Server, 'once' | 'listen' | 'off'>,
  host: string,
  port: number | undefined,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) => reject(listenError(e, host, port));
    server.once('error', failed);
    server.listen(port ?? 0, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/** Whether `port` can be listened on now (checked before slow work that would come first, like a build). */
export async function checkPort(host: string, port: number): Promise<void> {
  const probe = createServer();
  await listenOn(probe, host, port);
  await new Promise<void>((r) => probe.close(() => r()));
}

/**
 * A Python worker on the local Docker engine (runc) speaks the protocol on a unix socket the host
 * mounts into its container, not through dockerd's attached stream (infra/sandbox/protocol-socket.ts).
 * The socket is single-use: once the worker is connected, nothing else can connect to it, neither from
 * the host nor from inside the container (where scripts run). Needs Docker and the python image.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { DockerWorkerFactory } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { PROTOCOL_MOUNT, PROTOCOL_SOCKET_ENV } from '../../../src-main/infra/sandbox/protocol-socket.ts';

const docker = new Docker();
const factory = new DockerWorkerFactory(docker, (rt) => buildImage(docker, rt, imagePaths()));
afterAll(() => factory.dispose(), 60_000);

const connectFrom = (path: string) =>
  new Promise<string>((resolve) => {
    const s = createConnection(path);
    s.on('connect', () => {
      s.destroy();
      resolve('connected');
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });

describe('the worker protocol over a mounted unix socket', () => {
  it('carries the protocol, and no one can connect to the socket once the worker has', async () => {
    await factory.start();
    const { conn, id } = await factory.spawn({
      name: 'proto',
      runtime: 'python',
      toolsSource: 'from toolsmith import tool\n',
      hostTools: [],
      credentials: {},
    });
    const info = await docker.getContainer(id).inspect();
    const bind = (info.HostConfig.Binds ?? []).find((b) => b.split(':')[1] === PROTOCOL_MOUNT);
    expect(bind, 'the socket folder is mounted').toBeDefined();
    expect(bind!.endsWith(':ro')).toBe(true);
    const hostDir = bind!.split(':')[0]!;
    const inContainer = (info.Config.Env ?? [])
      .find((e) => e.startsWith(`${PROTOCOL_SOCKET_ENV}=`))
      ?.slice(PROTOCOL_SOCKET_ENV.length + 1);
    expect(inContainer?.startsWith(`${PROTOCOL_MOUNT}/`)).toBe(true);
    // The protocol answers: the worker speaks only on the socket once the variable is set.
    expect(await conn.ping()).toBe(true);

    // The folder: others may pass through it, not list it; the socket itself is already gone.
    expect(statSync(hostDir).mode & 0o777).toBe(0o711);
    expect(readdirSync(hostDir)).toEqual([]);
    expect(await connectFrom(join(hostDir, inContainer!.slice(PROTOCOL_MOUNT.length + 1)))).toBe('ENOENT');

    // Inside the container, as the scripts' user: the folder cannot be listed and its socket is gone.
    const probe = spawnSync(
      'docker',
      [
        'exec',
        '-u',
        '65534',
        id,
        'python3',
        '-c',
        `import os, socket
try:
    print(sorted(os.listdir(${JSON.stringify(PROTOCOL_MOUNT)})))
except OSError as e:
    print(type(e).__name__)
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(${JSON.stringify(inContainer)})
    print("connected")
except OSError as e:
    print(type(e).__name__)
`,
      ],
      { encoding: 'utf8' },
    );
    expect(probe.stderr).toBe('');
    expect(probe.stdout.split('\n').slice(0, 2)).toEqual(['PermissionError', 'FileNotFoundError']);
    expect(await conn.ping()).toBe(true); // the worker's own connection is untouched
    await conn.kill('test done');
    expect(execFileSync('docker', ['ps', '-aq', '--filter', `id=${id}`], { encoding: 'utf8' }).trim()).toBe(
      '',
    );
  }, 180_000);
});

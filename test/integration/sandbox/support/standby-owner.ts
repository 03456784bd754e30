/**
 * A Toolsmith process that dies without cleaning up (standby.test.ts kills it with SIGKILL): it starts a
 * pool with a standby, prints the ids of its workers and standbys as one JSON line, then waits.
 */
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { imagePaths } from '../../../../src-main/app/sandbox-factory.ts';
import { SandboxBackend } from '../../../../src-main/infra/sandbox/backend.ts';
import { DockerWorkerFactory } from '../../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../../src-main/infra/sandbox/images.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const toolsSource = readFileSync(join(root, 'test/fixtures/sandbox/tools.py'), 'utf8');
const docker = new Docker();
const factory = new DockerWorkerFactory(docker, (rt) => buildImage(docker, rt, imagePaths()));
await factory.start();
const backend = new SandboxBackend({
  factory,
  pool: {
    minSize: 1,
    maxSize: 1,
    maxJobsPerWorker: 100,
    idleMs: 600_000,
    queueTimeoutMs: 30_000,
    standby: 1,
  },
  maxOutputBytes: 50 * 1024,
  specFor: (name, runtime) => ({ name, runtime, toolsSource, hostTools: [], credentials: {} }),
});
await backend.warm('leftover');
while (backend.status()[0]?.standby !== 1) await new Promise((r) => setTimeout(r, 20));
process.stdout.write(JSON.stringify(backend.workerIds('leftover')) + '\n');
setInterval(() => {}, 60_000);

/**
 * A second Docker engine for tests: its own dockerd (own data root, exec root, pid file, unix socket,
 * containerd namespace) listening on loopback tcp with TLS, certificates made with openssl here (a CA, a
 * server certificate for 127.0.0.1, a client certificate). The sandbox image is copied into it with
 * `docker save | docker load`. stop() ends it and removes its folder.
 */
import { execFileSync, execSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface SecondEngine {
  host: string;
  socket: string;
  tls: { tls_ca: string; tls_cert: string; tls_key: string };
  dir: string;
  /** Certificates of a CA the engine does not trust (a client it must refuse). */
  foreign: { tls_ca: string; tls_cert: string; tls_key: string };
  stop(): Promise<void>;
  /** SIGKILLs the engine (its containers' processes may outlive it), keeping its folder for `restart`. */
  kill(): Promise<void>;
  /** Starts the engine again on the same folder, socket and port (after `kill`). */
  restart(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });

function ssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA and, signed by it, a server certificate for 127.0.0.1 and a client certificate. */
function makeCerts(dir: string, prefix: string): void {
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(dir, [
    'req',
    '-x509',
    ...key,
    '-keyout',
    `${prefix}ca-key.pem`,
    '-out',
    `${prefix}ca.pem`,
    '-days',
    '2',
    '-subj',
    `/CN=${prefix}toolsmith-test-ca`,
  ]);
  for (const [name, ext] of [
    ['server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n'],
    ['client', 'extendedKeyUsage=clientAuth\n'],
  ] as const) {
    writeFileSync(join(dir, `${prefix}${name}.ext`), ext);
    ssl(dir, [
      'req',
      ...key,
      '-keyout',
      `${prefix}${name}-key.pem`,
      '-out',
      `${prefix}${name}.csr`,
      '-subj',
      `/CN=${name}`,
    ]);
    ssl(dir, [
      'x509',
      '-req',
      '-in',
      `${prefix}${name}.csr`,
      '-CA',
      `${prefix}ca.pem`,
      '-CAkey',
      `${prefix}ca-key.pem`,
      '-CAcreateserial',
      '-out',
      `${prefix}${name}-cert.pem`,
      '-days',
      '2',
      '-extfile',
      `${prefix}${name}.ext`,
    ]);
  }
}

/**
 * Starts the engine; `dir` (an empty folder) fixes where its socket will be, so that a client can be
 * pointed at an engine that does not answer yet.
 */
export async function startSecondDockerd(
  images: string[],
  opts: { dir?: string; sourceHost?: string } = {},
): Promise<SecondEngine> {
  const dir = opts.dir ?? mkdtempSync('/tmp/tsd-');
  makeCerts(dir, '');
  makeCerts(dir, 'foreign-');
  const port = await freePort();
  const socket = join(dir, 'docker.sock');
  writeFileSync(join(dir, 'daemon.json'), '{}\n');
  mkdirSync(join(dir, 'data'), { recursive: true });
  const log = openSync(join(dir, 'dockerd.log'), 'a');
  // A bridge of its own: with `--bridge none` dockerd deletes the host's `docker0` when it starts (the
  // default bridge's interface, shared with the engine everyone else uses: its containers on the default
  // network then fail to start). Not connected to anything; removed with the engine.
  const bridge = `tsd${port}`;
  execFileSync('ip', ['link', 'add', 'name', bridge, 'type', 'bridge']);
  const launch = (): ChildProcess =>
    spawn(
      'dockerd',
      [
        '--config-file',
        join(dir, 'daemon.json'),
        '--data-root',
        join(dir, 'data'),
        '--exec-root',
        join(dir, 'exec'),
        '--pidfile',
        join(dir, 'docker.pid'),
        '--containerd-namespace',
        `tsd-${port}`,
        '--containerd-plugins-namespace',
        `tsd-${port}-plugins`,
        '-H',
        `unix://${socket}`,
        '-H',
        `tcp://127.0.0.1:${port}`,
        '--tlsverify',
        '--tlscacert',
        join(dir, 'ca.pem'),
        '--tlscert',
        join(dir, 'server-cert.pem'),
        '--tlskey',
        join(dir, 'server-key.pem'),
        '--bridge',
        bridge,
        '--iptables=false',
        '--ip-masq=false',
        '--userland-proxy=false',
      ],
      { stdio: ['ignore', log, log] },
    );
  let child = launch();
  let exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    try {
      execSync(`grep ' ${dir}/' /proc/mounts | cut -d' ' -f2 | sort -r | xargs -r umount -l`, {
        stdio: 'ignore',
      });
    } catch {
      /* nothing mounted */
    }
    rmSync(dir, { recursive: true, force: true });
    try {
      execFileSync('ip', ['link', 'del', bridge], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  };
  const docker = `docker -H unix://${socket}`;
  const answered = async () => {
    const end = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(
          `the second dockerd exited: ${readFileSync(join(dir, 'dockerd.log'), 'utf8').slice(-2000)}`,
        );
      try {
        execSync(`${docker} info`, { stdio: 'ignore' });
        return;
      } catch {
        if (Date.now() > end) {
          await stop();
          throw new Error('the second dockerd did not answer within 60 s');
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  await answered();
  const kill = async () => {
    child.kill('SIGKILL');
    await exited;
    // Its own containerd (started by this dockerd, pid in its exec root) would keep the socket a
    // restarted dockerd needs: it dies with the engine, as on a machine that lost power.
    try {
      const pid = Number(readFileSync(join(dir, 'exec', 'containerd', 'containerd.pid'), 'utf8').trim());
      if (pid > 1) {
        process.kill(pid, 'SIGKILL');
        for (let i = 0; i < 100; i++) {
          try {
            process.kill(pid, 0);
          } catch {
            break;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } catch {
      /* no containerd of its own */
    }
  };
  const restart = async () => {
    child = launch();
    exited = new Promise<void>((r) => child.once('exit', () => r()));
    await answered();
  };
  try {
    // Saved from the engine the test runs on (DOCKER_HOST may already point at this one).
    const env = { ...process.env };
    if (opts.sourceHost) env['DOCKER_HOST'] = opts.sourceHost;
    else delete env['DOCKER_HOST'];
    for (const image of images) execSync(`docker save ${image} | ${docker} load`, { stdio: 'ignore', env });
  } catch (e) {
    await stop();
    throw e;
  }
  const files = (p: string) => ({
    tls_ca: join(dir, `${p}ca.pem`),
    tls_cert: join(dir, `${p}client-cert.pem`),
    tls_key: join(dir, `${p}client-key.pem`),
  });
  return {
    host: `tcp://127.0.0.1:${port}`,
    socket,
    tls: files(''),
    foreign: files('foreign-'),
    dir,
    stop,
    kill,
    restart,
  };
}

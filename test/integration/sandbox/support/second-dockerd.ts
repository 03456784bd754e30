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
import { delimiter, join } from 'node:path';

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
 * PATH with the system's sbin folders after the caller's: dockerd is /usr/sbin/dockerd on Debian, and it
 * finds runc, docker-init and docker-proxy (/usr/sbin too) on the PATH it is given. A root shell's PATH
 * has them, a CI runner's or cron's (`/usr/bin:/bin`) may not: the engine then failed to start with
 * "spawn dockerd ENOENT".
 */
export function withSbin(path = process.env['PATH'] ?? ''): string {
  const have = path.split(delimiter).filter(Boolean);
  const missing = ['/usr/local/sbin', '/usr/sbin', '/sbin'].filter((d) => !have.includes(d));
  return [...have, ...missing].join(delimiter);
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
      { stdio: ['ignore', log, log], env: { ...process.env, PATH: withSbin() } },
    );
  /** Why the engine could not be started at all (its binary not found), if so. */
  let spawnError: Error | undefined;
  /** Resolves when the engine has exited, or could not start (no 'exit' then, only 'error'). */
  const ended = (c: ChildProcess) =>
    new Promise<void>((r) => {
      c.once('exit', () => r());
      c.once('error', (e) => {
        spawnError = e;
        r();
      });
    });
  let child = launch();
  let exited = ended(child);
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
      if (child.exitCode !== null || spawnError) {
        const log = readFileSync(join(dir, 'dockerd.log'), 'utf8').slice(-2000);
        // (its folder and bridge go with it: a start that failed left the bridge on the host)
        await stop();
        throw new Error(`the second dockerd exited: ${spawnError?.message ?? ''}\n${log}`);
      }
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
    exited = ended(child);
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
